// Forwarding to the worker: the checked records wait in a queue and go in
// batches (chrome.runtime.sendMessage), paced and gathered (below),
// retried, and counted as dropped when they cannot go. The worker's reply
// acknowledges a batch (it is then stored in the worker) and carries the
// capture settings, which go back to the page script.
import { checkRecord, LIMITS, RETRY_MS, takeBatch } from './check.js';

const frame = Math.random().toString(36).slice(2, 10);
let batchSeq = 0;
let queue = []; // checked records waiting
let queueChars = 0;
// A noisy page is paced: after a batch of c characters the next goes
// c / rateChars seconds later, so one tab's flood does not fill the
// browser's message routing and the worker ahead of the agent's
// commands; what does not fit in the queue meanwhile is dropped, oldest
// first, and counted.
let nextAt = 0;
let paceTimer = null;
// Records come one by one (a load's nav, console lines, vitals,
// requests) and every message to the worker costs the page's main
// thread (cloning, IPC, the reply's continuation): the first record of
// a burst waits up to gatherMs for the rest, unless they fill a batch.
// The worker's flush (before an action's result, a settle, a read) and
// leaving the page take what waits at once; an agent's observe with
// wait_ms sees a record at most gatherMs later. A user's action (kind
// "action", capture/record.js) does not wait for a gathering (only for a
// batch in flight and the pacing), and takes what gathered before it: each frame has a relay of its own, and the worker stores
// records as they come, so a click in one frame gathered behind a click
// in another would be listed after it (and a test made from the
// recording would replay them out of order).
let gatherAt = 0; // when the records waiting go (pacing permitting)
const charsOf = (r) => (r.request_body?.length || 0) + (r.response_body?.length || 0) + (r.message?.length || 0) + (r.stack?.length || 0) + 200;
let dropped = {}; // counts not yet delivered to the worker
let droppedAny = false;
const flying = new Set(); // batches sent, not yet stored or given up: one, or more while the page is left
let landed = []; // resolvers of flushes waiting for every batch in flight to be stored or given up
/** dead: the extension was reloaded or removed: this script is orphaned. */
export let dead = false;
let leaving = false; // from pagehide till pageshow: nothing is paced (leave.js)
/** shown counts the restores from the back/forward cache: a delivery of an earlier one is void (leave.js). */
export let shown = 0;
let configVersion = null;
let kinds = {};
/** port is the private MessagePort of the MAIN-world capture, once it handed it over (port.js). */
export let port = null;

/** linked keeps p, the page script's port. */
export function linked(p) {
  port = p;
}

/** countDropped counts n records of kind as dropped, for the next batch to say. */
export function countDropped(kind, n) {
  dropped[kind] = (dropped[kind] || 0) + n;
  droppedAny = true;
}

/** enqueue adds checked record r to the queue, dropping the oldest past the queue's caps. */
export function enqueue(r) {
  if (r.kind === 'action') {
    gatherAt = Date.now();
    if (paceTimer) { // set for the gathering's end: send() sets it again for the pacing alone
      clearTimeout(paceTimer);
      paceTimer = null;
    }
  } else if (!queue.length) gatherAt = Date.now() + LIMITS.gatherMs;
  queue.push(r);
  queueChars += charsOf(r);
  while (queue.length > LIMITS.queue || (queueChars > LIMITS.queueChars && queue.length > 1)) {
    const old = queue.shift();
    queueChars -= charsOf(old);
    countDropped(old.kind, 1);
  }
}

/**
 * exposeRecord defines gasolineRecord, which takes one record from this
 * world's own recorder (capture/record.js: user actions), checked like the
 * page's, unless the capture settings switched its kind off.
 */
export function exposeRecord() {
  Object.defineProperty(globalThis, 'gasolineRecord', {
    value: (rec) => {
      const r = dead ? null : checkRecord(rec);
      if (!r || kinds[r.kind] === false) return;
      enqueue(r);
      send();
    },
  });
}

/**
 * sendBatch sends the next batch, without records of the requests in
 * busy (takeBatch), unless there is nothing to send; it returns the batch.
 */
function sendBatch(busy) {
  const { events, rest, chars } = takeBatch(queue, busy, charsOf);
  if (!events.length && !droppedAny) return null;
  queue = rest;
  queueChars -= chars;
  nextAt = Date.now() + (chars * 1000) / LIMITS.rateChars;
  const batch = { type: 'gasoline.capture', batch: `${frame}:${++batchSeq}`, events };
  if (droppedAny) {
    batch.dropped = dropped;
    dropped = {};
    droppedAny = false;
  }
  flying.add(batch);
  deliver(batch, 0);
  return batch;
}

