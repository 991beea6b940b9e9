// The settle probe: what the page still has to do that an agent's action,
// or the page's load, started (the short timers and the requests), which
// the relay's flush asks for (report) so the worker waits for "a click whose
// handler throws 200 ms later" or "a page that redirects 50 ms after load"
// instead of a fixed delay.
//
// While an agent's action runs (the runtime's "acting" signal, below),
// while the document loads (until just after its load event), inside the
// callbacks of the timers tracked then, and while a request counted then is
// in flight or for GRACE_MS after it was read (its .then handlers run),
// setTimeout calls of at most TRACK_MS are counted until they run or are
// cleared. An action's start forgets what the load started: a page that
// polls forever holds up its navigate, not every click after it. Otherwise
// the hook only checks flags.
import {
  apply, arrIndexOf, arrPush, isArray, mapDelete, mapForEach, mapSet, MathMax, now, parseJSON, StringCtor, strIndexOf,
  strLower, strSlice,
} from './builtins.js';
import { addListener, doc, isTrusted, removeListener, setTimeout_, win } from './page.js';
import { clip } from './text.js';

const TRACK_MS = 1000;
const GRACE_MS = 20;
const LOAD = 1;
const ACT = 2;
// Long-lived requests do not count as work (report, origin): a response of
// type text/event-stream, a body being read that has had no bytes for
// STALL_MS, and one still waiting for its answer after WAIT_MS that the
// action did not start (a long poll the page or its load opened). STALL_MS
// is the 500 ms of "network idle" in puppeteer and playwright: the chunks
// of an ordinary body come within milliseconds of each other, a stream's
// heartbeat seconds apart. WAIT_MS is longer: an API call the load started
// that answers (or fails) late, after 800 ms say, is what the agent must
// see, where a long poll waits for tens of seconds. An action's own request
// waiting for its answer is work until the settle cap: it is what the agent
// asked for. A request the action did not start to a long poll the worker
// learned for this origin (capture/polls.js: "METHOD url" without its
// query, sent with each flush: setPolls) is a long poll at once, and one
// whose url says it waits (POLL_WORDS: /poll, subscribe, watch=,
// timeout=...) is one after HINT_MS: a page's first visit then settles
// within a second of its load, where an API call whose url says nothing of
// waiting (/api/report) still has WAIT_MS to fail late.
const STALL_MS = 500;
const WAIT_MS = 1200;
const HINT_MS = 500;
const POLL_WORDS = ['poll', 'subscribe', 'listen', 'watch', 'comet', '/updates', 'getupdates', 'wait=', 'timeout='];
const MAX_STREAMS = 5;

let arming = false;
let loading = false;
let loadOver = false; // an action began: what the load started no longer counts
let ctx = 0; // the origin (LOAD or ACT) of the tracked timer callback running now
let graceUntil = 0;
let graceOrigin = 0;
let adopted = false; // origin() answered from a request: its timer's callback does not count what it sets
// fetch/XHR the page started whose record (with bodies) is not out yet,
// and those of them an action or the load started (as for timers, above)
let netInflight = 0;
const netBy = [0, 0, 0]; // by origin
const netLive = new Map(); // counted info -> its origin
const tracked = { ids: new Map(), n: 0, due: 0 }; // timer id -> origin; n = ids.size
let polls; // the worker's long polls for this origin (at work: setPolls)

const live = (o) => o === ACT || (o === LOAD && !loadOver);

/** origin is what a timer set or a request started now counts for: ACT, LOAD or 0 (nothing). */
function origin() {
  adopted = false;
  if (arming) return ACT;
  if (ctx && live(ctx)) return ctx;
  if (loading && !loadOver) return LOAD;
  adopted = true; // a clock ticking meanwhile is counted once, not adopted for good
  if (netBy[ACT] && netBy[ACT] > streamsOf(ACT)) return ACT;
  if (netBy[LOAD] && !loadOver && netBy[LOAD] > streamsOf(LOAD)) return LOAD;
  if (graceUntil && now() < graceUntil && live(graceOrigin)) return graceOrigin;
  adopted = false;
  return 0;
}

/** started counts a request (info, the network hooks' record of it) in flight. */
export function started(info) {
  info.counted = true;
  info.origin = origin();
  info.last = now();
  if (!import.meta.lean) info.hinted = saysPoll(info.url);
  mapSet(netLive, info, info.origin);
  netInflight++;
  if (info.origin) netBy[info.origin]++;
}

/** touch notes bytes of a counted request: its answer began (read), a body chunk came, or it is an event stream (sse). */
export function touch(info, read, sse) {
  if (!info || !info.counted) return;
  info.last = now();
  if (read) info.read = true;
  if (sse) info.sse = true;
}

/** setPolls takes the worker's list of this origin's long polls (at work; the relay's flush brings it). */
export function setPolls(list) {
  polls = list;
}

/** saysPoll reports whether url, past its origin, names waiting for news (POLL_WORDS). */
function saysPoll(url) {
  const u = strLower(StringCtor(url));
  const host = strIndexOf(u, '//');
  const rest = strSlice(u, host < 0 ? 0 : strIndexOf(u + '/', '/', host + 2));
  for (let i = 0; i < POLL_WORDS.length; i++) {
    if (strIndexOf(rest, POLL_WORDS[i]) >= 0) return true;
  }
  return false;
}

