// The worker's capture buffer: collects events, posts them to POST /events
// in batches, keeps them in chrome.storage.session until the daemon has them
// so a worker restart loses none, and counts every event it has to give up.
// No chrome.* dependency (the store, the post and the timers are injected).

import { Backoff } from '../backoff.js';
import { sizeOf } from './events.js';
import { MAX_EVENTS_BODY_BYTES, MAX_EVENTS_PER_BATCH } from '../contract.js';

/** Keys in the store: one per chunk of events, and the undelivered drop counts. */
export const CHUNK_PREFIX = 'capture:chunk:';
export const DROPPED_KEY = 'capture:dropped';
/** POST_PREFIX keys a failed post: {keys, dropped}, the chunks and drop counts it must carry again. */
export const POST_PREFIX = 'capture:post:';

/** NOT_READY_RETRY_MS is the wait after a post that could not be made (no token, 401). */
export const NOT_READY_RETRY_MS = 5000;

/**
 * BATCH_HEADROOM_BYTES is what a batch leaves of the daemon's cap on its
 * body (MAX_EVENTS_BODY_BYTES) for what sizeOf does not count: the batch's
 * envelope, its dropped counts and the sealing.
 */
export const BATCH_HEADROOM_BYTES = 124 * 1024;

/** BATCH_EVENTS is the most events one batch carries, well under the daemon's cap (MAX_EVENTS_PER_BATCH). */
export const BATCH_EVENTS = Math.min(200, MAX_EVENTS_PER_BATCH);

const SEEN_BATCHES = 1000; // content batch ids remembered to ignore a resend
const DROP_TABS = 1000; // tabs whose drop counts are kept apart; the rest count as of no known tab

/**
 * Batcher buffers capture events and delivers them to the daemon.
 *
 *   store    a chrome.storage.StorageArea (get/set/remove), normally
 *            chrome.storage.session: every chunk of events is written there
 *            before it is acknowledged, and removed once the daemon took it.
 *   post     post(body) sends {batch_id, dropped, dropped_by_tab?, events} to POST /events and resolves
 *            to the daemon's answer; it rejects with an error whose status
 *            is the HTTP status (DaemonError), or with notReady: true when
 *            there is nothing to post to (not paired).
 *   onAccepted(answer)  called with each 200 answer (config_version).
 *
 * Delivery: a batch goes when 200 events are pending, else at most 100 ms
 * after the first pending event; one post at a time. Bounds: maxEvents and
 * maxBytes over everything held; past them the oldest chunk not being sent
 * is dropped and its events are counted per tab and kind in `dropped_by_tab`
 * (`dropped` for events without a tab id), which ride on the next batch and
 * are cleared only when the daemon accepted them. A 413
 * splits the batch in two and sends each half once; a half refused again,
 * or a batch the daemon calls malformed (400), is counted as dropped.
 * Network errors, 429 and 5xx keep the events and retry with backoff.
 *
 * Every post has a batch_id, "<epoch>.<seq>": this worker's random epoch
 * (a restarted worker has a new one, and counts from 1 again) and the
 * post's number. A failed post may have been stored by the daemon (its
 * answer was lost or came too late; or Chrome sent it again on its own
 * over a new connection and the daemon refused the repeated signature), so
 * it is retried as it was: the same id, events and drop counts, ahead of
 * anything new of its tabs (a drain rushes only other tabs' events beside
 * a post under way), and the daemon, which stores an id once, answers a retry
 * of a stored batch with duplicate: true. Its chunks are not dropped by the bounds meanwhile, its
 * drop counts ride on no other post, and the store keeps it (POST_PREFIX),
 * so a restarted worker retries it with the same id too.
 *
 * A restarted worker makes a new Batcher, which first loads what the store
 * holds (restore), so events acknowledged before the restart go first.
 * Methods may be called concurrently and without awaiting.
 */
