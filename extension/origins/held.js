// What pages of origins neither local nor allowed captured, held in the
// browser (issue 29): never sent to the daemon until the user allows the
// origin (the prompt's "always", the popup, 'gasoline allow'), or "allow
// once" for an agent's read of that tab; then it goes, in order, and
// capture flows on. A user's bug on such a site before they allowed it is
// thus not lost, and no agent reads it without the user's answer.
// Bounded per origin (the newest MAX_HELD_EVENTS events, MAX_HELD_BYTES of
// JSON), in all (MAX_HELD_TOTAL_BYTES: the least recently heard from
// origins lose their oldest events first; chrome.storage.session holds
// 10 MB, which the Batcher's 4 MB shares) and in origins
// (MAX_HELD_ORIGINS, the least recently heard from go first, with their
// counts); what the byte and event bounds push out is counted per tab and
// kind and goes with the rest as the batch's drop counts. Kept in
// chrome.storage.session (HELD_PREFIX + origin), so a worker restart keeps
// it. No chrome.* dependency beyond the storage area given: node-tested.

import { CommandError } from '../runner.js';
import { originOf } from './rule.js';

/** HELD_PREFIX starts the chrome.storage.session keys of held capture, one per origin. */
export const HELD_PREFIX = 'capture:held:';

/** MAX_HELD_EVENTS is the most events held per origin (the newest stay). */
export const MAX_HELD_EVENTS = 500;

/** MAX_HELD_BYTES bounds the JSON of an origin's held events. */
export const MAX_HELD_BYTES = 1 << 20;

/** MAX_HELD_TOTAL_BYTES bounds the JSON of every origin's held events together. */
export const MAX_HELD_TOTAL_BYTES = 4 << 20;

/** MAX_HELD_ORIGINS is the most origins held at once. */
export const MAX_HELD_ORIGINS = 20;

/** MAX_REPORTED is the most tabs whose held counts are reported to the daemon. */
export const MAX_REPORTED = 50;

const SAVE_AFTER_MS = 250;

/**
 * Held keeps what pages of origins not allowed captured. deps: store
 * (chrome.storage.session), deliver(parts) hands released events on (the
 * Batcher: capture/worker.js deliverHeld), onChange(fresh) told when the
 * counts changed, fresh when a tab or origin came or went (the worker
 * tells the daemon: soon when fresh, else now and then), timers for tests.
 */
export class Held {
  constructor({ store, deliver = async () => {}, onChange = () => {}, setTimer = (f, ms) => setTimeout(f, ms) }) {
    Object.assign(this, { store, deliver, onChange, setTimer });
    this.releasing = Promise.resolve();
    this.origins = new Map(); // origin → {events: [{e, n}], bytes, dropped: {tab: {kind: n}}}; least recently held first
    this.dirty = new Set();
    this.saving = null;
    this.ready = store.get(null).then((all) => {
      for (const [k, v] of Object.entries(all ?? {})) {
        if (!k.startsWith(HELD_PREFIX) || !Array.isArray(v?.events)) continue;
        const o = k.slice(HELD_PREFIX.length);
        const held = this.origins.get(o) ?? this.#empty(o);
        held.events.unshift(...v.events.map((e) => ({ e, n: JSON.stringify(e).length })));
        held.bytes = held.events.reduce((s, x) => s + x.n, 0);
        for (const [tab, kinds] of Object.entries(v.dropped ?? {})) for (const [kind, n] of Object.entries(kinds)) add(held.dropped, tab, kind, n);
        this.#bound(o, held);
      }
      if (this.origins.size) this.onChange(true);
    }, () => {});
  }

