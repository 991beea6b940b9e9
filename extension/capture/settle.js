// Settling after an action: what the action started (a navigation, requests,
// short timers its handlers scheduled) is followed until it has landed and
// the page has been quiet for a moment, or until a cap. Pure: the clock,
// the timers and the page probe are injected (tested under node with fake
// timers); actions/dom.js feeds it chrome.webNavigation and webRequest
// events and probes the page through the capture relay.

/** SETTLE_CAP_MS is how long an action waits at most for its consequences by default. */
export const SETTLE_CAP_MS = 2000;

/**
 * QUIET_MS is how long nothing must happen before an action counts as
 * settled: long enough for the navigation a form submit starts to reach the
 * worker (measured: a few ms), short enough to add little to a click.
 */
export const QUIET_MS = 15;

/**
 * QUIET_CLEAN_MS replaces QUIET_MS once the page, asked after the action,
 * said it has run what the action queued: no short timers, no fetch/XHR
 * it started, no form or link about to navigate (issue 33: a settled click
 * in the page's own time, not after a fixed window). What the browser
 * reports on its own (a navigation a script started, a tab it opened) has
 * this long to arrive after the page's answer.
 */
export const QUIET_CLEAN_MS = 3;

const MAX_PENDING_LISTED = 3;

/** NAV_START_MS is how long a submitted form or followed link has to start its navigation. */
export const NAV_START_MS = 1000;

/** MAX_MISSES is how many times a loaded page that does not answer is asked before it is left unknown. */
const MAX_MISSES = 2;

/** REPROBE_MS is how often the page is asked again while requests it started are being read. */
const REPROBE_MS = 25;

/** MAX_STREAMS_LISTED is how many long-lived requests settle() names. */
const MAX_STREAMS_LISTED = 3;

/**
 * streamName is the short name of a long-lived request ({method, url,
 * kind}): "GET /events (sse)", the url without its origin, clipped.
 */
export function streamName(r) {
  let path = String(r.url || '');
  try {
    const u = new URL(path);
    path = u.pathname + u.search;
  } catch { /* kept as given */ }
  if (path.length > 60) path = path.slice(0, 59) + '…';
  return `${r.method || 'GET'} ${path} (${r.kind})`;
}

/**
 * Settler follows one action's consequences. Feed it events as they come
 * (navStarted, navCommitted, navReady, requestStarted, requestEnded), then
 * call settle() once the action itself has answered.
 *
 *   capMs    the longest settle() waits (0: it resolves at once)
 *   quietMs  how long nothing must happen before it is settled
 *   probe()  resolves to {timers, due_ms, action_requests, navigating, streams}:
 *            short timers the action's handlers scheduled that have not
 *            run yet, fetch/XHR they started that the page has not
 *            finished reading, whether a form it submitted or a link it followed will
 *            navigate, and the page's long-lived requests, which are not
 *            work ({method, url, kind}; or null when the page cannot say); called after the
 *            action and again when the timers are due, never while a
 *            navigation is under way
 *   now, timers  the clock and {setTimeout, clearTimeout}
 *   load     true when what is followed is a page's load (navigate), not
 *            an action: pending then names what the page started while loading
 *
 * Long-lived requests (streams: a WebSocket, an event stream, a fetch/XHR
 * the page says is a stream or a long poll) never hold it: a request fed
 * with info.stream, or then named by requestStreaming, or whose method and
 * url the page names as a stream, leaves the requests waited for.
 *
 * settle() resolves to {settled: true} or {settled: false, pending: [..]}
 * naming what was still under way when the cap passed, with streaming:
 * [short names] when long-lived requests were seen. It never rejects.
 */
export class Settler {
  constructor({ capMs = SETTLE_CAP_MS, quietMs = QUIET_MS, quietCleanMs = QUIET_CLEAN_MS, probe = async () => null, now = Date.now, timers = globalThis, load = false } = {}) {
    Object.assign(this, { capMs, quietMs, quietCleanMs, probe, now, timers, load });
    this.nav = null; // {url, committed, ready}
    this.requests = new Map(); // id -> {method, url}
    this.streams = new Map(); // "method url" -> {method, url, kind}: long-lived, not waited for
    this.tabs = new Map(); // tab id -> url: tabs the action opened, until their DOMContentLoaded
    this.opened = false; // the action opened a tab
    this.timersDue = 0; // when the page's tracked timers are due (0: none)
    this.timerCount = 0;
    this.navExpected = 0; // a form submit or link click said a navigation comes, until then
    this.pageRequests = 0; // fetch/XHR the action started that the page has not finished reading
    this.reprobe = 0; // when to ask the page again about them
    this.probeNew = false; // a navigation reached its new document, not asked yet
    this.unanswered = false; // the page did not answer the last probe and is asked again (load only)
    this.silent = false; // the page did not answer the last probe (load only)
    this.misses = 0;
    this.clean = false; // the page's last answer said the action left nothing to run, and nothing happened since
    this.last = now();
    this.wake = null;
  }

