// Unit tests of the worker's capture Batcher: batching rules, bounds and
// drop counting, 413/400/retry handling, and persistence across a worker
// restart, with a fake chrome.storage area, fake timers and a fake daemon.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Batcher, BATCH_HEADROOM_BYTES, CHUNK_PREFIX, DROPPED_KEY, NOT_READY_RETRY_MS } from '../capture/batcher.js';
import { MAX_EVENTS_BODY_BYTES, MAX_EVENTS_PER_BATCH } from '../contract.js';
import { NetworkError, SignatureError } from '../daemon.js';

const settle = () => new Promise((r) => setImmediate(r));

class FakeTimers {
  constructor() {
    this.now = 0;
    this.queue = [];
  }

  setTimeout(f, ms) {
    const t = { at: this.now + ms, f };
    this.queue.push(t);
    return t;
  }

  clearTimeout(t) {
    this.queue = this.queue.filter((x) => x !== t);
  }

  /** advance runs the timers due within ms, letting promises settle after each. */
  async advance(ms) {
    const end = this.now + ms;
    await settle();
    for (;;) {
      this.queue.sort((a, b) => a.at - b.at);
      const t = this.queue[0];
      if (!t || t.at > end) break;
      this.queue.shift();
      this.now = t.at;
      t.f();
      await settle();
      await settle();
    }
    this.now = end;
    await settle();
  }
}

/** FakeStore behaves like chrome.storage.session: async get/set/remove of JSON values. */
class FakeStore {
  constructor() {
    this.data = new Map();
    this.failSet = false;
  }

  async get(keys) {
    await null;
    const out = {};
    for (const [k, v] of this.data) if (keys === null || keys === k) out[k] = JSON.parse(v);
    return out;
  }

  async set(items) {
    await null;
    if (this.failSet) throw new Error('QUOTA_BYTES quota exceeded');
    for (const [k, v] of Object.entries(items)) this.data.set(k, JSON.stringify(v));
  }

  async remove(key) {
    await null;
    for (const k of [].concat(key)) this.data.delete(k);
  }

  chunkEvents() {
    return [...this.data.keys()].filter((k) => k.startsWith(CHUNK_PREFIX)).sort()
      .flatMap((k) => JSON.parse(this.data.get(k)).events);
  }
}

/** FakeDaemon records posted batches; answer(body) may throw to refuse one. */
class FakeDaemon {
  constructor() {
    this.posts = []; // bodies without their batch_id
    this.ids = []; // the batch_id of each post
    this.answer = () => ({ accepted: 0, rejected: [] });
  }

  post = async (body) => {
    const { batch_id: id, ...rest } = JSON.parse(JSON.stringify(body));
    this.ids.push(id);
    this.posts.push(rest);
    return this.answer(body);
  };

  get events() {
    return this.posts.flatMap((p) => p.events);
  }

  dropped() {
    const total = {};
    for (const p of this.posts) for (const [k, n] of Object.entries(p.dropped)) total[k] = (total[k] || 0) + n;
    return total;
  }
}

function httpError(status, message = `HTTP ${status}`) {
  return Object.assign(new Error(message), { status });
}

const log = { warn() {}, error() {} };
const ev = (n, kind = 'log', extra = {}) => ({ kind, ts: n, tab_id: 1, frame_id: 0, page_url: 'u', level: 'log', message: `m${n}`, ...extra });
const range = (from, to, kind) => Array.from({ length: to - from }, (_, i) => ev(from + i, kind));

function setup(opts = {}) {
  const timers = new FakeTimers();
  const store = opts.store ?? new FakeStore();
  const daemon = opts.daemon ?? new FakeDaemon();
  const b = new Batcher({ store, post: daemon.post, log, timers, clock: () => 1000 + timers.now, ...opts.batcher });
  return { timers, store, daemon, b };
}

