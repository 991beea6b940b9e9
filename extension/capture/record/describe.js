// What a record says of an event: the element it was for, a field's
// value, the modifier keys held and when it happened.
import { engine, LIMITS } from './env.js';
import { rememberSecret } from './secrets.js';

/** elementOf is the element an event was for (tap.js: the innermost in open shadow roots; closedInside goes on). */
export function elementOf(at, e) {
  const t = at && at.nodeType !== 1 ? at.parentElement : at;
  return t && t.nodeType === 1 ? closedInside(t, e) : null;
}

/**
 * closedInside is the element inside the closed shadow root el hosts
 * that event e was for, where this world can open the root
 * (engine.shadowOf): an event's path stops at a closed root's host. A
 * pointer's event is for the element under it, any other (keys, input,
 * a click from the keyboard) for the focused one. el when it hosts no
 * closed root.
 */
function closedInside(el, e) {
  if (!e || el.shadowRoot || !engine.shadowOf(el)) return el;
  const pointer = typeof MouseEvent === 'function' && e instanceof MouseEvent && e.detail > 0;
  for (let i = 0, sr = engine.shadowOf(el); sr && i < 16; i++, sr = engine.shadowOf(el)) {
    const inner = pointer ? sr.elementFromPoint(e.clientX, e.clientY) : sr.activeElement;
    if (!inner || inner === el) break;
    el = inner;
  }
  return el;
}

/** valueOf is what a field holds, as a record shows it (undefined for none). */
export function valueOf(el) {
  if (engine.isSecret(el)) {
    rememberSecret(el);
    return '[redacted]';
  }
  const tag = el.localName;
  if (tag === 'input') {
    const type = String(el.type || '').toLowerCase();
    if (type === 'checkbox' || type === 'radio') return el.checked ? 'checked' : 'unchecked';
    if (type === 'file') return `[${el.files ? el.files.length : 0} file(s)]`;
    return engine.clip(String(el.value), LIMITS.value);
  }
  if (tag === 'textarea' || tag === 'select') return engine.clip(String(el.value), LIMITS.value);
  if (el.isContentEditable) return engine.clip(String(el.textContent ?? ''), LIMITS.value);
  return undefined;
}

/** modifiers are the modifier keys held during e (undefined for none). */
export function modifiers(e) {
  const m = [];
  if (e.altKey) m.push('Alt');
  if (e.ctrlKey) m.push('Control');
  if (e.metaKey) m.push('Meta');
  if (e.shiftKey) m.push('Shift');
  return m.length ? m : undefined;
}

/**
 * stamp is when e happened, in the wall clock of Date.now(): now less
 * the event's age. Not timeOrigin + timeStamp: the monotonic clock stops
 * while the machine sleeps, so that sum falls behind Date.now() by the
 * sleep, and a click would sort before the requests it started.
 */
export function stamp(e) {
  const now = Date.now();
  const age = performance.now() - e.timeStamp;
  return Number.isFinite(age) ? Math.round(now - Math.max(0, age)) : now;
}
