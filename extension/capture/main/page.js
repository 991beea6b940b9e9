// The page's built-ins the MAIN-world hooks share, saved when the bundle
// starts (document_start, before any page script can replace them). Page
// only: the modules that import this one run in a document (the bundles),
// not under node. A hook's own built-ins are saved in its module.
import { dom, now, StringCtor, uncurry } from './builtins.js';

export const win = globalThis;
export const doc = document;
export const loc = location;
const ET = EventTarget.prototype;
export const addListener = uncurry(ET.addEventListener);
export const removeListener = uncurry(ET.removeEventListener);
export const dispatch = uncurry(ET.dispatchEvent);
export const setTimeout_ = win.setTimeout.bind(win);
export const clearTimeout_ = win.clearTimeout.bind(win);
const perf = win.performance;
export const perfNow = perf && perf.now ? perf.now.bind(perf) : now;
export const locHref = dom(win.Location, 'href', true) || (() => StringCtor(loc.href));
export const isTrusted = dom(win.Event, 'isTrusted', true) || ((e) => e.isTrusted);
export const eventTarget = dom(win.Event, 'target', true) || ((e) => e.target);

/** isTop reports whether the page's window is the tab's top window (a window without a readable top counts as one). */
export function isTop() {
  try {
    return !win.top || win.top === win;
  } catch {
    return true;
  }
}