test('a batch the Batcher makes by default fits the daemon caps on POST /events (contract.js, from apitype)', () => {
  const { b } = setup();
  assert.ok(b.batchBytes + BATCH_HEADROOM_BYTES <= MAX_EVENTS_BODY_BYTES, `${b.batchBytes} + headroom over ${MAX_EVENTS_BODY_BYTES}`);
  assert.ok(b.batchBytes >= MAX_EVENTS_BODY_BYTES / 2, 'the headroom leaves most of the cap to the events');
  assert.ok(b.batchEvents <= MAX_EVENTS_PER_BATCH);
});

test('a few events go after 100 ms, in one batch', async () => {
  const { timers, daemon, b } = setup();
  await b.addBatch(range(0, 3));
  await timers.advance(99);
  assert.equal(daemon.posts.length, 0);
  await timers.advance(1);
  assert.equal(daemon.posts.length, 1);
  assert.deepEqual(daemon.posts[0], { dropped: {}, events: range(0, 3) });
});

test('200 pending events go at once, 200 per batch, in order', async () => {
  const { timers, daemon, b } = setup();
  await b.addBatch(range(0, 100), { batch: 'a' });
  await b.addBatch(range(100, 200), { batch: 'b' });
  await b.addBatch(range(200, 250), { batch: 'c' });
  await timers.advance(0);
  assert.equal(daemon.posts.length, 1, 'the first 200 went without waiting');
  assert.equal(daemon.posts[0].events.length, 200);
  await timers.advance(100);
  assert.equal(daemon.posts.length, 2);
  assert.deepEqual(daemon.events.map((e) => e.ts), range(0, 250).map((e) => e.ts));
  assert.equal(b.pending, 0);
});

test('acknowledged events are in the store until the daemon has them', async () => {
  const { timers, store, daemon, b } = setup();
  await b.addBatch(range(0, 5), { batch: 'x' });
  assert.equal(store.chunkEvents().length, 5, 'stored before addBatch resolved');
  daemon.answer = () => {
    throw httpError(503);
  };
  await timers.advance(100);
  assert.equal(store.chunkEvents().length, 5, 'kept after a failed post');
  daemon.answer = () => ({ accepted: 5 });
  await timers.advance(60000);
  assert.equal(store.chunkEvents().length, 0, 'removed once accepted');
  assert.equal(daemon.events.length, 10, 'posted twice: once refused, once accepted');
});

test('a new worker restores the stored events and sends them first', async () => {
  const store = new FakeStore();
  const down = new FakeDaemon();
  down.answer = () => {
    throw Object.assign(new Error('cannot reach the daemon'), { name: 'NetworkError' });
  };
  const first = setup({ store, daemon: down });
  await first.b.addBatch(range(0, 150), { batch: 'p:1' });
  first.b.add(ev(150, 'network'));
  await first.timers.advance(20); // sealed and stored
  first.b.countDropped({ action: 2 });
  await first.timers.advance(200);
  assert.equal(store.chunkEvents().length, 151);
  // The worker stops; a new one starts on the same storage.
  const second = setup({ store });
  await second.b.ready;
  await second.b.addBatch([ev(151)], { batch: 'p:1' }); // a resent batch: ignored
  await second.b.addBatch([ev(152)], { batch: 'p:2' });
  await second.timers.advance(100);
  await second.timers.advance(100);
  assert.deepEqual(second.daemon.events.map((e) => e.ts), range(0, 151).map((e) => e.ts).concat([152]));
  assert.deepEqual(second.daemon.dropped(), { action: 2 });
  assert.equal(store.data.size, 0, 'everything delivered: nothing left in the store');
});