export class Batcher {
  constructor({
    store,
    post,
    onAccepted = () => {},
    log = console,
    maxEvents = 5000,
    maxBytes = 4 * 1024 * 1024,
    batchEvents = BATCH_EVENTS,
    batchBytes = MAX_EVENTS_BODY_BYTES - BATCH_HEADROOM_BYTES,
    chunkEvents = 100,
    flushMs = 100,
    sealMs = 10,
    timers = { setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (t) => clearTimeout(t) },
    backoff = new Backoff({ baseMs: 500, maxMs: 30000 }),
    clock = Date.now,
  }) {
    Object.assign(this, { store, post, onAccepted, log, maxEvents, maxBytes, batchEvents, batchBytes, chunkEvents, flushMs, sealMs, timers, backoff });
    this.chunks = []; // oldest first: {key, events, bytes, counts, batch, sending, saved}
    this.events = 0; // events held in chunks
    this.bytes = 0;
    this.dropped = {}; // kind -> count not yet accepted by the daemon, of no known tab
    this.droppedByTab = {}; // tab id -> kind -> count not yet accepted by the daemon
    this.open = null; // worker-made events not yet in a chunk: {events, bytes}
    this.sealTimer = null;
    this.flushTimer = null;
    this.retryTimer = null;
    this.flushing = false;
    this.rushing = false;
    this.seen = new Set();
    this.tag = `${clock().toString(36).padStart(9, '0')}${Math.random().toString(36).slice(2, 6)}`;
    this.seq = 0;
    this.posts = 0; // batch ids made by this worker
    this.dropsPost = null; // a post of drop counts alone without an answer: {id, dropped, saved}
    this.droppedWrite = Promise.resolve();
    this.drains = new Set(); // {mine, done, resolve, timer, lost}: drain calls waiting (lost: a chunk of theirs was dropped)
    this.ready = this.#restore();
  }

  /** pending is the number of events held (in chunks and not yet sealed). */
  get pending() {
    return this.events + (this.open?.events.length ?? 0);
  }

