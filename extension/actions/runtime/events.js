// The DOM runtime's events: the pointer, mouse, focus, input and keyboard
// events a user's actions make, dispatched as the browser would.
import { deepActive, hitAt, shows, view } from './geometry.js';
import { core, engine } from './globals.js';
import { Failure } from './targets.js';
import { editable } from './waits.js';

// --- events --------------------------------------------------------------------

const BUTTONS = { left: [0, 1], middle: [1, 4], right: [2, 2] };

/** mods turns modifier names (Control, Shift, Alt, Meta) into the events' key flags; an unknown name fails bad_target. */
export function mods(list) {
  const m = { ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };
  for (const k of list || []) {
    const key = { Control: 'ctrlKey', Ctrl: 'ctrlKey', Shift: 'shiftKey', Alt: 'altKey', Meta: 'metaKey', Cmd: 'metaKey' }[k];
    if (!key) throw new Failure('bad_target', `unknown modifier ${JSON.stringify(k)}; use Control, Shift, Alt or Meta`);
    m[key] = true;
  }
  return m;
}

/** mouseInit is the init of a mouse or pointer event at (x, y) in the view, with modifiers m and extra. */
export function mouseInit(el, x, y, m, extra) {
  return { bubbles: true, cancelable: true, composed: true, view: window, clientX: x, clientY: y,
    screenX: x + screenX, screenY: y + screenY, ...m, ...extra };
}

/** pointer dispatches the pointer event type on el at (x, y); it says whether it was not cancelled. */
export function pointer(el, type, x, y, m, extra = {}) {
  const init = mouseInit(el, x, y, m, { pointerId: 1, pointerType: 'mouse', isPrimary: true, width: 1, height: 1, ...extra });
  if (type === 'pointerenter' || type === 'pointerleave') init.bubbles = false;
  return el.dispatchEvent(new PointerEvent(type, init));
}

/** mouse dispatches the mouse event type on el at (x, y); it says whether it was not cancelled. */
export function mouse(el, type, x, y, m, extra = {}) {
  const init = mouseInit(el, x, y, m, extra);
  if (type === 'mouseenter' || type === 'mouseleave') init.bubbles = false;
  return el.dispatchEvent(new MouseEvent(type, init));
}

/** hoverOver sends the events of the mouse arriving over el's centre. */
export function hoverOver(el, x, y, m) {
  // A hit test that stopped at el's own shadow host (over slotted text)
  // would send the events past el's listeners: they go to el then.
  const at = hitAt(x, y);
  const hit = at && !(at !== el && core.contains(at, el) && engine.partOf(el, at)) ? at : el;
  pointer(hit, 'pointerover', x, y, m);
  pointer(hit, 'pointerenter', x, y, m);
  mouse(hit, 'mouseover', x, y, m);
  mouse(hit, 'mouseenter', x, y, m);
  pointer(hit, 'pointermove', x, y, m);
  mouse(hit, 'mousemove', x, y, m);
  return hit;
}

/** focusable returns el or its nearest focusable ancestor (what a click focuses), or null. */
export function focusTarget(el) {
  for (let n = el; n; n = n.parentElement || n.getRootNode()?.host) {
    if (n.tabIndex >= 0 || n.isContentEditable || (n.localName === 'a' && n.hasAttribute('href'))) {
      if (!core.isDisabled(n)) return n;
    }
  }
  return null;
}

/**
 * clickAt sends the full sequence a user's click makes at el's centre:
 * pointer and mouse over/move, then per click pointerdown, mousedown,
 * focus, pointerup, mouseup and click (auxclick for the middle button,
 * contextmenu for the right), dblclick after the second.
 */
export function clickAt(el, o) {
  const r = el.getBoundingClientRect();
  clickPoint(el, r.left + r.width / 2, r.top + r.height / 2, o);
}

/** clickPoint sends clickAt's sequence at (x, y) in the viewport, to what is there (el, when hoverOver's hit test stops at its shadow host). */
export function clickPoint(el, x, y, o) {
  const m = mods(o.modifiers);
  const [button, buttons] = BUTTONS[o.button || 'left'] || BUTTONS.left;
  const hit = hoverOver(el, x, y, m);
  const count = Math.max(1, Math.min(3, o.click_count || 1));
  for (let i = 1; i <= count; i++) {
    const down = pointer(hit, 'pointerdown', x, y, m, { button, buttons, pressure: 0.5 });
    if (down) {
      if (mouse(hit, 'mousedown', x, y, m, { button, buttons, detail: i }) && i === 1 && button === 0) {
        const f = focusTarget(hit);
        if (f && deepActive() !== f) f.focus({ preventScroll: true });
      }
    }
    pointer(hit, 'pointerup', x, y, m, { button, buttons: 0, pressure: 0 });
    mouse(hit, 'mouseup', x, y, m, { button, buttons: 0, detail: i });
    if (button === 0) mouse(hit, 'click', x, y, m, { button, buttons: 0, detail: i });
    else if (button === 1) mouse(hit, 'auxclick', x, y, m, { button, buttons: 0, detail: i });
    else mouse(hit, 'contextmenu', x, y, m, { button, buttons: 0, detail: i });
    if (i === 2 && button === 0) mouse(hit, 'dblclick', x, y, m, { button, buttons: 0, detail: 2 });
  }
}

const protoOf = (el) => (el.localName === 'textarea' ? HTMLTextAreaElement.prototype
  : el.localName === 'select' ? HTMLSelectElement.prototype : HTMLInputElement.prototype);

