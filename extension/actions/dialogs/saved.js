// The built-ins dialogs.js calls, saved when its bundle starts (before any
// page script, at document_start), so that a page that hooks JSON, Number,
// Array or event methods later learns nothing of the channel's traffic.
export const apply = Reflect.apply;
export const hasOwn = Object.hasOwn;
export const parse = JSON.parse;
export const stringify = JSON.stringify;
export const num = Number;
export const str = String;
export const slice = String.prototype.slice;
export const CE = CustomEvent;
export const detailOf = Object.getOwnPropertyDescriptor(CustomEvent.prototype, 'detail').get;
export const dispatch = EventTarget.prototype.dispatchEvent;
export const listen = EventTarget.prototype.addEventListener;
export const now = Date.now.bind(Date);
export const native = { alert: window.alert, confirm: window.confirm, prompt: window.prompt, open: window.open };
export const Url = window.URL;