test('bounds drop the oldest chunks and count them per tab and kind', async () => {
  const { timers, daemon, b } = setup({ batcher: { maxEvents: 10, chunkEvents: 5 } });
  daemon.answer = () => {
    throw httpError(503);
  };
  await b.addBatch(range(0, 5, 'log'));
  await b.addBatch(range(5, 10, 'network'));
  await b.addBatch(range(10, 15, 'action'));
  assert.deepEqual(b.stats().dropped_by_tab, { 1: { log: 5 } });
  assert.deepEqual(b.stats().dropped, {}, 'every event named its tab');
  assert.equal(b.pending, 10);
  daemon.answer = () => ({ accepted: 10 });
  await timers.advance(60000);
  const accepted = daemon.posts.at(-1);
  assert.deepEqual(accepted.dropped_by_tab, { 1: { log: 5 } }, 'the count rides on the batch');
  assert.deepEqual(accepted.events.map((e) => e.ts), range(5, 15).map((e) => e.ts));
  assert.deepEqual(b.stats().dropped_by_tab, {}, 'cleared once the daemon accepted it');
});

test('byte bound', async () => {
  const { b } = setup({ batcher: { maxBytes: 3000, chunkEvents: 1 } });
  const big = (n) => ev(n, 'network', { message: 'x'.repeat(1000) });
  await b.addBatch([big(1), big(2), big(3), big(4)]);
  assert.ok(b.stats().bytes <= 3000);
  assert.deepEqual(b.stats().dropped_by_tab, { 1: { network: 2 } });
});

test('while an unproven program holds the port, events wait, bounded, and go to the daemon once it is back', async () => {
  // daemon.js refuses to send a body to a port whose last answer was not
  // signed: the post fails with SignatureError and nothing leaves.
  const { timers, daemon, b } = setup({ batcher: { maxEvents: 10, chunkEvents: 5 } });
  daemon.answer = () => {
    throw new SignatureError('not sending POST /events: the program on 127.0.0.1:7890 did not prove it is the daemon');
  };
  for (let i = 0; i < 6; i++) await b.addBatch(range(5 * i, 5 * i + 5, 'log'));
  await timers.advance(60000);
  assert.equal(b.pending, 10, 'the newest events wait');
  assert.deepEqual(b.stats().dropped_by_tab, { 1: { log: 20 } }, 'the oldest are dropped and counted');
  daemon.answer = () => ({ accepted: 10 });
  await timers.advance(60000);
  const accepted = daemon.posts.at(-1);
  assert.deepEqual(accepted.events.map((e) => e.ts), range(20, 30).map((e) => e.ts));
  assert.deepEqual(accepted.dropped_by_tab, { 1: { log: 20 } });
  assert.equal(b.pending, 0);
});

test('drop counts are not cleared by a failed post', async () => {
  const { timers, daemon, b } = setup();
  b.countDropped({ vital: 3 });
  daemon.answer = () => {
    throw httpError(500);
  };
  await timers.advance(100);
  assert.deepEqual(b.stats().dropped, { vital: 3 });
  b.countDropped({ vital: 1 });
  daemon.answer = () => ({ accepted: 0 });
  await timers.advance(60000);
  // The failed post goes again as it was (it may have been stored), the new count after it.
  assert.deepEqual(daemon.posts.slice(-2), [{ dropped: { vital: 3 }, events: [] }, { dropped: { vital: 1 }, events: [] }]);
  assert.equal(daemon.ids.at(-2), daemon.ids[0]);
  assert.deepEqual(b.stats().dropped, {});
});

test('413 splits the batch once; a half refused again is counted as dropped', async () => {
  const { timers, daemon, b } = setup();
  daemon.answer = (body) => {
    if (body.events.length > 2 || body.events.some((e) => e.message === 'huge')) throw httpError(413);
    return { accepted: body.events.length };
  };
  await b.addBatch([ev(1), ev(2), ev(3, 'log', { message: 'huge' }), ev(4)]);
  await timers.advance(100);
  assert.deepEqual(daemon.posts.map((p) => p.events.length), [4, 2, 2]);
  assert.deepEqual(daemon.events.slice(4).map((e) => e.ts), [1, 2, 3, 4]);
  assert.equal(b.pending, 0);
  assert.deepEqual(b.stats().dropped_by_tab, { 1: { log: 2 } }, 'the refused half counts as dropped');
  await timers.advance(100);
  assert.deepEqual(daemon.posts.at(-1), { dropped: {}, dropped_by_tab: { 1: { log: 2 } }, events: [] });
});