  navStarted(url) {
    this.nav = { url: url || this.nav?.url || '', committed: false, ready: false };
    this.timersDue = 0; // the old document's timers go with it
    this.timerCount = 0;
    this.#activity();
  }

  navCommitted(url) {
    if (!this.nav) this.nav = { url: '', committed: false, ready: false };
    this.nav.committed = true;
    if (url) this.nav.url = url;
    this.#activity();
  }

  /** navReady: the new document's DOMContentLoaded (or the navigation failed, or was same-document). */
  navReady() {
    if (!this.nav) this.nav = { url: '', committed: true, ready: false };
    if (!this.nav.ready) this.probeNew = true; // the new document's load-time timers and requests are asked for
    this.nav.ready = true;
    this.#activity();
  }

  requestStarted(id, info) {
    if (info?.stream) {
      this.noteStreams([{ method: info.method, url: info.url, kind: info.stream }], true);
      return;
    }
    this.requests.set(id, info);
    this.#activity();
  }

  /** requestStreaming: request id turned out long-lived (its headers ask for an event stream); it is no longer waited for. */
  requestStreaming(id, info) {
    this.requests.delete(id);
    this.noteStreams([{ method: info?.method, url: info?.url, kind: info?.stream || 'stream' }], true);
  }

  /**
   * noteStreams notes long-lived requests ({method, url, kind}); the
   * requests of the same method and url are no longer waited for. own:
   * the action started them (named first).
   */
  noteStreams(list, own = false) {
    for (const r of Array.isArray(list) ? list : []) {
      if (typeof r?.url !== 'string' || typeof r.kind !== 'string') continue;
      const key = `${r.method || 'GET'} ${r.url}`;
      let s = this.streams.get(key);
      if (!s && this.streams.size < 50) this.streams.set(key, s = { method: r.method || 'GET', url: r.url, kind: r.kind });
      if (s && own) s.own = true;
      for (const [id, q] of this.requests) if (`${q.method || 'GET'} ${q.url}` === key) this.requests.delete(id);
    }
  }

  /** streaming names the long-lived requests seen (the action's own first), at most MAX_STREAMS_LISTED and a count of the rest. */
  streaming() {
    const all = [...this.streams.values()].sort((a, b) => Boolean(b.own) - Boolean(a.own));
    const out = all.slice(0, MAX_STREAMS_LISTED).map(streamName);
    if (all.length > MAX_STREAMS_LISTED) out.push(`${all.length - MAX_STREAMS_LISTED} more`);
    return out;
  }

  requestEnded(id) {
    if (this.requests.delete(id)) this.#activity();
  }

  /** tabOpened: the action opened tab id (a target=_blank link or form, window.open), followed to its DOMContentLoaded. */
  tabOpened(id, url) {
    this.tabs.set(id, url || '');
    this.opened = true;
    this.navExpected = 0; // a form or link that targets a new tab announced its navigation here: it went there
    this.#activity();
  }

  /** tabReady: tab id's first document reached DOMContentLoaded (or failed to load, or closed). */
  tabReady(id) {
    if (this.tabs.delete(id)) this.#activity();
  }

  get navigating() {
    return Boolean(this.nav && !this.nav.ready);
  }