  #empty(origin) {
    const held = { events: [], bytes: 0, dropped: {} };
    this.origins.set(origin, held);
    return held;
  }

  /** hold keeps event (one of origin's pages captured it). */
  hold(origin, event) {
    let held = this.origins.get(origin);
    if (held) this.origins.delete(origin);
    held = held ?? { events: [], bytes: 0, dropped: {} };
    this.origins.set(origin, held);
    held.tabs ??= new Set(held.events.map((x) => x.e.tab_id));
    const fresh = !held.tabs.has(event.tab_id);
    held.tabs.add(event.tab_id);
    const n = JSON.stringify(event).length;
    held.events.push({ e: event, n });
    held.bytes += n;
    this.#bound(origin, held);
    let gone = false;
    while (this.origins.size > MAX_HELD_ORIGINS) {
      const oldest = this.origins.keys().next().value;
      this.origins.delete(oldest);
      this.dirty.add(oldest);
      gone = true;
    }
    // Over the total: the least recently heard from lose their oldest first.
    let total = 0;
    for (const h of this.origins.values()) total += h.bytes;
    for (const [o, h] of this.origins) {
      if (total <= MAX_HELD_TOTAL_BYTES) break;
      let cut = 0;
      while (total > MAX_HELD_TOTAL_BYTES && cut < h.events.length) {
        const { e, n } = h.events[cut++];
        h.bytes -= n;
        total -= n;
        add(h.dropped, e.tab_id ?? -1, e.kind, 1);
      }
      h.events.splice(0, cut);
      this.dirty.add(o);
    }
    this.#changed(origin, fresh || gone);
  }

  // bound drops origin's oldest events past the bounds, counting them.
  #bound(origin, held) {
    let cut = 0;
    while (held.events.length - cut > MAX_HELD_EVENTS || (held.bytes > MAX_HELD_BYTES && held.events.length - cut > 0)) {
      const { e, n } = held.events[cut++];
      held.bytes -= n;
      add(held.dropped, e.tab_id ?? -1, e.kind, 1);
    }
    if (cut) held.events.splice(0, cut);
    this.dirty.add(origin);
  }

  #changed(origin, fresh) {
    this.dirty.add(origin);
    this.onChange(fresh);
    if (this.saving) return;
    this.saving = new Promise((resolve) => this.setTimer(resolve, SAVE_AFTER_MS)).then(() => this.#save());
  }

  async #save() {
    this.saving = null;
    const dirty = [...this.dirty];
    this.dirty.clear();
    const set = {};
    const gone = [];
    for (const o of dirty) {
      const held = this.origins.get(o);
      if (held) set[HELD_PREFIX + o] = { events: held.events.map((x) => x.e), dropped: held.dropped };
      else gone.push(HELD_PREFIX + o);
    }
    await Promise.all([
      Object.keys(set).length ? this.store.set(set) : null,
      gone.length ? this.store.remove(gone) : null,
    ]).catch(() => {});
  }

  /** origins lists the origins with something held. */
  list() {
    return [...this.origins.keys()];
  }

  /**
   * release delivers everything held of origin (in the order captured, per
   * tab: [{tab, events, dropped}]) and forgets it; it resolves to what it
   * delivered once deliver took it, and after every earlier release did:
   * a second release of an origin finds nothing, and resolves once the
   * first one's events are delivered.
   */
  release(origin) {
    const run = this.releasing.then(() => this.#take(origin)).then(async (parts) => {
      if (parts.length) await this.deliver(parts);
      return parts;
    });
    this.releasing = run.catch(() => {});
    return run;
  }

  async #take(origin) {
    await this.ready;
    const held = this.origins.get(origin);
    if (!held) return [];
    this.origins.delete(origin);
    this.dirty.delete(origin);
    await this.store.remove(HELD_PREFIX + origin).catch(() => {});
    const byTab = new Map();
    const of = (tab) => {
      if (!byTab.has(tab)) byTab.set(tab, { tab, events: [], dropped: {} });
      return byTab.get(tab);
    };
    for (const { e } of held.events) of(e.tab_id ?? -1).events.push(e);
    for (const [tab, kinds] of Object.entries(held.dropped)) of(Number(tab)).dropped = { ...kinds };
    this.onChange(true);
    return [...byTab.values()];
  }

  /**
   * counts is what is held, per tab: [{tab_id, origin, events, dropped}],
   * the tabs with most events first, at most MAX_REPORTED (the daemon's
   * apitype.HeldCapture).
   */
  counts() {
    const out = new Map();
    for (const [origin, held] of this.origins) {
      const of = (tab) => {
        const k = `${tab} ${origin}`;
        if (!out.has(k)) out.set(k, { tab_id: Number(tab), origin, events: 0, dropped: 0 });
        return out.get(k);
      };
      for (const { e } of held.events) of(e.tab_id ?? -1).events++;
      for (const [tab, kinds] of Object.entries(held.dropped)) of(tab).dropped += Object.values(kinds).reduce((s, n) => s + n, 0);
    }
    return [...out.values()].sort((a, b) => b.events - a.events).slice(0, MAX_REPORTED);
  }
}

let holding = null; // {held, tabUrl, tell}: startHolding's

/**
 * startHolding gives releaseCapture what it needs: held (a Held),
 * tabUrl(id), and tell() which resolves once the daemon has the counts as
 * they are now (poller.tell).
 */
export function startHolding(h) {
  holding = h;
}

/**
 * releaseCapture is the release_capture command: the daemon sends it when
 * an agent reads capture of a tab whose origin's capture is held. The
 * origin rule's gate (rule.js) asks the user first, so it runs only once
 * they allowed it (once or always); it hands what is held of the tab's
 * origin to the Batcher, tells the daemon so, and the runner's flush (capture/worker.js
 * flushAfter) delivers it to the daemon before the result is posted.
 */
export async function releaseCapture(params) {
  if (!holding) throw new CommandError('capture is not running in the extension yet; retry in a moment');
  const tab = Number(params.tab_id);
  const origin = originOf(await Promise.resolve().then(() => holding.tabUrl(tab)).catch(() => ''));
  const parts = origin ? await holding.held.release(origin) : [];
  // The daemon learns that nothing is held there any more before the
  // result: the agent's next read must not ask the user again.
  if (parts.length) await Promise.resolve().then(() => holding.tell?.()).catch(() => {});
  // When nothing was held of origin any more, by the extension's clock: a
  // report of the counts read before that is stale (capture.Store.DropHeld).
  const releasedAt = Date.now();
  let events = 0;
  let dropped = 0;
  for (const p of parts) {
    events += p.events.length;
    for (const n of Object.values(p.dropped)) dropped += n;
  }
  // No tab_id: reading a tab's capture does not make it the agent's (the
  // daemon counts a result's tab_id as a tab its client acted in).
  return { origin: origin ?? '', released: events, released_at: releasedAt, ...(dropped ? { dropped } : {}) };
}

function add(dropped, tab, kind, n) {
  const t = (dropped[tab] ??= {});
  t[kind] = (t[kind] || 0) + n;
}