test('a malformed batch (400) is counted as dropped, not retried', async () => {
  const { timers, daemon, b } = setup();
  daemon.answer = () => {
    throw httpError(400, 'not a batch');
  };
  await b.addBatch([ev(1), ev(2, 'action')]);
  await timers.advance(100);
  assert.equal(b.pending, 0);
  assert.deepEqual(b.stats().dropped_by_tab, { 1: { log: 1, action: 1 } });
});

test('not paired: events are kept and retried; kick retries at once', async () => {
  const { timers, daemon, b } = setup();
  let paired = false;
  daemon.answer = () => {
    if (!paired) throw Object.assign(new Error('not paired'), { notReady: true });
    return { accepted: 1 };
  };
  await b.addBatch([ev(1)]);
  await timers.advance(100);
  assert.equal(daemon.posts.length, 1);
  await timers.advance(NOT_READY_RETRY_MS - 1);
  assert.equal(daemon.posts.length, 1);
  paired = true;
  b.kick();
  await timers.advance(100);
  assert.equal(daemon.posts.length, 2);
  assert.equal(b.pending, 0);
});

test('worker-made events are sealed into stored chunks within sealMs', async () => {
  const { timers, store, b } = setup({ daemon: Object.assign(new FakeDaemon(), { answer: () => { throw httpError(503); } }) });
  b.add(ev(1, 'network'));
  b.add(ev(2, 'tab'));
  assert.equal(store.chunkEvents().length, 0);
  await timers.advance(10);
  assert.deepEqual(store.chunkEvents().map((e) => e.kind), ['network', 'tab']);
});

test('a storage failure keeps the events in memory and still delivers them', async () => {
  const store = new FakeStore();
  store.failSet = true;
  const { timers, daemon, b } = setup({ store });
  await b.addBatch([ev(1)]);
  await timers.advance(100);
  assert.equal(daemon.events.length, 1);
});

