// Long polls learned per page origin. A request a page starts while loading
// and that has no answer yet is, to the page, either a long poll (it waits
// tens of seconds for news) or an API call that answers late: the page
// script (capture/main/work.js) tells them apart only after WAIT_MS, so a page that
// holds a long poll settles WAIT_MS after its load. The worker sees every
// request end (chrome.webRequest): a fetch/XHR that waited long for its
// answer's headers, again and again, at the same method and path, is a long
// poll of that origin; the worker passes the ones it knows to the page's
// settle check, where such a request counts as a stream at once. Pure:
// tested under node.

/** WAIT_MS matches capture/main/work.js: a request without an answer this long counts as a long poll there. */
export const WAIT_MS = 1200;

/** LONG_MS is a wait no API call a page waits for lasts: one such wait is enough to know a long poll. */
export const LONG_MS = 5000;

/** KNOWN is the score at which a method and path is a known long poll. */
const KNOWN = 2;
const MAX_SCORE = 4;
const MAX_ORIGINS = 64;
const MAX_PER_ORIGIN = 16;

/** pollKey is "METHOD url" without the url's query and fragment (a long poll's cursor or cache-buster). */
export function pollKey(method, url) {
  const u = String(url || '');
  const q = u.search(/[?#]/);
  return `${String(method || 'GET').toUpperCase()} ${q < 0 ? u : u.slice(0, q)}`;
}

/**
 * LongPolls scores each (origin, method, path) by how its requests waited:
 * +1 for one that waited WAIT_MS or more without an answer (answered,
 * failed or cancelled after that), +2 for one that waited LONG_MS, -1 for
 * one answered sooner than WAIT_MS (one that failed or was cancelled
 * sooner, as its page went, says nothing). A key scoring KNOWN or more is a known
 * long poll: a late-failing API call (800 ms, say) scores nothing, and one
 * that was late once is not enough. Bounded: the least recently noted
 * origins and keys go first.
 */
export class LongPolls {
  /** changed() is called after a score changed (the worker saves them, save). */
  constructor({ changed = () => {} } = {}) {
    this.origins = new Map(); // origin -> Map(key -> score)
    this.changed = changed;
  }

  /** save is what to keep (chrome.storage.session): [[origin, [[key, score], ..]], ..]. */
  save() {
    return [...this.origins].map(([o, keys]) => [o, [...keys]]);
  }

  /** load adds what save returned (a restarted worker's), for the origins not noted since. */
  load(data) {
    if (!Array.isArray(data)) return;
    for (const entry of data.slice(-MAX_ORIGINS)) {
      const [o, keys] = Array.isArray(entry) ? entry : [];
      if (typeof o !== 'string' || this.origins.has(o) || !Array.isArray(keys)) continue;
      const m = new Map(keys.slice(-MAX_PER_ORIGIN).filter((kn) => Array.isArray(kn) && typeof kn[0] === 'string' && Number.isSafeInteger(kn[1]) && kn[1] > 0 && kn[1] <= MAX_SCORE));
      if (m.size && this.origins.size < MAX_ORIGINS) this.origins.set(o, m);
    }
  }

  /**
   * note records a request of a page of origin that waited waitedMs for its
   * answer's headers (answered), or all of its life when none came.
   */
  note(origin, method, url, waitedMs, answered = true) {
    if (typeof origin !== 'string' || !origin || !Number.isFinite(waitedMs) || (!answered && waitedMs < WAIT_MS)) return;
    const delta = waitedMs >= LONG_MS ? 2 : waitedMs >= WAIT_MS ? 1 : -1;
    let keys = this.origins.get(origin);
    if (!keys) {
      if (delta < 0) return; // nothing known to lower
      keys = new Map();
    }
    this.origins.delete(origin);
    this.origins.set(origin, keys);
    if (this.origins.size > MAX_ORIGINS) this.origins.delete(this.origins.keys().next().value);
    const key = pollKey(method, url);
    const was = keys.get(key) ?? 0;
    const score = Math.max(0, Math.min(MAX_SCORE, was + delta));
    if (score !== was) this.changed();
    keys.delete(key);
    if (score > 0) keys.set(key, score);
    if (keys.size > MAX_PER_ORIGIN) keys.delete(keys.keys().next().value);
    if (!keys.size) this.origins.delete(origin);
  }

  /** waiting notes a request still without an answer after waitedMs: a LONG_MS wait makes it known at once, once. */
  waiting(origin, method, url, waitedMs) {
    if (!(waitedMs >= LONG_MS)) return;
    const keys = this.origins.get(origin);
    if ((keys?.get(pollKey(method, url)) ?? 0) < KNOWN) this.note(origin, method, url, waitedMs, false);
  }

  /** known lists the keys (pollKey) known as long polls of origin. */
  known(origin) {
    const out = [];
    for (const [key, score] of this.origins.get(origin) ?? []) if (score >= KNOWN) out.push(key);
    return out;
  }
}