  #activity() {
    this.clean = false;
    this.last = this.now();
    this.wake?.();
  }

  async #probe() {
    let r = null;
    try {
      r = await this.probe();
    } catch {
      r = null;
    }
    if (this.navigating) return; // answered by a document on its way out
    // Following a load, a page that did not answer (busy: the flush waits
    // FLUSH_FRAME_MS), or whose relay answered without the page script's
    // count (page: false: it did not answer the relay within the relay's
    // wait), is asked again, MAX_MISSES times in all: nothing known is not
    // quiet. (A frozen page may never answer: it is not waited for to the
    // cap.)
    this.silent = this.load && (r === null || r?.page === false);
    this.misses = this.silent ? this.misses + 1 : 0;
    this.unanswered = this.silent && this.misses < MAX_MISSES;
    if (this.silent) {
      this.last = this.now();
      return;
    }
    if (r?.navigating && !this.nav && !this.opened) this.navExpected = this.now() + NAV_START_MS;
    if (r?.streams?.length) this.noteStreams(r.streams);
    this.pageRequests = Number.isSafeInteger(r?.action_requests) ? r.action_requests : 0;
    if (this.pageRequests) this.last = this.now();
    const n = Number.isSafeInteger(r?.timers) ? r.timers : 0;
    this.timerCount = n;
    this.timersDue = n > 0 ? this.now() + Math.max(0, Number(r.due_ms) || 0) + 5 : 0;
    // An action whose page answered that nothing it queued is left, with
    // nothing under way here either, waits only QUIET_CLEAN_MS from now.
    this.clean = !this.load && r !== null && r?.page !== false && !r?.navigating && !this.pageRequests && !n &&
      !this.nav && !this.requests.size && !this.tabs.size && !(this.navExpected > this.now());
    if (this.clean) this.last = this.now() - this.quietMs + this.quietCleanMs;
    else if (!n) this.last = Math.max(this.last, this.now() - this.quietMs + 1); // a timer just ran: stay a moment
  }

  /** pending describes what is still under way, at most a few lines. */
  pending() {
    const out = [];
    if (!this.nav && this.navExpected > this.now()) out.push('a navigation the action started (a form submitted or a link followed) that has not begun');
    if (this.navigating) out.push(`navigation to ${this.nav.url || 'a new page'} (${this.nav.committed ? 'loading' : 'not committed'})`);
    for (const r of [...this.requests.values()].slice(0, MAX_PENDING_LISTED)) out.push(`request ${r.method} ${r.url}`);
    if (this.requests.size > MAX_PENDING_LISTED) out.push(`${this.requests.size - MAX_PENDING_LISTED} more requests`);
    // after a navigation, what is pending is the new page's own work
    const loading = this.load || Boolean(this.nav?.ready);
    if (this.pageRequests && !this.requests.size) {
      out.push(`${this.pageRequests} fetch/XHR ${loading ? 'the page started while loading' : 'the action started'} (still being read)`);
    }
    if (this.silent) out.push('the page did not answer whether it is still working (busy, or frozen)');
    if (this.timerCount) out.push(`${this.timerCount} timer(s) ${loading ? 'the page set while loading or in their callbacks' : 'the action\'s handlers scheduled'}`);
    for (const [id, url] of this.tabs) out.push(`new tab ${id} loading ${url || 'a page'}`);
    return out;
  }

  async settle() {
    const r = await this.#settle();
    if (this.streams.size) r.streaming = this.streaming();
    return r;
  }

  async #settle() {
    if (this.capMs <= 0) return { settled: false, pending: [...this.pending(), 'nothing was waited for (settle_ms 0)'] };
    const start = this.now();
    const deadline = start + Math.max(0, this.capMs);
    this.last = Math.max(this.last, start);
    if (!this.navigating) await this.#probe();
    for (;;) {
      const t = this.now();
      const due = (this.timersDue && t >= this.timersDue) || ((this.pageRequests || this.unanswered) && t >= this.reprobe) || this.probeNew;
      if (due && !this.navigating && t < deadline) { // a slow probe must not keep the loop past the cap
        this.reprobe = t + REPROBE_MS;
        this.probeNew = false;
        await this.#probe();
        continue;
      }
      const expecting = !this.nav && this.navExpected > t;
      // A probe due but not made (the cap came first) leaves the page
      // busy: its timers were pending when last asked, and ending here as
      // quiet would say settled of a page that never stopped (a clock
      // whose next tick the timer woke up just after).
      const busy = expecting || this.navigating || this.requests.size > 0 || this.tabs.size > 0 || this.timersDue > t || this.pageRequests > 0 || this.unanswered || (due && !this.navigating);
      if (!busy && t - this.last >= this.quietMs) return this.silent ? { settled: false, pending: this.pending() } : { settled: true };
      if (t >= deadline) return { settled: false, pending: this.pending().length ? this.pending() : ['activity within the last ' + this.quietMs + ' ms'] };
      let until = deadline;
      if (!busy) until = Math.min(until, this.last + this.quietMs);
      if (this.timersDue && !this.navigating) until = Math.min(until, this.timersDue);
      if (expecting) until = Math.min(until, this.navExpected);
      if ((this.pageRequests || this.unanswered) && !this.navigating) until = Math.min(until, Math.max(t + 1, this.reprobe));
      await new Promise((resolve) => {
        const timer = this.timers.setTimeout(resolve, Math.max(1, until - t));
        this.wake = () => {
          this.timers.clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
  }
}