test('onAccepted sees each answer; rejected events are reported, not retried', async () => {
  const seen = [];
  const warnings = [];
  const { timers, daemon, b } = setup({ batcher: { onAccepted: (a) => seen.push(a.config_version), log: { warn: (...a) => warnings.push(a.join(' ')), error() {} } } });
  daemon.answer = () => ({ accepted: 1, rejected: [{ index: 1, reason: 'message too long' }], config_version: 3 });
  await b.addBatch([ev(1), ev(2)]);
  await timers.advance(100);
  assert.deepEqual(seen, [3]);
  assert.match(warnings.join('\n'), /rejected 1 of 2 .*#1 log: message too long/);
  assert.equal(b.pending, 0);
});

test('stored drop counts survive a restart', async () => {
  const store = new FakeStore();
  const first = setup({ store, daemon: Object.assign(new FakeDaemon(), { answer: () => { throw httpError(503); } }) });
  first.b.countDropped({ log: 4 });
  await first.timers.advance(1);
  first.b.countDropped({ network: 2 }, 7);
  await first.timers.advance(1);
  assert.deepEqual(JSON.parse(store.data.get(DROPPED_KEY)), { dropped: { log: 4 }, dropped_by_tab: { 7: { network: 2 } } });
  const second = setup({ store });
  await second.b.ready;
  await second.timers.advance(100);
  assert.deepEqual(second.daemon.posts, [{ dropped: { log: 4 }, dropped_by_tab: { 7: { network: 2 } }, events: [] }]);
  await settle();
  assert.equal(store.data.has(DROPPED_KEY), false);
});

test('drop counts an older worker stored ({kind: n}) are restored as of no known tab', async () => {
  const store = new FakeStore();
  store.data.set(DROPPED_KEY, JSON.stringify({ log: 3 }));
  const { timers, daemon, b } = setup({ store });
  await b.ready;
  await timers.advance(100);
  assert.deepEqual(daemon.posts, [{ dropped: { log: 3 }, events: [] }]);
});

test('drops are counted for their tab: a flood in one tab is not reported as another\'s', async () => {
  const { timers, daemon, b } = setup({ batcher: { maxEvents: 10, chunkEvents: 5 } });
  daemon.answer = () => {
    throw httpError(503);
  };
  const tab = (t, from, to) => range(from, to).map((e) => ({ ...e, tab_id: t }));
  await b.addBatch(tab(2, 0, 5), { dropped: { log: 7 }, tab: 2 }); // the noisy page lost 7 itself
  await b.addBatch(tab(1, 5, 10));
  await b.addBatch(tab(2, 10, 15));
  await b.addBatch(tab(2, 15, 20)); // the bounds drop tab 2's then tab 1's oldest chunk
  b.add({ ...ev(20), tab_id: undefined }); // a worker event of no tab
  b.countDropped({ network: 1 }, 'not a tab');
  assert.deepEqual(b.stats().dropped_by_tab, { 1: { log: 5 }, 2: { log: 12 } });
  assert.deepEqual(b.stats().dropped, { network: 1 });
  daemon.answer = (body) => ({ accepted: body.events.length });
  await timers.advance(60000);
  // Each failed post carried the counts too; the daemon took them once (the
  // last). The worker's event, once sealed, pushed out tab 2's next chunk.
  const last = daemon.posts.findLast((p) => p.dropped_by_tab);
  assert.deepEqual(last.dropped_by_tab, { 1: { log: 5 }, 2: { log: 17 } });
  assert.deepEqual(last.dropped, { network: 1 });
  assert.deepEqual(b.stats().dropped_by_tab, {});
  assert.deepEqual(b.stats().dropped, {});
});

test('drain posts what is held at once and resolves when the daemon took it', async () => {
  const { timers, daemon, b } = setup();
  await b.addBatch(range(0, 3));
  b.add(ev(3, 'network', { request_id: 'r', method: 'GET', url: 'u', status: 200, resource_type: 'xhr', source: 'browser' }));
  const drained = b.drain(500);
  await timers.advance(0); // no 100 ms wait, no 10 ms seal
  assert.equal(await drained, true);
  assert.deepEqual(daemon.events.map((e) => e.ts), [0, 1, 2, 3]);
  assert.equal(b.pending, 0);
  assert.equal(await b.drain(500), true, 'nothing held: at once');
});

test('drain does not wait out the backoff of a failed post: the command it is for came from a daemon that is there', async () => {
  const { timers, daemon, b } = setup();
  daemon.answer = () => {
    throw new NetworkError('cannot reach the daemon');
  };
  await b.addBatch(range(0, 2));
  await timers.advance(200); // the post fails; the next waits its backoff
  const failed = daemon.posts.length;
  assert.ok(failed >= 1 && b.pending === 2);
  daemon.answer = (body) => ({ accepted: body.events.length }); // a new daemon, up again
  const drained = b.drain(1000);
  await timers.advance(0);
  assert.equal(await drained, true, 'delivered at once, not after the backoff');
  assert.equal(b.pending, 0);
});

test('drain resolves false after its timeout when the daemon does not answer, and the events stay', async () => {
  const daemon = new FakeDaemon();
  let release;
  daemon.post = (body) => new Promise((resolve) => {
    release = () => resolve({ accepted: body.events.length, rejected: [] });
  });
  const { timers, b } = setup({ daemon });
  await b.addBatch(range(0, 2));
  const drained = b.drain(50);
  await timers.advance(50);
  assert.equal(await drained, false);
  assert.equal(b.pending, 2);
  release();
  await timers.advance(0);
  assert.equal(b.pending, 0);
});

test('drain waits for every chunk held at the call, across batches', async () => {
  const { timers, daemon, b } = setup({ batcher: { batchEvents: 2, chunkEvents: 2 } });
  await b.addBatch(range(0, 5));
  const drained = b.drain(1000);
  await timers.advance(0);
  assert.equal(await drained, true);
  assert.equal(daemon.events.length, 5);
  assert.ok(daemon.posts.length >= 3);
});

test('drain for one tab waits for that tab only, and its chunks go ahead of another tab\'s backlog', async () => {
  const daemon = new FakeDaemon();
  const post = daemon.post;
  let hold = null; // while set, posts of the noisy tab wait for it
  daemon.post = async (body) => {
    if (hold && body.events.some((e) => e.tab_id === 2)) await hold;
    return post(body);
  };
  const { timers, b } = setup({ daemon, batcher: { batchEvents: 10, chunkEvents: 10 } });
  let release;
  hold = new Promise((r) => { release = r; });
  await b.addBatch(Array.from({ length: 50 }, (_, i) => ev(i, 'log', { tab_id: 2 }))); // the flood's backlog: 5 posts
  await timers.advance(0);
  await b.addBatch([ev(100, 'log', { tab_id: 1 }), ev(101, 'log', { tab_id: 1 })]);
  const drained = b.drain(1000, 1);
  await timers.advance(0);
  assert.equal(await drained, true, 'the quiet tab\'s events are in while the flood\'s first post still waits');
  assert.deepEqual(daemon.events.map((e) => e.ts), [100, 101], 'only the quiet tab\'s chunk went');
  release();
  hold = null;
  await timers.advance(500);
  assert.equal(daemon.events.length, 52, 'the backlog follows');
  assert.equal(b.pending, 0);
});

test('drain resolves false when a chunk it waits for is dropped by the bounds', async () => {
  const { timers, daemon, b } = setup({ batcher: { maxEvents: 10, chunkEvents: 5 } });
  daemon.answer = () => {
    throw Object.assign(new Error('not paired'), { notReady: true }); // never sent: its chunks may be dropped
  };
  await b.addBatch(range(0, 5, 'log'));
  const drained = b.drain(60000);
  await timers.advance(0);
  await b.addBatch(range(5, 10, 'network'));
  await b.addBatch(range(10, 15, 'action'));
  assert.deepEqual(b.stats().dropped_by_tab, { 1: { log: 5 } }, 'the waited chunk was evicted');
  daemon.answer = (body) => ({ accepted: body.events.length });
  await timers.advance(60000);
  assert.equal(await drained, false, 'its events were dropped, not accepted');
  assert.equal(await b.drain(1000), true, 'a later drain over what is left is complete');
});

const noAnswer = () => {
  throw Object.assign(new Error('daemon did not answer POST /events within 10000 ms'), { name: 'NetworkError' });
};

test('a post without an answer goes again with the same batch_id, events and drops; what came meanwhile goes in a new post', async () => {
  const { timers, daemon, b } = setup();
  await b.addBatch(range(0, 3), { batch: 'p:1' });
  b.countDropped({ log: 2 }, 1);
  daemon.answer = noAnswer; // the daemon may have stored it: the answer is lost
  await timers.advance(100);
  assert.equal(daemon.posts.length, 1);
  await b.addBatch(range(3, 5), { batch: 'p:2' });
  b.countDropped({ error: 1 });
  daemon.answer = (body) => ({ accepted: 0, duplicate: true, events: body.events.length });
  await timers.advance(60000);
  assert.equal(daemon.ids[1], daemon.ids[0], 'the retry has the first post\'s id');
  assert.deepEqual(daemon.posts[1], daemon.posts[0], 'and its body');
  assert.deepEqual(daemon.posts[0].dropped_by_tab, { 1: { log: 2 } });
  assert.deepEqual(daemon.posts.slice(2).flatMap((p) => p.events).map((e) => e.ts), [3, 4], 'new events in new posts');
  assert.ok(daemon.ids.slice(2).every((id) => id !== daemon.ids[0]), `new ids: ${daemon.ids}`);
  assert.deepEqual(daemon.posts.slice(2).map((p) => p.dropped), [{ error: 1 }], 'new drops ride on the new post only');
  assert.deepEqual(b.stats().dropped_by_tab, {});
  assert.equal(b.stats().events, 0);
  assert.match(daemon.ids[0], /^[0-9a-z]+\.1$/);
});

test('a drain does not rush a tab\'s newer events beside a post of its older ones: the retry goes ahead of anything new', async () => {
  const daemon = new FakeDaemon();
  const post = daemon.post;
  const arrived = []; // the events' ts of each post, in the order the daemon got them
  let hold = null; // while set, posts wait for it before answering
  daemon.post = async (body) => {
    arrived.push(body.events.map((e) => e.ts));
    if (hold) await hold;
    return post(body);
  };
  const { timers, b } = setup({ daemon });
  await b.addBatch(range(0, 3)); // tab 1
  daemon.answer = noAnswer; // the daemon may have stored it: the answer is lost
  await timers.advance(100);
  assert.deepEqual(arrived, [[0, 1, 2]]);
  daemon.answer = (body) => ({ accepted: body.events.length });
  let release;
  hold = new Promise((r) => { release = r; });
  await timers.advance(60000); // the retry is posted and waits for its answer
  assert.deepEqual(arrived, [[0, 1, 2], [0, 1, 2]]);

  await b.addBatch(range(3, 5)); // tab 1, newer
  await b.addBatch([ev(100, 'log', { tab_id: 2 })]);
  const mine = b.drain(60000, 1);
  const other = b.drain(60000, 2);
  await timers.advance(0);
  assert.deepEqual(arrived.slice(2), [[100]], 'another tab is rushed; tab 1\'s newer events wait for its retry');
  hold = null;
  release();
  assert.equal(await mine, true);
  assert.equal(await other, true);
  assert.deepEqual(arrived.slice(3), [[3, 4]], 'then tab 1\'s newer events go');
  assert.deepEqual(arrived.flat().filter((ts) => ts < 100), [0, 1, 2, 0, 1, 2, 3, 4], 'tab 1\'s posts in order, the retry as it was');
});

test('a drain does not rush a tab\'s newer events beside the first post of its older ones either', async () => {
  const daemon = new FakeDaemon();
  const post = daemon.post;
  const arrived = [];
  let hold = null;
  daemon.post = async (body) => {
    arrived.push(body.events.map((e) => e.ts));
    if (hold) await hold;
    return post(body);
  };
  const { timers, b } = setup({ daemon });
  let release;
  hold = new Promise((r) => { release = r; });
  await b.addBatch(range(0, 3));
  await timers.advance(100); // posted; its answer is pending (and may be lost: then it goes again)
  await b.addBatch(range(3, 5));
  const drained = b.drain(60000, 1);
  await timers.advance(0);
  assert.deepEqual(arrived, [[0, 1, 2]], 'nothing of tab 1 goes beside it');
  hold = null;
  release();
  assert.equal(await drained, true);
  assert.deepEqual(arrived, [[0, 1, 2], [3, 4]]);
});

test('a post answered with an error goes again as it was: Chrome may have sent it twice, and the first may be stored', async () => {
  for (const status of [401, 503]) {
    const { timers, daemon, b } = setup();
    await b.addBatch(range(0, 2));
    daemon.answer = () => {
      throw httpError(status);
    };
    await timers.advance(100);
    await b.addBatch(range(2, 3));
    daemon.answer = () => ({ accepted: 1 });
    await timers.advance(60000);
    assert.deepEqual(daemon.ids.slice(0, 2), [daemon.ids[0], daemon.ids[0]], `${status}: the retry has the first post's id`);
    assert.deepEqual(daemon.posts[1], daemon.posts[0], `${status}: and its body`);
    assert.deepEqual(daemon.posts.slice(2).flatMap((p) => p.events).map((e) => e.ts), [2], `${status}: the new event in a new post`);
  }
});

test('a post that could not be made (not paired) is free to take newer events', async () => {
  const { timers, daemon, b } = setup();
  await b.addBatch(range(0, 2));
  daemon.answer = () => {
    throw Object.assign(new Error('not paired'), { notReady: true });
  };
  await timers.advance(100);
  await b.addBatch(range(2, 3));
  daemon.answer = () => ({ accepted: 3 });
  await timers.advance(NOT_READY_RETRY_MS + 200);
  assert.deepEqual(daemon.posts.at(-1).events.map((e) => e.ts), [0, 1, 2]);
  assert.notEqual(daemon.ids.at(-1), daemon.ids[0]);
});

test('the chunks of a post without an answer are not dropped by the bounds', async () => {
  const { timers, daemon, b } = setup({ batcher: { maxEvents: 10, chunkEvents: 5 } });
  daemon.answer = noAnswer;
  await b.addBatch(range(0, 5, 'log'));
  await timers.advance(100);
  await b.addBatch(range(5, 10, 'network'));
  await b.addBatch(range(10, 15, 'action'));
  assert.deepEqual(b.stats().dropped_by_tab, { 1: { network: 5 } }, 'the newer chunk went, not the one posted');
});

test('a restarted worker posts a stored post without an answer with its id, and its own posts in a new epoch from 1', async () => {
  const store = new FakeStore();
  const first = setup({ store });
  first.daemon.answer = noAnswer;
  await first.b.addBatch(range(0, 3), { batch: 'p:1' });
  first.b.countDropped({ vital: 1 });
  await first.timers.advance(100);
  const id = first.daemon.ids[0];
  assert.match(id, /\.1$/);
  // The worker stops before the retry; a new one starts on the same storage.
  const second = setup({ store, batcher: { clock: () => 999999 } });
  await second.b.ready;
  await second.b.addBatch([ev(3)], { batch: 'p:2' });
  await second.timers.advance(100);
  await second.timers.advance(100);
  assert.equal(second.daemon.ids[0], id, 'the stored post goes again with its id');
  assert.deepEqual(second.daemon.posts[0], first.daemon.posts[0]);
  const [epoch1] = id.split('.');
  const [epoch2, seq2] = second.daemon.ids[1].split('.');
  assert.notEqual(epoch2, epoch1, 'a new epoch');
  assert.equal(seq2, '1', 'counting from 1 again');
  assert.deepEqual(second.daemon.posts[1].events.map((e) => e.ts), [3]);
  assert.deepEqual(second.daemon.posts[1].dropped, {}, 'the drops went once, with the stored post');
  assert.equal(store.data.size, 0, 'everything delivered: nothing left in the store');
});

test('drop counts posted without an answer go again alone, with their id, also from a restarted worker', async () => {
  const store = new FakeStore();
  const first = setup({ store });
  first.daemon.answer = noAnswer;
  first.b.countDropped({ vital: 3 });
  await first.timers.advance(100);
  first.b.countDropped({ vital: 1 });
  await first.timers.advance(2000);
  assert.ok(first.daemon.posts.every((p) => p.dropped.vital === 3), 'no post adds the new count to the unanswered one');
  const second = setup({ store });
  await second.b.ready;
  second.b.kick();
  await second.timers.advance(60000);
  assert.equal(second.daemon.ids[0], first.daemon.ids[0]);
  assert.deepEqual(second.daemon.posts, [{ dropped: { vital: 3 }, events: [] }, { dropped: { vital: 1 }, events: [] }]);
  assert.notEqual(second.daemon.ids[1], second.daemon.ids[0]);
  assert.equal(store.data.size, 0, 'everything delivered: nothing left in the store');
});

test('401 replayed (Chrome sent the post again itself) is retried with backoff, not after the not-paired wait', async () => {
  const { timers, daemon, b } = setup();
  await b.addBatch(range(0, 2));
  daemon.answer = () => {
    throw Object.assign(httpError(401), { code: 'replayed' });
  };
  await timers.advance(100);
  daemon.answer = () => ({ accepted: 0, duplicate: true });
  await timers.advance(1000);
  assert.equal(daemon.posts.length, 2, 'retried within the first backoff (at most 500 ms)');
  assert.equal(daemon.ids[1], daemon.ids[0]);
  assert.equal(b.stats().events, 0);
});
