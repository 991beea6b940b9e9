// The page's load and same-document navigations, recorded.
import { apply, now } from './builtins.js';
import { emit, on } from './channel.js';
import { LIMITS } from './limits.js';
import { addListener, doc, isTop, loc, locHref, win } from './page.js';
import { clip } from './text.js';

const H = win.History && win.History.prototype;

/** captureHistory records the page load and same-document navigations. */
export function captureHistory() {
  let lastHref = locHref(loc);
  function navigated(type) {
    if (!on('nav')) {
      lastHref = locHref(loc);
      return;
    }
    const to = locHref(loc);
    const rec = { kind: 'nav', ts: now(), type, to: clip(to, LIMITS.url) };
    if (lastHref !== to || type === 'popstate') rec.from = clip(lastHref, LIMITS.url);
    lastHref = to;
    emit(rec);
  }
  if (H) {
    for (const name of ['pushState', 'replaceState']) {
      const orig = H[name];
      if (typeof orig !== 'function') continue;
      H[name] = {
        [name]() {
          const r = apply(orig, this, arguments);
          try {
            navigated(name);
          } catch {
            // ignore
          }
          return r;
        },
      }[name];
    }
  }
  addListener(win, 'popstate', () => navigated('popstate'), true);
  addListener(win, 'hashchange', () => navigated('hashchange'), true);
  // A web or file subframe's load is recorded by the worker from
  // webNavigation.onCommitted (capture/worker.js): sent from here it would
  // cost every such frame a message to the worker before it has anything
  // else to say. The top document's (with its referrer) and those of
  // frames without a URL of their own (about:blank, data:, blob:, which
  // webNavigation may not report) are sent from here.
  if (!isTop() && /^(https?|file):/i.test(lastHref)) return;
  {
    const rec = { kind: 'nav', ts: now(), type: 'load', to: clip(lastHref, LIMITS.url) };
    try {
      if (doc.referrer) rec.from = clip(doc.referrer, LIMITS.url);
    } catch {
      // ignore
    }
    if (import.meta.lean) rec.lean = true;
    if (on('nav')) emit(rec);
  }
}
