// Flush on the worker's request: before an action's result is reported
// the worker asks each frame of the tab for what it recorded: the relay
// asks the page script over the port (FIFO, so its records arrive first),
// then answers with every record waiting here, which the worker stores
// itself, and the page script's count of short timers still to run.
//   worker -> relay:  {gasoline: "capture", op: "flush", polls?}
//   relay -> worker:  {ok: true, events, dropped?, timers, due_ms, requests, action_requests, navigating, streams?}
import { dead, noneInFlight, port, send, shown, takeDropped, takeWaiting } from './forward.js';

const FLUSH_WAIT_MS = 150; // a page script that does not answer by then is left out
// A form submitted or a link followed during an action navigates a
// moment later (the browser starts it in a later task): the answer says
// so, and the worker waits for the navigation to begin. This world sees
// the runtime's "acting" signal (below) and the page's events directly.
let navEvent = null;
// The runtime's "acting" on/off goes to dialogs.js through channel.js
// (this world, declared right after this script; actions/dialogs.js),
// which keeps the last one: read it there, rather than listen on the
// channel too (one listener less for every frame to set up).
const acting = () => globalThis.gasolineChannel?.acting?.() === true;

/** watchNavigation notes a form submitted or a link followed while the agent acts. */
export function watchNavigation() {
  addEventListener('submit', (e) => {
    if (acting()) navEvent = e;
  }, true);
  addEventListener('click', (e) => {
    if (!acting()) return;
    const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
    if (!a || a.hasAttribute('download')) return;
    const target = a.getAttribute('target');
    const href = a.getAttribute('href') || '';
    if ((target && target !== '_self') || href.startsWith('#') || /^javascript:/i.test(href)) return;
    navEvent = e;
  }, true);
}

/** willNavigate reports (once) whether the submit or link noted is about to navigate. */
function willNavigate() {
  const e = navEvent;
  navEvent = null;
  return Boolean(e) && !e.defaultPrevented;
}

/** forgetNavigation drops the submit or link noted (a page back from the cache is not navigating). */
export function forgetNavigation() {
  navEvent = null;
}

let flushSeq = 0;
const flushing = new Map(); // flush number -> resolve

/** flushed takes the page script's answer d to askPage. */
export function flushed(d) {
  const done = flushing.get(d.flushed);
  if (!done) return;
  flushing.delete(d.flushed);
  const count = (n) => (Number.isSafeInteger(n) && n > 0 ? Math.min(n, 1e6) : 0);
  done({ timers: count(d.timers), due_ms: Number.isFinite(d.due_ms) && d.due_ms > 0 ? Math.min(d.due_ms, 60000) : 0,
    requests: count(d.requests), action_requests: count(d.action_requests), streams: streamsOf(d.streams) });
}

// streamsOf keeps of the page's long-lived requests (not counted in
// requests) at most 5 well-formed {method, url, kind}.
const STREAM_KINDS = ['sse', 'stream', 'long poll'];
/** streamsOf is list's well-formed long-lived requests, at most 5. */
function streamsOf(list) {
  if (!Array.isArray(list)) return [];
  return list.slice(0, 5).filter((r) => typeof r?.method === 'string' && typeof r.url === 'string' && STREAM_KINDS.includes(r.kind))
    .map((r) => ({ method: r.method.slice(0, 16), url: r.url.slice(0, 300), kind: r.kind }));
}

/** askPage asks the page script for its records and counts; polls: the long polls the worker knows of this origin (capture/polls.js), for the page's count. */
function askPage(polls) {
  if (!port) return Promise.resolve({ timers: 0, due_ms: 0, page: false });
  const n = ++flushSeq;
  return new Promise((resolve) => {
    flushing.set(n, resolve);
    setTimeout(() => {
      if (flushing.delete(n)) resolve({ timers: 0, due_ms: 0, page: false });
    }, FLUSH_WAIT_MS);
    try {
      port.postMessage({ flush: n, polls });
    } catch {
      flushing.delete(n);
      resolve({ timers: 0, due_ms: 0, page: false });
    }
  });
}

/**
 * flushAnswer asks the page script for its records and resolves to the
 * flush's answer (once no batch is in flight: forward.js noneInFlight), or
 * to null when the page entered the back/forward cache meanwhile: what
 * waits then goes in batches. It is this world's gasolineRelay
 * (capture/relay.js): execute_js's injected function (page.js
 * runInPristine) flushes with it right after the script, in the same
 * injection, and the DOM runtime (actions/runtime/ops.js flushHere) in the
 * act or changed message's own answer, instead of the worker asking in a
 * round trip of its own (issue 33). The page cannot reach this world.
 * unlessNavigating true resolves to null at once, asking nothing, when a submit
 * or link the agent's action started is about to navigate: the runtime's
 * answer must not wait on a flush while the document is about to go (it
 * would be lost with the document); the worker's own flush asks after it,
 * and still learns the navigation is coming.
 */
export async function flushAnswer(polls, unlessNavigating) {
  if (unlessNavigating && navEvent && !navEvent.defaultPrevented) return null;
  const at = shown;
  const page = await askPage(polls);
  await noneInFlight();
  // Asked before the page entered the back/forward cache: the answer's
  // channel is closed, so what waits goes in batches.
  if (at !== shown) {
    send();
    return null;
  }
  const events = takeWaiting();
  const reply = { ok: !dead, events, timers: page.timers, due_ms: page.due_ms, requests: page.requests ?? 0,
    action_requests: page.action_requests ?? 0, navigating: willNavigate(), page: page.page !== false };
  if (page.streams?.length) reply.streams = page.streams;
  takeDropped(reply);
  return reply;
}

/** answerFlushes answers the worker's flushes. */
export function answerFlushes() {
  chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
    // Only the worker: content scripts cannot call tabs.sendMessage.
    if (sender.id !== chrome.runtime.id || msg?.gasoline !== 'capture' || msg.op !== 'flush') return false;
    flushAnswer(msg.polls).then((reply) => {
      if (reply) sendResponse(reply);
    });
    return true;
  });
}
