// One record per user action (kind "action"), each element described by
// the DOM engine: role, accessible name, CSS path and the engine's stable
// locator, which interact can replay. Typing is one record per field per
// pause.
import { agentActed, endWatch, watchText } from './appeared.js';
import { elementOf, modifiers, stamp, valueOf } from './describe.js';
import { engine, line, LIMITS, record, view } from './env.js';
import { rememberSecret, scrub } from './secrets.js';

const INTERACTIVE = 'a[href],button,input,select,textarea,label,summary,option,[role],[contenteditable=""],[contenteditable="true"],[onclick],[tabindex]';

/**
 * action records one action of type on el, made at ts (the event's time:
 * one tap.js held till the recorder came happened before the requests it
 * started); extra's defined fields are added.
 */
function action(type, el, extra, ts = Date.now()) {
  if (type !== 'input') flushInput();
  endWatch();
  const role = engine.roleOf(el);
  const rec = { kind: 'action', ts, type, selector: engine.cssOf(el), locator: engine.locatorOf(el, view) };
  if (role) rec.role = role;
  const name = line(engine.nameOf(el, view, role), LIMITS.name);
  if (name) rec.name = name;
  if ((type === 'click' || type === 'dblclick' || type === 'submit') && !['input', 'textarea', 'select'].includes(el.localName) && !engine.isSecret(el)) {
    const text = line(el.textContent, LIMITS.text);
    if (text) rec.text = text;
  }
  for (const [k, v] of Object.entries(extra || {})) if (v !== undefined) rec[k] = v;
  scrub(rec);
  record(rec);
  if (type !== 'input' && (type !== 'keydown' || rec.key === 'Enter')) watchText(rec.selector);
}

// Typing fires an input event per key; one record per field per pause
// (or before any other action) says the same with far fewer records.
let pendingInput = null;
let inputTs = 0; // the last input event's time
let inputTimer = 0;

/** flushInput records the field typed in last, if its record is pending. */
export function flushInput() {
  clearTimeout(inputTimer);
  inputTimer = 0;
  const p = pendingInput;
  pendingInput = null;
  if (p) action('input', p, { value: valueOf(p) }, inputTs);
}

/** handlers record each event type the recorder takes, of the user's (trusted) event e on el. */
const handlers = {
  input(el, e) {
    // A select's input comes with its change, which records it (replayed
    // as selectOption, never fill).
    if (el.localName === 'select') return;
    if (engine.isSecret(el)) rememberSecret(el);
    if (pendingInput && pendingInput !== el) flushInput();
    pendingInput = el;
    inputTs = stamp(e);
    clearTimeout(inputTimer);
    inputTimer = setTimeout(flushInput, 500);
  },
  click(el, e) {
    action('click', el.closest(INTERACTIVE) || el, { modifiers: modifiers(e) }, stamp(e));
  },
  dblclick(el, e) {
    action('dblclick', el.closest(INTERACTIVE) || el, { modifiers: modifiers(e) }, stamp(e));
  },
  change(el, e) {
    action('change', el, { value: valueOf(el) }, stamp(e));
  },
  submit(el, e) {
    action('submit', el, undefined, stamp(e));
  },
  keydown(el, e) {
    if ((e.key !== 'Enter' && e.key !== 'Escape' && e.key !== 'Tab') || e.isComposing) return;
    action('keydown', el, { key: e.key, modifiers: modifiers(e) }, stamp(e));
  },
};

let inTrusted = false; // in a user's event's task
let channel; // actions/channel.js's gasolineChannel, when this document has it

/**
 * onTap takes tap.js's event e of type at element at: a trusted one is
 * the user's and recorded; an untrusted one is an agent's action's (while
 * the channel says it is acting), or, out of a user's event's task, a
 * script's doing, which ends the user's watch.
 */
function onTap(type, e, at) {
  try {
    const fn = handlers[type];
    if (!fn) return;
    if (!e.isTrusted) {
      if (channel?.acting()) {
        const el = elementOf(at, e) || document.documentElement;
        if (type === 'input' && engine.isSecret(el)) rememberSecret(el);
        agentActed(type, e, el);
      } else if (!inTrusted) {
        endWatch();
      }
      return;
    }
    inTrusted ||= Boolean(setTimeout(() => { inTrusted = false; }));
    const el = elementOf(at, e);
    if (el) fn(el, e);
  } catch {
    // recording must never break the page
  }
}

/** takeEvents hands onTap to tap and follows the channel's "acting" signal with onActing, now or when the channel comes. */
export function takeEvents(tap, onActing) {
  channel = globalThis.gasolineChannel;
  tap(onTap);
  if (channel) channel.on('acting', onActing);
  // A document loaded while no agent worked gets channel.js when an agent
  // acts there (tabs/reach.js), which hands itself over here.
  else (globalThis.gasolineChannelLate ??= []).push((c) => { channel = c; c.on('acting', onActing); });
}