  /**
   * addBatch takes a batch of events from a content script and resolves once
   * it is stored (the acknowledgement): events, batch (an id; a batch seen
   * before is acknowledged again and not added), dropped (counts from the
   * page), tab (the page's tab id, which its dropped counts are of). Never
   * rejects.
   */
  async addBatch(events, { batch, dropped, tab } = {}) {
    await this.ready;
    if (batch) {
      if (this.seen.has(batch)) return;
      this.#remember(batch);
    }
    if (dropped) this.countDropped(dropped, tab);
    const saves = [];
    let cur = null;
    for (const e of events) {
      const size = sizeOf(e);
      if (!cur || cur.events.length >= this.chunkEvents || cur.bytes + size > this.batchBytes) {
        if (cur) saves.push(this.#admit(cur));
        cur = { events: [], bytes: 0, batch };
      }
      cur.events.push(e);
      cur.bytes += size;
    }
    if (cur) saves.push(this.#admit(cur));
    this.#schedule();
    await Promise.all(saves);
  }

  /**
   * add takes one event the worker made (webRequest, tabs). Events are
   * stored in chunks within sealMs, so a worker stopped in that window
   * loses them; every other event survives a restart.
   */
  add(event) {
    if (!this.open) this.open = { events: [], bytes: 0 };
    this.open.events.push(event);
    this.open.bytes += sizeOf(event);
    if (this.open.events.length >= this.chunkEvents || this.open.bytes >= this.batchBytes) this.#seal();
    else if (!this.sealTimer) this.sealTimer = this.timers.setTimeout(() => this.#seal(), this.sealMs);
  }

  /**
   * countDropped adds {kind: n} lost from tab (an integer tab id; anything
   * else: no known tab) to the counts delivered with the next batch.
   */
  countDropped(counts, tab) {
    let into = this.dropped;
    if (Number.isSafeInteger(tab)) {
      into = this.droppedByTab[tab];
      if (!into && Object.keys(this.droppedByTab).length < DROP_TABS) into = this.droppedByTab[tab] = {};
      into ??= this.dropped;
    }
    let changed = false;
    for (const [k, n] of Object.entries(counts || {})) {
      if (Number.isSafeInteger(n) && n > 0) {
        into[k] = (into[k] || 0) + n;
        changed = true;
      }
    }
    if (into !== this.dropped && !Object.keys(into).length) delete this.droppedByTab[tab];
    if (changed) {
      this.#saveDropped();
      this.#schedule();
    }
  }

  /** kick retries delivery now (after a new token, or when the daemon is back). */
  kick() {
    if (this.retryTimer) {
      this.timers.clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    this.backoff.reset();
    this.#schedule();
  }

  /**
   * drain posts now every event held at the call (worker-made events not
   * yet sealed included) and resolves to true once the daemon has accepted
   * them all, or to false when timeoutMs passes first (the daemon is slow or
   * away; the events stay and go later) or when some of them were dropped
   * to keep within the bounds. An action's result is posted after
   * it, so what the page did before the result is readable when it is.
   * With tabId it waits only for the chunks that hold that tab's events,
   * and those go first, ahead of older chunks of other tabs: a result
   * waits for its own tab's capture, not for another tab's flood.
   */
  async drain(timeoutMs, tabId) {
    await this.ready;
    this.#seal();
    await this.ready; // the seal admits its chunk a microtask later
    const mark = this.seq;
    const mine = (c) => !(c.n > mark) && (tabId === undefined || c.tabs.has(tabId));
    const done = () => !this.chunks.some(mine);
    if (done()) return true;
    return new Promise((resolve) => {
      const waiter = { mine, done, resolve };
      waiter.timer = this.timers.setTimeout(() => {
        this.drains.delete(waiter);
        resolve(false);
      }, timeoutMs);
      this.drains.add(waiter);
      if (this.flushTimer) {
        this.timers.clearTimeout(this.flushTimer);
        this.flushTimer = null;
      }
      // A drain is for a command's result, which the daemon just sent: it
      // is there now, whatever a failed post's backoff still waits out
      // (a daemon restarted while the browser stayed: the wait was up to
      // 30 s, and the first results after it lacked their capture).
      if (this.retryTimer) {
        this.timers.clearTimeout(this.retryTimer);
        this.retryTimer = null;
      }
      if (!this.flushing) this.#flush();
      else if (tabId !== undefined) this.#rush();
    });
  }

  // rush posts the chunks drains wait for beside the post under way (the
  // only case of two posts at once), so a result waits for one post of its
  // own tab's events, not for another tab's big batch ahead of it. Drop
  // counts stay with the regular flush.
  async #rush() {
    if (this.rushing) return;
    this.rushing = true;
    try {
      for (;;) {
        const take = this.#take(true);
        if (!take.length) break;
        for (const c of take) c.sending = true;
        const post = take[0].post ?? this.#newPost(false);
        const outcome = await this.#send(take.flatMap((c) => c.events), post, true);
        this.#settle(take, outcome);
        this.#drained();
        if (outcome.retryIn) break; // the regular flush retries them
      }
    } catch (err) {
      this.log.error('gasoline: capture flush failed:', err);
    } finally {
      this.rushing = false;
    }
    this.#schedule(); // what the regular flush left to the rush
  }

  // drained resolves the drains whose events have all been accepted.
  #drained() {
    for (const w of this.drains) {
      if (w.done()) {
        this.drains.delete(w);
        this.timers.clearTimeout(w.timer);
        w.resolve(!w.lost);
      }
    }
  }

  /** stats describes what is held, for tests and failure reports. */
  stats() {
    return { events: this.events, bytes: this.bytes, chunks: this.chunks.length, dropped: { ...this.dropped },
      dropped_by_tab: structuredClone(this.droppedByTab), open: this.open?.events.length ?? 0 };
  }

  // --- internals --------------------------------------------------------------------

  async #restore() {
    let all = {};
    try {
      all = (await this.store.get(null)) ?? {};
    } catch (err) {
      this.log.warn('gasoline: reading buffered capture events:', err);
    }
    const keys = Object.keys(all).filter((k) => k.startsWith(CHUNK_PREFIX)).sort();
    const restored = [];
    for (const key of keys) {
      const v = all[key];
      if (!v || !Array.isArray(v.events)) {
        this.store.remove(key).catch(() => {});
        continue;
      }
      const chunk = { key, events: v.events, bytes: 0, counts: new Map(), tabs: new Set(), batch: v.batch, sending: false, saved: Promise.resolve() };
      for (const e of chunk.events) {
        chunk.bytes += sizeOf(e);
        tally(chunk.counts, e);
        chunk.tabs.add(e?.tab_id);
      }
      if (v.batch) this.#remember(v.batch);
      restored.push(chunk);
    }
    for (const key of Object.keys(all).filter((k) => k.startsWith(POST_PREFIX))) {
      const v = all[key];
      const post = { id: key.slice(POST_PREFIX.length), dropped: v?.dropped ?? { dropped: {} }, saved: true };
      const mine = restored.filter((c) => Array.isArray(v?.keys) && v.keys.includes(c.key));
      for (const c of mine) c.post = post;
      if (!mine.length && Array.isArray(v?.keys) && !v.keys.length) this.dropsPost = post;
      else if (!mine.length) this.store.remove(key).catch(() => {});
    }
    this.chunks = [...restored, ...this.chunks];
    for (const c of restored) {
      this.events += c.events.length;
      this.bytes += c.bytes;
    }
    const d = all[DROPPED_KEY];
    if (d && typeof d === 'object') {
      // {dropped, dropped_by_tab} as posted; an older worker kept {kind: n}.
      const byTab = d.dropped_by_tab && typeof d.dropped_by_tab === 'object' ? d.dropped_by_tab : {};
      this.countDropped('dropped' in d || 'dropped_by_tab' in d ? d.dropped : d);
      for (const [tab, counts] of Object.entries(byTab)) this.countDropped(counts, Number(tab));
    }
    this.#enforceBounds();
    if (this.events || this.#anyDropped()) this.#schedule();
  }

  #remember(batch) {
    this.seen.add(batch);
    if (this.seen.size > SEEN_BATCHES) this.seen.delete(this.seen.values().next().value);
  }

  #seal() {
    if (this.sealTimer) {
      this.timers.clearTimeout(this.sealTimer);
      this.sealTimer = null;
    }
    const open = this.open;
    this.open = null;
    if (!open?.events.length) return;
    this.ready.then(() => {
      this.#admit({ events: open.events, bytes: open.bytes });
      this.#schedule();
    });
  }