/** streaming reports whether the counted request info is long-lived at time t (see STALL_MS). */
function streaming(info, t) {
  return info.sse || (info.read ? t - info.last >= STALL_MS : info.origin !== ACT
    && (import.meta.lean || !isArray(polls) || arrIndexOf(polls, info.method + ' ' + strSlice(info.url, 0, strIndexOf(info.url + '?', '?'))) < 0
      ? t - info.last >= (info.hinted ? HINT_MS : WAIT_MS) : true));
}

/** streamsOf is how many of origin o's requests in flight (all: o < 0) are streams. */
function streamsOf(o) {
  const t = now();
  let k = 0;
  mapForEach(netLive, (oo, info) => {
    if ((o < 0 || oo === o) && streaming(info, t)) k++;
  });
  return k;
}

/** named lists up to MAX_STREAMS of the streams in flight. */
function named() {
  const t = now();
  const out = [];
  mapForEach(netLive, (o, info) => {
    if (out.length < MAX_STREAMS && streaming(info, t)) {
      arrPush(out, { method: info.method, url: clip(StringCtor(info.url), 300), kind: info.sse ? 'sse' : info.read ? 'stream' : 'long poll' });
    }
  });
  return out;
}

/** ended stops counting a request: its record (with bodies) is out. */
export function ended(info) {
  if (!info.counted) return;
  info.counted = false;
  mapDelete(netLive, info);
  netInflight = MathMax(0, netInflight - 1);
  const o = info.origin;
  if (!o) return;
  // Counted a moment longer: what the page does with the answer may set a timer.
  graceUntil = now() + GRACE_MS;
  graceOrigin = o;
  setTimeout_(() => {
    netBy[o] = MathMax(0, netBy[o] - 1);
  }, GRACE_MS);
}

/** untrack stops counting timer id (it ran or was cleared). */
function untrack(id) {
  if (mapDelete(tracked.ids, id)) tracked.n--;
}

/** forgetLoad stops counting what the load started: an action began. */
function forgetLoad() {
  if (loadOver) return;
  loadOver = true;
  netBy[LOAD] = 0;
  // Deleting while Map.prototype.forEach walks is safe; an array here
  // would go through the page's Array.prototype setters.
  mapForEach(tracked.ids, (o, id) => {
    if (o === LOAD) untrack(id);
  });
}

/** report is the answer to the relay's flush number n: what is still to come. */
export function report(n) {
  const out = { flushed: n, timers: tracked.n, due_ms: tracked.n ? MathMax(0, tracked.due - now()) : 0,
    requests: MathMax(0, netInflight - streamsOf(-1)),
    action_requests: MathMax(0, netBy[ACT] - streamsOf(ACT)) + (loadOver ? 0 : MathMax(0, netBy[LOAD] - streamsOf(LOAD))) };
  const list = netInflight ? named() : [];
  if (list.length) out.streams = list;
  return out;
}

/** trackWork starts counting: the load's end, the page's short timers, the runtime's "acting" signal. */
export function trackWork() {
  loading = doc.readyState !== 'complete';
  if (loading) {
    addListener(win, 'load', (e) => {
      if (!isTrusted(e)) return; // the page's own dispatchEvent does not end the load
      setTimeout_(() => {
        loading = false;
      }, 0); // after the page's own load handlers
    }, true);
  }
  hookTimers();
  listenActing();
}

/** hookTimers wraps setTimeout and clearTimeout to count the short timers work sets. */
function hookTimers() {
  const origSetTimeout = win.setTimeout;
  const origClearTimeout = win.clearTimeout;
  if (typeof origSetTimeout !== 'function') return;
  win.setTimeout = {
    setTimeout(fn, ms) {
      const o = typeof fn === 'function' ? origin() : 0;
      if (!o) return apply(origSetTimeout, this, arguments);
      const delay = +ms || 0;
      if (!(delay <= TRACK_MS)) return apply(origSetTimeout, this, arguments);
      const chain = !adopted;
      let id = 0;
      const args = arguments;
      args[0] = function () {
        untrack(id);
        const prev = ctx;
        if (chain) ctx = o;
        try {
          return apply(fn, this, arguments);
        } finally {
          ctx = prev;
        }
      };
      id = apply(origSetTimeout, this, args);
      mapSet(tracked.ids, id, o);
      tracked.n++;
      tracked.due = MathMax(tracked.n > 1 ? tracked.due : 0, now() + delay);
      return id;
    },
  }.setTimeout;
  win.clearTimeout = {
    clearTimeout(id) {
      if (tracked.n) untrack(id);
      return apply(origClearTimeout, this, arguments);
    },
  }.clearTimeout;
}

/**
 * listenActing hears the runtime's "acting" on/off through dialogs.js's
 * private channel: a detached element it offers on window at
 * document_start, before any page script (actions/dialogs.js). This script
 * watches the first offer without taking it and listens on that element,
 * so the signal arrives synchronously, before the action's handlers run,
 * and no page listener hears it.
 */
function listenActing() {
  const onActing = (e) => {
    try {
      const d = parseJSON(e.detail);
      arming = Boolean(d && d.on);
      if (arming) forgetLoad();
    } catch {
      arming = false;
    }
  };
  const CHANNEL_EVENT = 'gasoline:channel';
  const onChannel = (e) => {
    const node = e.relatedTarget;
    if (!node || typeof node.addEventListener !== 'function') return;
    removeListener(win, CHANNEL_EVENT, onChannel, true);
    addListener(node, 'acting', onActing);
  };
  addListener(win, CHANNEL_EVENT, onChannel, true);
}