/** setValue sets a field's value with the native setter, so frameworks' value trackers see a change on input. */
export function setValue(el, value) {
  Object.getOwnPropertyDescriptor(protoOf(el), 'value').set.call(el, value);
}

export const fire = (el, type, init = {}) => el.dispatchEvent(new Event(type, { bubbles: true, cancelable: false, composed: true, ...init }));
export const inputEvent = (el, type, data, inputType = 'insertText') =>
  el.dispatchEvent(new InputEvent(type, { bubbles: true, cancelable: type === 'beforeinput', composed: true, data, inputType }));

/** focusField focuses el and puts the caret at the end of its text. */
export function focusField(el) {
  if (deepActive() !== el) el.focus({ preventScroll: true });
  if (el.isContentEditable) {
    const sel = getSelection();
    sel.selectAllChildren(el);
    sel.collapseToEnd();
  } else if (typeof el.setSelectionRange === 'function') {
    try {
      const n = String(el.value).length;
      el.setSelectionRange(n, n);
    } catch { /* types without selection (email, number) */ }
  }
}

/** insertText types text at the caret of the focused field, as the browser would (input events, undo). */
export function insertText(el, text) {
  if (!inputEvent(el, 'beforeinput', text)) return;
  if (document.execCommand('insertText', false, text)) return; // fires input itself
  if (el.isContentEditable) {
    const sel = getSelection();
    if (sel.rangeCount) {
      const range = sel.getRangeAt(0);
      range.deleteContents();
      range.insertNode(document.createTextNode(text));
      range.collapse(false);
    }
  } else {
    const v = String(el.value);
    const start = el.selectionStart ?? v.length;
    const end = el.selectionEnd ?? v.length;
    setValue(el, v.slice(0, start) + text + v.slice(end));
    try {
      el.setSelectionRange(start + text.length, start + text.length);
    } catch { /* no selection API for this type */ }
  }
  inputEvent(el, 'input', text);
}

/** keyEvent dispatches the keyboard event type of the key info on el; it says whether it was not cancelled. */
function keyEvent(el, type, info, m, extra = {}) {
  return el.dispatchEvent(new KeyboardEvent(type, {
    bubbles: true, cancelable: true, composed: true, view: window, key: info.key, code: info.code,
    keyCode: info.keyCode, which: info.keyCode, charCode: type === 'keypress' ? (info.text || '').charCodeAt(0) : 0, ...m, ...extra,
  }));
}

/**
 * pressKey sends keydown, keypress (for keys that type) and keyup to el,
 * and does what the browser would by default unless a listener
 * prevented it: type the character into a field, Enter submits a form
 * or clicks a button or link, Space clicks a button, checkbox or radio,
 * Tab moves the focus, Backspace and Delete delete.
 */
export function pressKey(el, info, m) {
  const plain = !m.ctrlKey && !m.metaKey && !m.altKey;
  let allowed = keyEvent(el, 'keydown', info, m);
  if (allowed && info.text && plain && info.key !== 'Enter') allowed = keyEvent(el, 'keypress', info, m);
  if (allowed && info.key === 'Enter' && plain) allowed = keyEvent(el, 'keypress', info, m);
  const field = editable(el) && el.localName !== 'select';
  if (allowed && plain) {
    if (info.key === 'Enter') {
      if (el.localName === 'textarea' || el.isContentEditable) insertText(el, '\n');
      else if (el.localName === 'input' && el.form) el.form.requestSubmit();
      else if (el.localName === 'button' || (el.localName === 'a' && el.hasAttribute('href'))) el.click();
    } else if (info.key === 'Tab') {
      moveFocus(el, m.shiftKey ? -1 : 1);
    } else if ((info.key === 'Backspace' || info.key === 'Delete') && field) {
      deleteText(el, info.key === 'Backspace');
    } else if (info.text && field && info.key !== ' ') {
      insertText(el, info.text);
    } else if (info.key === ' ' && field) {
      insertText(el, ' ');
    }
  } else if (allowed && m.shiftKey && !m.ctrlKey && !m.metaKey && !m.altKey && info.text && field) {
    insertText(el, info.text);
  }
  const up = keyEvent(el, 'keyup', info, m);
  if (up && plain && info.key === ' ' && !field && (el.localName === 'button' || ['checkbox', 'radio'].includes(el.type))) el.click();
}

/** deleteText deletes the selection, or a character before (backward) or after the caret, as the Backspace or Delete key does. */
export function deleteText(el, backward) {
  const type = backward ? 'deleteContentBackward' : 'deleteContentForward';
  if (!inputEvent(el, 'beforeinput', null, type)) return;
  if (document.execCommand(backward ? 'delete' : 'forwardDelete')) return;
  if (el.isContentEditable) return;
  const v = String(el.value);
  let start = el.selectionStart ?? v.length;
  let end = el.selectionEnd ?? v.length;
  if (start === end) {
    if (backward) start = Math.max(0, start - 1);
    else end = Math.min(v.length, end + 1);
  }
  setValue(el, v.slice(0, start) + v.slice(end));
  inputEvent(el, 'input', null, type);
}

/** moveFocus focuses the next (dir 1) or previous (-1) tabbable element after el. */
function moveFocus(el, dir) {
  const all = [];
  core.walk(document, (n) => {
    if (n.tabIndex >= 0 && !core.isDisabled(n) && shows(n)) all.push(n);
  }, view);
  const ordered = [...all.filter((n) => n.tabIndex > 0).sort((a, b) => a.tabIndex - b.tabIndex), ...all.filter((n) => n.tabIndex === 0)];
  const i = ordered.indexOf(el);
  const next = ordered[(i + dir + ordered.length) % ordered.length];
  next?.focus();
}
