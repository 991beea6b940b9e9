// The channel to the ISOLATED-world relay (capture/relay.js): the page side
// buffers records (emit) and hands them over a private MessageChannel; the
// relay sends back the worker's settings and asks for a flush before an
// action's result is reported (answered with the settle probe's report).
//
// Handshake (see relay.js and extension/README.md): connectRelay creates the
// channel and dispatches a synchronous, cancelable MessageEvent
// "gasoline:capture-port" carrying port2 on window; the relay, which Chrome
// runs first (registration order), takes the first port it is given, cancels
// the event and stops listening. Both happen at document_start, before the
// page has run a line, so the page can neither see nor replace the port.
// Whatever comes through the port is data to the relay and the worker: the
// worker stamps tab, frame and URL from Chrome's sender, so a page can at
// most add records to its own frame's stream, as its own console.log could.
import { arrIndexOf, arrPush, arrShift, dom, keys, NumberIsFinite, strStartsWith, uncurry } from './builtins.js';
import { Buffer } from './buffer.js';
import { DEFAULT_BODY_CAP, LIMITS } from './limits.js';
import { addListener, clearTimeout_, dispatch, removeListener, setTimeout_, win } from './page.js';
import { scrub } from './secret.js';
import { report, setPolls } from './work.js';

const MessageChannelCtor = win.MessageChannel;
const MessageEventCtor = win.MessageEvent;
const portPost = uncurry(MessagePort.prototype.postMessage);
const messageData = dom(win.MessageEvent, 'data', true); // a page may hook MessageEvent.prototype.data to read the port's messages

// settings the worker sends back through the relay (apitype.CaptureConfig)
export const settings = {
  bodyCap: DEFAULT_BODY_CAP,
  kinds: { log: true, error: true, network: true, action: true, nav: true, vital: true },
};
/** on says whether the worker's settings capture records of this kind. */
export const on = (kind) => settings.kinds[kind] !== false;

const buffer = new Buffer(LIMITS.buffer);
let port = null;
let timer = 0;
const secretFields = []; // elements whose values must not appear in any record
const held = []; // the last 40 values they held, which a form's reset leaves secret

/** hold remembers v, a secret field's value (one typed on grows in place); it throws on no string. */
function hold(v) {
  const n = held.length - 1;
  if (v.length < 3 || arrIndexOf(held, v) >= 0 || (n >= 0 && strStartsWith(held[n], v))) return;
  if (n >= 0 && strStartsWith(v, held[n])) held[n] = v;
  else if (arrPush(held, v) > 40) arrShift(held);
}

/** scrubRecord cuts the secret fields' values out of rec's strings. */
function scrubRecord(rec) {
  for (let i = 0; i < secretFields.length; i++) {
    try {
      hold(secretFields[i].value);
    } catch {
      // detached or odd element
    }
  }
  const ks = keys(rec);
  for (let i = 0; i < ks.length; i++) {
    const v = rec[ks[i]];
    if (typeof v === 'string') rec[ks[i]] = scrub(v, held);
  }
}

/** emit queues one record; it never throws and never blocks the page. */
export function emit(rec, urgent) {
  try {
    if (secretFields.length) scrubRecord(rec);
    const n = buffer.push(rec);
    if (!port) return;
    if (urgent || n >= LIMITS.flushCount) flush();
    else if (!timer) timer = setTimeout_(flush, LIMITS.flushMs);
  } catch {
    // capture must never break the page
  }
}

/** flush posts every buffered record to the relay now. */
export function flush() {
  if (timer) {
    clearTimeout_(timer);
    timer = 0;
  }
  if (!port) return;
  while (buffer.items.length || buffer.droppedAny) {
    const msg = buffer.take(LIMITS.flushCount);
    try {
      portPost(port, msg);
    } catch {
      // a record that cannot be cloned: drop the message, count it
      for (let i = 0; i < msg.events.length; i++) {
        const k = msg.events[i].kind;
        buffer.dropped[k] = (buffer.dropped[k] || 0) + 1;
        buffer.droppedAny = true;
      }
      if (!msg.events.length) break;
    }
  }
}

/** onPortMessage answers the relay's flush and applies the settings it sends. */
function onPortMessage(e) {
  const d = messageData(e);
  if (d && typeof d === 'object' && typeof d.flush === 'number') {
    // The relay asks for everything recorded so far (an action's result
    // is about to be reported): send it, then say so and how many short
    // timers an action scheduled are still to run (work.js).
    flush();
    try {
      if (!import.meta.lean) setPolls(d.polls);
      portPost(port, report(d.flush));
    } catch {
      // the relay is gone
    }
    return;
  }
  if (!d || typeof d !== 'object' || !d.config || typeof d.config !== 'object') return;
  const c = d.config;
  if (typeof c.body_cap === 'number' && NumberIsFinite(c.body_cap) && c.body_cap >= 0) settings.bodyCap = c.body_cap;
  if (c.kinds && typeof c.kinds === 'object') {
    const ks = keys(settings.kinds);
    for (let i = 0; i < ks.length; i++) {
      if (typeof c.kinds[ks[i]] === 'boolean') settings.kinds[ks[i]] = c.kinds[ks[i]];
    }
  }
}

/** connect offers the relay its port; it reports whether the relay took it. */
function connect() {
  const ch = new MessageChannelCtor();
  const accepted = !dispatch(win, new MessageEventCtor(PORT_EVENT, { ports: [ch.port2], cancelable: true }));
  if (!accepted) return false;
  port = ch.port1;
  port.onmessage = onPortMessage;
  flush();
  return true;
}

/** remember makes el a secret field (the last 20) and holds its value. */
export function remember(el) {
  hold(el.value);
  if (arrIndexOf(secretFields, el) >= 0) return;
  if (secretFields.length >= 20) arrShift(secretFields);
  arrPush(secretFields, el);
}

const PORT_EVENT = 'gasoline:capture-port';
const HELLO_EVENT = 'gasoline:capture-hello';

/** connectRelay hands the relay its port now, or when it says hello (Chrome ran this script first). */
export function connectRelay() {
  if (connect()) return;
  // The relay has not run yet: it says hello when it starts, and we answer once.
  const onHello = (e) => {
    if (port) return;
    try {
      e.stopImmediatePropagation();
    } catch {
      // ignore
    }
    if (connect()) removeListener(win, HELLO_EVENT, onHello, true);
  };
  addListener(win, HELLO_EVENT, onHello, true);
}
