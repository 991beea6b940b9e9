// Held capture (origins/held.js): what pages of origins the user did not
// allow captured stays in the browser, bounded, kept across a worker
// restart, until a release hands it on; the gate moves a command's
// deadline while it asks the user (rule.js, runner.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HELD_PREFIX, Held, MAX_HELD_EVENTS, MAX_HELD_ORIGINS, MAX_HELD_TOTAL_BYTES, releaseCapture, startHolding } from '../origins/held.js';
import { Origins } from '../origins/rule.js';
import { USER_ANSWER_MS } from '../contract.js';
import { runCommand } from '../runner.js';

function area(init = {}) {
  const data = structuredClone(init);
  return {
    data,
    get: async (k) => (k === null ? structuredClone(data) : k in data ? { [k]: structuredClone(data[k]) } : {}),
    set: async (o) => Object.assign(data, structuredClone(o)),
    remove: async (k) => [k].flat().forEach((x) => delete data[x]),
  };
}
const now = (fn) => fn(); // timers that fire at once
const ev = (tab, url, i, kind = 'network') => ({ kind, tab_id: tab, page_url: url, ts: i, url: `${url}api/${i}`, status: 500 });

test('held events go, in order and per tab, only when released; a second release finds nothing', async () => {
  const delivered = [];
  let changes = 0;
  const h = new Held({ store: area(), deliver: async (parts) => delivered.push(...parts), onChange: () => changes++, setTimer: now });
  await h.ready;
  h.hold('https://shop.example', ev(7, 'https://shop.example/', 1));
  h.hold('https://bank.example', ev(9, 'https://bank.example/', 2, 'log'));
  h.hold('https://shop.example', ev(7, 'https://shop.example/', 3));
  assert.ok(changes >= 3);
  assert.deepEqual(h.counts().map((c) => [c.tab_id, c.origin, c.events]).sort(),
    [[7, 'https://shop.example', 2], [9, 'https://bank.example', 1]]);
  assert.equal(delivered.length, 0, 'nothing goes before a release');
  const parts = await h.release('https://shop.example');
  assert.deepEqual(parts.map((p) => [p.tab, p.events.map((e) => e.ts)]), [[7, [1, 3]]]);
  assert.deepEqual(delivered, parts);
  assert.deepEqual(await h.release('https://shop.example'), []);
  assert.deepEqual(h.list(), ['https://bank.example']);
});

test('a new tab or origin is news at once; more events of a tab held already are counts only', async () => {
  const told = [];
  const h = new Held({ store: area(), onChange: (fresh) => told.push(fresh), setTimer: now });
  await h.ready;
  h.hold('https://shop.example', ev(7, 'https://shop.example/', 1));
  h.hold('https://shop.example', ev(7, 'https://shop.example/', 2));
  h.hold('https://shop.example', ev(8, 'https://shop.example/', 3));
  await h.release('https://shop.example');
  assert.deepEqual(told, [true, false, true, true]);
});

test('bounds: the newest MAX_HELD_EVENTS stay and the rest is counted dropped per tab and kind; the oldest origins go first', async () => {
  const delivered = [];
  const h = new Held({ store: area(), deliver: async (p) => delivered.push(...p), setTimer: now });
  await h.ready;
  for (let i = 0; i < MAX_HELD_EVENTS + 5; i++) h.hold('https://shop.example', ev(7, 'https://shop.example/', i));
  assert.deepEqual(h.counts(), [{ tab_id: 7, origin: 'https://shop.example', events: MAX_HELD_EVENTS, dropped: 5 }]);
  const [part] = await h.release('https://shop.example');
  assert.equal(part.events[0].ts, 5);
  assert.deepEqual(part.dropped, { network: 5 });
  for (let i = 0; i <= MAX_HELD_ORIGINS; i++) h.hold(`https://s${i}.example`, ev(i, `https://s${i}.example/`, i));
  assert.equal(h.list().length, MAX_HELD_ORIGINS);
  assert.ok(!h.list().includes('https://s0.example'));
});