  // admit appends a chunk, stores it, and enforces the bounds; it resolves
  // when the chunk is stored (or could not be).
  #admit(c) {
    const n = ++this.seq;
    const chunk = {
      n, // restored chunks have none: they are older than any drain
      key: `${CHUNK_PREFIX}${this.tag}:${String(n).padStart(9, '0')}`,
      events: c.events,
      bytes: c.bytes,
      counts: new Map(), // tab id (undefined: none) -> kind -> n
      tabs: new Set(),
      batch: c.batch,
      sending: false,
      saved: null,
    };
    for (const e of chunk.events) {
      tally(chunk.counts, e);
      chunk.tabs.add(e.tab_id);
    }
    this.chunks.push(chunk);
    this.events += chunk.events.length;
    this.bytes += chunk.bytes;
    chunk.saved = this.#save(chunk.key, chunk);
    this.#enforceBounds();
    return chunk.saved;
  }

  #save(key, chunk) {
    const value = { events: chunk.events };
    if (chunk.batch) value.batch = chunk.batch;
    return this.store.set({ [key]: value }).catch((err) => {
      this.log.warn('gasoline: storing capture events (they are kept in memory only):', err?.message || err);
    });
  }

  #enforceBounds() {
    while (this.events > this.maxEvents || this.bytes > this.maxBytes) {
      const i = this.chunks.findIndex((c) => !c.sending && !c.post);
      if (i < 0) return;
      const [c] = this.chunks.splice(i, 1);
      this.#forget(c);
      this.#countTally(c.counts);
      for (const w of this.drains) if (w.mine(c)) w.lost = true; // its events will never be accepted
    }
  }

  // forget removes a chunk from the totals and the store.
  #forget(c) {
    this.events -= c.events.length;
    this.bytes -= c.bytes;
    const key = c.key;
    c.saved.then(() => this.store.remove(key)).catch(() => {});
  }

  #saveDropped() {
    const snapshot = this.#droppedBody();
    this.droppedWrite = this.droppedWrite.then(() => (this.#anyDropped()
      ? this.store.set({ [DROPPED_KEY]: snapshot })
      : this.store.remove(DROPPED_KEY))).catch(() => {});
  }

  // anyDropped reports whether there are drop counts to deliver: held ones,
  // or those of body ({dropped, dropped_by_tab?}) when given.
  #anyDropped(body) {
    if (body) return Object.keys(body.dropped ?? {}).length > 0 || Object.keys(body.dropped_by_tab ?? {}).length > 0;
    return Object.keys(this.dropped).length > 0 || Object.keys(this.droppedByTab).length > 0;
  }

  // newPost names a new post: {id, dropped}, with the drop counts held when
  // withDrops and no post without an answer carries some already (those go
  // again with it, and counts sent twice would be counted twice).
  #newPost(withDrops) {
    const owed = this.dropsPost || this.chunks.some((c) => c.post && this.#anyDropped(c.post.dropped));
    const dropped = withDrops && !owed ? this.#droppedBody() : { dropped: {} };
    return { id: `${this.tag}.${++this.posts}`, dropped, saved: false };
  }

  // freeze marks post as sent and failed: its chunks go again with
  // it, as they are, and the store remembers it for a restarted worker.
  #freeze(post, chunks) {
    for (const c of chunks) c.post = post;
    const value = { keys: chunks.map((c) => c.key), dropped: post.dropped };
    post.saved = true;
    this.store.set({ [POST_PREFIX + post.id]: value }).catch(() => {});
  }

  // unfreeze forgets a post the daemon answered.
  #unfreeze(post) {
    if (post?.saved) this.store.remove(POST_PREFIX + post.id).catch(() => {});
  }

  // droppedBody is a copy of the drop counts as POST /events takes them:
  // {dropped, dropped_by_tab} (the latter only when a tab has some).
  #droppedBody() {
    const body = { dropped: { ...this.dropped } };
    if (Object.keys(this.droppedByTab).length) body.dropped_by_tab = structuredClone(this.droppedByTab);
    return body;
  }

  // countTally counts a tally (see tally) as dropped.
  #countTally(counts) {
    for (const [tab, kinds] of counts) this.countDropped(kinds, tab);
  }

  #schedule() {
    if (this.flushing || this.retryTimer) return;
    const waiting = this.chunks.length > 0 || this.#anyDropped();
    if (!waiting) return;
    if (this.events >= this.batchEvents) {
      if (this.flushTimer) {
        this.timers.clearTimeout(this.flushTimer);
        this.flushTimer = null;
      }
      this.#flush();
      return;
    }
    if (!this.flushTimer) {
      this.flushTimer = this.timers.setTimeout(() => {
        this.flushTimer = null;
        this.#flush();
      }, this.flushMs);
    }
  }

  // take selects the next batch: whole chunks, oldest first, at most
  // batchEvents events and batchBytes bytes, and at least one chunk. While
  // drains wait, it takes only the chunks they wait for (oldest first):
  // a result's own tab goes ahead of another tab's backlog.
  // rush: only those, and none when no drain waits.
  // A tab's events reach the daemon in order: while a post holding some of
  // them is under way (the flush's beside the rush's) or must go again,
  // that tab's newer chunks wait for it.
  #take(rush = false) {
    const take = [];
    let events = 0;
    let bytes = 0;
    let from = this.chunks.filter((c) => !c.sending);
    if (this.drains.size || rush) {
      const waited = from.filter((c) => [...this.drains].some((w) => w.mine(c)));
      if (waited.length || rush) from = waited;
    }
    if (from[0]?.post) return this.chunks.filter((c) => c.post === from[0].post && !c.sending);
    const held = new Set(); // tabs with older events under way or to go again
    for (const c of this.chunks) if (c.sending || c.post) for (const t of c.tabs) held.add(t);
    for (const c of from) {
      if (c.post) continue; // goes again with its own post
      if ([...c.tabs].some((t) => held.has(t))) {
        for (const t of c.tabs) held.add(t); // and what follows it in those tabs
        continue;
      }
      if (take.length && (events + c.events.length > this.batchEvents || bytes + c.bytes > this.batchBytes)) break;
      take.push(c);
      events += c.events.length;
      bytes += c.bytes;
    }
    return take;
  }

  async #flush() {
    if (this.flushing) return;
    this.flushing = true;
    let retryIn = 0;
    try {
      await this.ready;
      if (this.dropsPost) {
        const outcome = await this.#send([], this.dropsPost, false);
        if (outcome.retryIn) {
          retryIn = outcome.retryIn;
        } else {
          this.#unfreeze(this.dropsPost);
          this.dropsPost = null;
        }
      }
      while (!retryIn && (this.chunks.length || this.#anyDropped())) {
        const take = this.#take();
        const post = take[0]?.post ?? this.#newPost(true);
        if (!take.length && !this.#anyDropped(post.dropped)) break; // the rest is being rushed, or its drops ride on a post that goes again
        for (const c of take) c.sending = true;
        const events = take.flatMap((c) => c.events);
        const outcome = await this.#send(events, post, true);
        if (!take.length && outcome.retryIn && outcome.post) this.#freeze(this.dropsPost = post, []);
        this.#settle(take, outcome);
        if (outcome.retryIn) {
          retryIn = outcome.retryIn;
          break;
        }
        this.#drained();
        if (this.events < this.batchEvents && !this.drains.size) break; // the rest goes on the timer
      }
    } catch (err) {
      this.log.error('gasoline: capture flush failed:', err);
      retryIn = this.backoff.next();
    } finally {
      this.flushing = false;
    }
    if (retryIn) {
      this.retryTimer = this.timers.setTimeout(() => {
        this.retryTimer = null;
        this.#schedule();
      }, retryIn);
      return;
    }
    this.#schedule();
  }

  // send posts events as post ({id, dropped}: its batch id and drop counts,
  // see #newPost). It resolves to {kept, retryIn, post}: the events to
  // keep for a later try, how long to wait before it (0: no wait), and the
  // post they must go again with (when all of them went in one post that
  // failed; else they go in a new one). Events the daemon cannot
  // take are counted as dropped.
  async #send(events, post, mayHalve) {
    const { id, dropped } = post;
    const body = { batch_id: id, ...dropped, events };
    try {
      const answer = await this.post(body);
      this.backoff.reset();
      this.#delivered(dropped);
      this.#report(answer, events);
      try {
        this.onAccepted(answer ?? {});
      } catch (err) {
        this.log.warn('gasoline: capture answer handler:', err);
      }
      return { kept: [], retryIn: 0 };
    } catch (err) {
      if (err?.status === 413) {
        // Refused unread: the halves are new posts, the first with the counts.
        if (mayHalve && events.length > 1) {
          const mid = Math.ceil(events.length / 2);
          const second = events.slice(mid);
          const a = await this.#send(events.slice(0, mid), { id: `${this.tag}.${++this.posts}`, dropped: post.dropped, saved: false }, false);
          if (a.retryIn) return { kept: a.kept, retryIn: a.retryIn, post: a.post, rest: second };
          return this.#send(second, this.#newPost(false), false);
        }
        this.log.warn(`gasoline: the daemon refused ${events.length} capture event(s) as too large; counted as dropped`);
        this.#lose(events);
        return { kept: [], retryIn: 0 };
      }
      if (err?.status === 400) {
        this.log.warn(`gasoline: the daemon refused a capture batch (${err.message}${err.hint ? `; ${err.hint}` : ''}); its ${events.length} event(s) are counted as dropped`);
        this.#lose(events);
        return { kept: [], retryIn: 0 };
      }
      // Whatever the answer, the post may have been stored: without one (the
      // daemon did not answer in time, the connection broke) or with an
      // error after the browser sent the request again on its own (a
      // closed keep-alive connection; the daemon refuses the repeated
      // signature with 401). Only a post never sent is free to change.
      const again = err?.notReady ? undefined : post;
      const replayed = err?.status === 401 && err?.code === 'replayed'; // Chrome's resend: not a token problem
      if (err?.notReady || (err?.status === 401 && !replayed) || err?.status === 403 || err?.status === 404) {
        return { kept: events, retryIn: NOT_READY_RETRY_MS, post: again };
      }
      return { kept: events, retryIn: this.backoff.next(), post: again };
    }
  }

  // delivered subtracts drop counts (#droppedBody) the daemon has accepted.
  #delivered({ dropped, dropped_by_tab: byTab = {} }) {
    let changed = subtract(this.dropped, dropped);
    for (const [tab, counts] of Object.entries(byTab)) {
      const held = this.droppedByTab[tab];
      if (!held) continue;
      changed = subtract(held, counts) || changed;
      if (!Object.keys(held).length) delete this.droppedByTab[tab];
    }
    if (changed) this.#saveDropped();
  }

  #lose(events) {
    const counts = new Map();
    for (const e of events) tally(counts, e);
    this.#countTally(counts);
  }

  #report(answer, events) {
    const rejected = Array.isArray(answer?.rejected) ? answer.rejected : [];
    if (!rejected.length) return;
    const first = rejected.slice(0, 3).map((r) => `#${r.index} ${events[r.index]?.kind ?? '?'}: ${r.reason}`).join('; ');
    this.log.warn(`gasoline: the daemon rejected ${rejected.length} of ${events.length} capture event(s): ${first}`);
  }

  // settle removes the sent chunks after a #send outcome ({kept, post,
  // rest}). When nothing was delivered the chunks stay as they were, frozen
  // with the post they go again with. Else the events to keep go back to
  // the front in one chunk stored under the first sent chunk's key (so a
  // restart keeps the order), frozen with outcome.post, and the events a
  // split never sent (rest) in a chunk after it, free to go in a new post.
  #settle(take, { kept, post, rest = [] }) {
    if (!take.length) return;
    let total = 0;
    for (const c of take) {
      const i = this.chunks.indexOf(c);
      if (i >= 0) this.chunks.splice(i, 1);
      c.sending = false;
      total += c.events.length;
    }
    const before = take[0]?.post;
    post ??= kept.length === total ? before : undefined; // refused now, but an earlier try may have been stored
    if (kept.length === total) {
      this.chunks.unshift(...take);
      if (post && before !== post) this.#freeze(post, take);
      return;
    }
    this.#unfreeze(before);
    const reuse = kept.length || rest.length ? take[0] : null;
    for (const c of take) {
      this.events -= c.events.length;
      this.bytes -= c.bytes;
      if (c !== reuse) c.saved.then(() => this.store.remove(c.key)).catch(() => {});
    }
    if (!reuse) return;
    const made = [];
    for (const [events, key, frozen] of [[kept, reuse.key, post], [rest, `${reuse.key}~`, null]]) {
      if (!events.length) continue;
      const chunk = { n: reuse.n, key, events, bytes: 0, counts: new Map(), tabs: new Set(), batch: reuse.batch, sending: false, saved: null };
      for (const e of events) {
        chunk.bytes += sizeOf(e);
        tally(chunk.counts, e);
        chunk.tabs.add(e.tab_id);
      }
      chunk.saved = reuse.saved.then(() => this.#save(chunk.key, chunk));
      if (frozen) this.#freeze(frozen, [chunk]);
      made.push(chunk);
      this.events += chunk.events.length;
      this.bytes += chunk.bytes;
    }
    this.chunks.unshift(...made);
  }
}

// tally counts event e in counts, a Map of tab id (undefined when e has no
// integer tab_id) to {kind: n}.
function tally(counts, e) {
  const tab = Number.isSafeInteger(e?.tab_id) ? e.tab_id : undefined;
  let kinds = counts.get(tab);
  if (!kinds) counts.set(tab, (kinds = {}));
  kinds[e?.kind] = (kinds[e?.kind] || 0) + 1;
}

// subtract takes the counts of sent, {kind: n}, off held and deletes the
// kinds that reach 0; it reports whether anything changed.
function subtract(held, sent = {}) {
  let changed = false;
  for (const [k, n] of Object.entries(sent)) {
    if (!n) continue;
    const left = (held[k] || 0) - n;
    if (left > 0) held[k] = left;
    else delete held[k];
    changed = true;
  }
  return changed;
}