/** send sends the next batch when it may go (none in flight, gathered, paced), or sets a timer for then; all at once while leaving. */
export function send() {
  if (dead) return;
  if (leaving) {
    sendAll();
    return;
  }
  if (flying.size || (!queue.length && !droppedAny)) return;
  const full = queue.length >= LIMITS.batchEvents || queueChars >= LIMITS.batchChars;
  const wait = (full ? nextAt : Math.max(nextAt, gatherAt)) - Date.now();
  if (wait > 0) {
    if (!paceTimer) {
      paceTimer = setTimeout(() => {
        paceTimer = null;
        send();
      }, wait);
    }
    return;
  }
  sendBatch(new Set());
}

/** sendAll sends every record waiting, beside the batches in flight but for those of their requests. */
function sendAll() {
  const busy = new Set();
  const note = (b) => b.events.forEach((r) => busy.add(r.request_id));
  flying.forEach(note);
  for (let b; (b = sendBatch(busy));) note(b);
}

/** leave turns pacing off (the page is left: no timer runs in a page that is gone) or, with false, on again. */
export function leave(on) {
  leaving = on;
}

/** reshown voids what was delivered before the page entered the back/forward cache, and sends what was in flight again. */
export function reshown() {
  shown++;
  flying.forEach((b) => deliver(b, 0));
  send();
}

/** deliver sends batch to the worker, the attempt-th time: retried, then given up on (its records counted as dropped). */
function deliver(batch, attempt) {
  const at = shown;
  let sent;
  try {
    sent = chrome.runtime.sendMessage(batch);
  } catch (err) {
    orphaned(err);
    return;
  }
  sent.then((reply) => {
    if (at !== shown) return;
    if (!reply || reply.ok !== true) throw new Error('not taken by the worker'); // retried below
    acknowledged(batch, reply);
  }).catch((err) => {
    if (at !== shown) return;
    if (/context invalidated/i.test(String(err?.message))) {
      orphaned(err);
      return;
    }
    if (attempt < RETRY_MS.length) {
      setTimeout(() => at === shown && deliver(batch, attempt + 1), RETRY_MS[attempt]);
      return;
    }
    // Give up on this batch but say so: its records count as dropped.
    for (const r of batch.events) countDropped(r.kind, 1);
    if (batch.dropped) for (const k of Object.keys(batch.dropped)) countDropped(k, batch.dropped[k]);
    land(batch);
    setTimeout(send, RETRY_MS[RETRY_MS.length - 1]);
  });
}

/**
 * noneInFlight resolves once no batch is in flight. A flush answer
 * (flush.js) waits for it: Chrome does not keep a batch and a later flush
 * answer in order, and records out of order split one request in two (a
 * body update stored before the record it completes). While a flush
 * waits, an acknowledgement sends no next batch: the answer takes the
 * queue.
 */
export async function noneInFlight() {
  while (flying.size) await new Promise((resolve) => landed.push(resolve));
}

/** land takes batch (every batch, without one) off those in flight, and wakes the flushes waiting when none is left. */
function land(batch) {
  if (batch) flying.delete(batch);
  else flying.clear();
  if (flying.size) return;
  const waiting = landed;
  landed = [];
  for (const resolve of waiting) resolve();
}

/** takeWaiting empties the queue, for a flush's answer (at most LIMITS.queue records). */
export function takeWaiting() {
  const events = queue.splice(0, LIMITS.queue);
  queueChars = 0;
  return events;
}

/** takeDropped moves the dropped counts not yet told into a flush's answer reply. */
export function takeDropped(reply) {
  if (droppedAny) {
    reply.dropped = dropped;
    dropped = {};
    droppedAny = false;
  }
}

/** acknowledged takes the worker's reply to batch: the capture settings go to the page script, and the next batch goes. */
function acknowledged(batch, reply) {
  const flushing = landed.length > 0;
  land(batch);
  const c = reply.config;
  if (c && typeof c.kinds === 'object' && c.kinds) kinds = c.kinds;
  if (c && typeof c === 'object' && c.version !== configVersion && port) {
    configVersion = c.version;
    try {
      port.postMessage({ config: { version: c.version, body_cap: c.body_cap, kinds: c.kinds } });
    } catch {
      // the page script is gone
    }
  }
  if (!flushing) send();
}

/** orphaned stops the relay: the extension was reloaded or removed. */
function orphaned() {
  dead = true;
  queue = [];
  queueChars = 0;
  land();
  if (port) {
    port.onmessage = null;
    port.close();
  }
}