test('over the total bytes, the least recently heard from origin loses its oldest events first, counted', async () => {
  const h = new Held({ store: area(), setTimer: now });
  await h.ready;
  const big = (tab, url, i) => ({ ...ev(tab, url, i), response_body: 'x'.repeat(200 * 1024) });
  for (let i = 0; i < 4; i++) h.hold('https://a.example', big(1, 'https://a.example/', i));
  const n = Math.ceil(MAX_HELD_TOTAL_BYTES / (800 * 1024));
  for (let o = 0; o < n; o++) {
    for (let i = 0; i < 4; i++) h.hold(`https://b${o}.example`, big(2 + o, `https://b${o}.example/`, i));
  }
  const counts = h.counts();
  const a = counts.find((c) => c.origin === 'https://a.example');
  assert.ok(a.dropped > 0, 'the oldest origin lost events');
  assert.equal(a.events + a.dropped, 4);
  const last = counts.find((c) => c.origin === `https://b${n - 1}.example`);
  assert.deepEqual([last.events, last.dropped], [4, 0], 'the newest origin keeps all');
});

test('a restarted worker finds what was held in chrome.storage.session', async () => {
  const store = area();
  const a = new Held({ store, setTimer: now });
  await a.ready;
  a.hold('https://shop.example', ev(7, 'https://shop.example/', 1));
  await a.saving;
  assert.ok(store.data[`${HELD_PREFIX}https://shop.example`]);
  const delivered = [];
  const b = new Held({ store, deliver: async (p) => delivered.push(...p), setTimer: now });
  await b.ready;
  assert.equal(b.counts()[0].events, 1);
  await b.release('https://shop.example');
  assert.equal(delivered[0].events[0].ts, 1);
  assert.equal(store.data[`${HELD_PREFIX}https://shop.example`], undefined);
});

test('release_capture hands on what is held of the tab\'s origin, and its count', async () => {
  const delivered = [];
  const h = new Held({ store: area(), deliver: async (p) => delivered.push(...p), setTimer: now });
  await h.ready;
  h.hold('https://shop.example', ev(7, 'https://shop.example/', 1));
  startHolding({ held: h, tabUrl: async () => 'https://shop.example/cart' });
  const before = Date.now();
  const first = await releaseCapture({ tab_id: 7 });
  assert.ok(first.released_at >= before && first.released_at <= Date.now(), 'released_at: when nothing was held any more');
  assert.deepEqual({ ...first, released_at: 0 }, { origin: 'https://shop.example', released: 1, released_at: 0 });
  assert.equal(delivered.length, 1);
  assert.deepEqual({ ...(await releaseCapture({ tab_id: 7 })), released_at: 0 }, { origin: 'https://shop.example', released: 0, released_at: 0 });
});

test('asking the user moves the command\'s deadline: the prompt waits USER_ANSWER_MS, not what is left of the deadline', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const extended = [];
  let answer;
  const origins = new Origins({
    storage: area(),
    tabUrl: async () => 'https://shop.example/',
    ask: async (p) => {
      answer = p.id;
      return 1;
    },
    close: () => {},
    extend: (query, ms) => extended.push(ms) > 0,
  });
  const run = origins.gate(async () => ({ ok: true }));
  const got = run({ action: 'execute_js', params: { tab_id: 7 }, timeout_ms: 2000, client: 'c' });
  for (let i = 0; i < 100 && answer === undefined; i++) await new Promise((r) => setImmediate(r)); // the user is asked
  assert.notEqual(answer, undefined, 'the user was asked');
  t.mock.timers.tick(2100); // past the command's own deadline: still waiting
  assert.deepEqual(extended, [USER_ANSWER_MS + 2000]);
  origins.answer(answer, 'once');
  assert.deepEqual(await got, { ok: true });
});

test('runCommand: extend moves the deadline; a command extended past its first deadline completes', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const posts = [];
  let extended;
  const moved = new Promise((r) => { extended = r; });
  const done = runCommand({
    correlationId: 'c1',
    timeoutMs: 200,
    execute: async (signal, { extend }) => {
      assert.equal(extend(600), true);
      const work = new Promise((r) => setTimeout(r, 350));
      extended();
      await work;
      return { ok: 1 };
    },
    report: async (b) => posts.push(b),
    timeoutMessage: () => 'late',
  });
  await moved;
  t.mock.timers.tick(350); // past the first deadline (200 ms), before the moved one (600 ms)
  await done;
  assert.deepEqual(posts.at(-1), { correlation_id: 'c1', status: 'complete', result: { ok: 1 } });
});
