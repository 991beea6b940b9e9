// The relay's next batch (capture/relay.js takeBatch), and what may go to
// the worker at once as the page is left, beside batches in flight; then
// the relay itself, run against a fake page, worker and clock: pacing,
// leaving (pagehide, pageshow), retries, a flush while leaving, and a
// page back from the back/forward cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import vm from 'node:vm';
import { LIMITS, takeBatch } from '../capture/relay/check.js';

const charsOf = (r) => (r.message?.length || 0) + 200;
const ids = (list) => list.map((r) => r.id);

test('takeBatch takes the queue in order when nothing of it is in flight', () => {
  const queue = [{ id: 1, kind: 'log' }, { id: 2, kind: 'network', request_id: 'r1' }, { id: 3, kind: 'action' }];
  const { events, rest } = takeBatch(queue, new Set(['r9']), charsOf);
  const { chars } = takeBatch(queue, new Set(['r9']), charsOf);
  assert.deepEqual(ids(events), [1, 2, 3]);
  assert.deepEqual(rest, []);
  assert.equal(chars, 600);
  assert.equal(queue.length, 3, 'the queue given is not changed');
});

test('takeBatch leaves every record of a request in flight behind, in order', () => {
  const queue = [
    { id: 1, kind: 'network', request_id: 'r1', body_update: true }, // completes a record in flight
    { id: 2, kind: 'action' },
    { id: 3, kind: 'network', request_id: 'r2', body_pending: true },
    { id: 4, kind: 'network', request_id: 'r1' },
    { id: 5, kind: 'network', request_id: 'r2', body_update: true }, // completes id 3, which goes with it
  ];
  const { events, rest } = takeBatch(queue, new Set(['r1']), charsOf);
  assert.deepEqual(ids(events), [2, 3, 5]);
  assert.deepEqual(ids(rest), [1, 4]);
});

test('takeBatch keeps to a batch\'s size; the rest stays in order', () => {
  const big = 'x'.repeat(LIMITS.batchChars / 2);
  const queue = [{ id: 1, kind: 'log', message: big }, { id: 2, kind: 'network', request_id: 'r1' },
    { id: 3, kind: 'log', message: big }, { id: 4, kind: 'action' }];
  const { events, rest } = takeBatch(queue, new Set(['r1']), charsOf);
  assert.deepEqual(ids(events), [1]);
  assert.deepEqual(ids(rest), [2, 3, 4]);

  const many = Array.from({ length: LIMITS.batchEvents + 5 }, (_, id) => ({ id, kind: 'log' }));
  const next = takeBatch(many, new Set(), charsOf);
  assert.equal(next.events.length, LIMITS.batchEvents);
  assert.deepEqual(ids(next.rest), [100, 101, 102, 103, 104]);
});

test('takeBatch takes one record larger than a batch on its own', () => {
  const queue = [{ id: 1, kind: 'log', message: 'x'.repeat(LIMITS.batchChars * 2) }, { id: 2, kind: 'action' }];
  const { events, rest } = takeBatch(queue, new Set(), charsOf);
  assert.deepEqual(ids(events), [1]);
  assert.deepEqual(ids(rest), [2]);
});

// takeBatch as it was before it stopped at the batch's end: it walked and
// copied the whole queue on every batch. The batches must not change.
function takeBatchWhole(queue, busy, charsOf) {
  const events = [];
  const rest = [];
  let chars = 0;
  let full = false;
  for (const r of queue) {
    const size = charsOf(r);
    full ||= events.length >= LIMITS.batchEvents || (events.length > 0 && chars + size > LIMITS.batchChars);
    if (full || (r.request_id !== undefined && busy.has(r.request_id))) {
      rest.push(r);
      continue;
    }
    chars += size;
    events.push(r);
  }
  return { events, rest, chars };
}

test('takeBatch drains a queue in the same batches as walking all of it did', () => {
  let seed = 7; // a fixed pseudo-random sequence: the same queues every run
  const rand = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let round = 0; round < 50; round++) {
    const queue = Array.from({ length: rand(LIMITS.queue) + 1 }, (_, id) => {
      const r = { id, kind: rand(2) ? 'network' : 'log' };
      if (r.kind === 'network') r.request_id = `r${rand(20)}`;
      if (!rand(40)) r.message = 'x'.repeat(rand(LIMITS.batchChars));
      return r;
    });
    // Nothing in flight (a paced page), then some requests in flight (a page being left).
    for (const busy of [new Set(), new Set([`r${rand(20)}`, `r${rand(20)}`])]) {
      let left = queue;
      let batches = 0;
      while (left.length) {
        const got = takeBatch(left, busy, charsOf);
        const want = takeBatchWhole(left, busy, charsOf);
        assert.deepEqual(ids(got.events), ids(want.events), `round ${round}, batch ${batches}`);
        assert.deepEqual(ids(got.rest), ids(want.rest), `round ${round}, batch ${batches}`);
        assert.equal(got.chars, want.chars);
        if (!got.events.length) break; // only records of busy requests are left
        left = got.rest;
        batches++;
      }
      if (!busy.size) assert.equal(left.length, 0, 'with nothing in flight the queue drains');
    }
  }
});

/**
 * relayPage runs capture/relay.js as shipped (its modules bundled: the
 * first source of dist/start-isolated-idle.js) as in a page, with every global it uses
 * faked: the page's listeners, a worker whose replies the test gives
 * (sent[i].ok(), sent[i].fail()), and a clock that moves only on tick.
 */
function relayPage() {
  const [header, src] = fs.readFileSync(new URL('../dist/start-isolated-idle.js', import.meta.url), 'utf8').split('\n');
  assert.match(header, /from capture\/relay\.js,/, 'the relay is the bundle\'s first source, on its line 2');
  let now = 1000;
  let timers = [];
  const listeners = {};
  const sent = [];
  let onMessage = null;
  const win = {};
  const page = {
    globalThis: win,
    document: {},
    addEventListener: (type, fn) => (listeners[type] ??= []).push(fn),
    removeEventListener: (type, fn) => { listeners[type] = (listeners[type] ?? []).filter((f) => f !== fn); },
    dispatchEvent: () => true,
    CustomEvent: class { constructor(type) { this.type = type; } },
    Element: class {},
    setTimeout: (fn, ms) => {
      const t = { at: now + ms, fn };
      timers.push(t);
      return t;
    },
    clearTimeout: (t) => { timers = timers.filter((x) => x !== t); },
    Date: { now: () => now },
    chrome: {
      runtime: {
        id: 'gasoline',
        sendMessage: (batch) => new Promise((resolve, reject) => {
          sent.push({ batch, ok: () => resolve({ ok: true, config: { version: 1, kinds: {} } }), fail: () => reject(new Error('no worker')) });
        }),
        onMessage: { addListener: (fn) => { onMessage = fn; } },
      },
    },
  };
  vm.runInThisContext(`(function (${Object.keys(page).join(', ')}) {\n${src}\n})`, { filename: 'relay.js' })(...Object.values(page));
  const settle = async () => {
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    sent,
    settle,
    /** batches is the ids of the records of each batch sent so far. */
    batches: () => sent.map((s) => ids(s.batch.events)),
    record: (r) => win.gasolineRecord(r),
    /** fire dispatches a browser's (trusted) event; init.isTrusted false makes it the page's own. */
    fire: (type, init = {}) => (listeners[type] ?? []).forEach((fn) => fn({ type, isTrusted: true, ...init })),
    /** acting switches the runtime's "acting" signal (actions/channel.js) on. */
    acting: () => { win.gasolineChannel = { acting: () => true }; },
    /** link is a link's element as a click's target. */
    link: (href) => Object.assign(new page.Element(), { closest: () => ({ hasAttribute: () => false, getAttribute: (n) => (n === 'href' ? href : null) }) }),
    /** tick moves the clock on by ms and runs the timers due by then, in order. */
    async tick(ms) {
      now += ms;
      for (;;) {
        const due = timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((t) => t !== due);
        due.fn();
        await settle();
      }
      await settle();
    },
    /** runtimeFlush is the DOM runtime's flush after an op (actions/runtime/ops.js flushHere). */
    runtimeFlush: () => win.gasolineRelay([], true),
    /** flush asks the relay as the worker does; it resolves with the answer. */
    flush: () => new Promise((resolve) => onMessage({ gasoline: 'capture', op: 'flush' }, { id: 'gasoline' }, resolve)),
  };
}

// A record of about 300 000 characters: the relay paces the next batch 300 ms after it.
const big = (r) => ({ ...r, request_body: 'x'.repeat(300000 - 200) });
const GATHER = LIMITS.gatherMs;

test('the relay sends one batch at a time, the next after the time its characters take', async () => {
  const p = relayPage();
  p.record(big({ id: 1, kind: 'log' }));
  await p.tick(GATHER);
  p.record({ id: 2, kind: 'log' });
  assert.deepEqual(p.batches(), [[1]], 'one batch in flight; the next record waits for it');
  p.sent[0].ok();
  await p.settle();
  await p.tick(GATHER);
  assert.deepEqual(p.batches(), [[1]], 'paced: 300 ms for 300 000 characters');
  await p.tick(299 - GATHER);
  assert.deepEqual(p.batches(), [[1]]);
  await p.tick(1);
  assert.deepEqual(p.batches(), [[1], [2]]);
});

test('the records of a burst wait for the rest of it, at most gatherMs, and go in one batch', async () => {
  const p = relayPage();
  p.record({ id: 1, kind: 'nav' });
  await p.tick(GATHER / 2);
  p.record({ id: 2, kind: 'log' });
  await p.tick(GATHER / 2 - 1);
  p.record({ id: 3, kind: 'vital' });
  assert.deepEqual(p.batches(), [], 'gathering');
  await p.tick(1);
  assert.deepEqual(p.batches(), [[1, 2, 3]], 'the first record waited gatherMs, no longer');
  p.record({ id: 4, kind: 'vital' }); // while the batch flies: a new burst
  p.sent[0].ok();
  await p.tick(GATHER - 1);
  assert.deepEqual(p.batches(), [[1, 2, 3]]);
  await p.tick(1);
  assert.deepEqual(p.batches(), [[1, 2, 3], [4]], 'gatherMs after the record, though the batch before landed earlier');
  p.sent[1].ok();
  await p.tick(5 * GATHER);
  p.record({ id: 5, kind: 'log' }); // a record long after: it waits gatherMs too
  await p.tick(GATHER);
  assert.deepEqual(p.batches().at(-1), [5]);
  assert.deepEqual(p.sent.map((s) => s.batch.batch.split(':')[1]), ['1', '2', '3'], 'batches numbered in order');
});

test('a user\'s action goes at once, with what gathered before it: frames\' actions reach the worker in the order they were made', async () => {
  const p = relayPage();
  p.record({ id: 1, kind: 'log' });
  await p.tick(GATHER / 2);
  p.record({ id: 2, kind: 'action', type: 'click' });
  await p.settle();
  assert.deepEqual(p.batches(), [[1, 2]], 'no wait for the rest of the burst');
  p.record({ id: 3, kind: 'action', type: 'click' }); // while the batch flies: it goes once that one landed
  p.sent[0].ok();
  await p.tick(1); // the pacing after two small records (under 1 ms)
  assert.deepEqual(p.batches(), [[1, 2], [3]]);

  // Paced (a big record just went) while a gathering waits: the action
  // goes when the pacing allows, not at the gathering's end.
  p.sent[1].ok();
  await p.tick(1);
  p.record(big({ id: 4, kind: 'log' }));
  await p.tick(GATHER); // [4] goes: the next batch is paced 300 ms after it
  p.sent[2].ok();
  await p.settle();
  await p.tick(250);
  p.record({ id: 5, kind: 'log' }); // gathers GATHER from now: past the pacing's end, 50 ms from now
  await p.tick(10);
  p.record({ id: 6, kind: 'action', type: 'click' });
  await p.tick(39);
  assert.deepEqual(p.batches().at(-1), [4], 'paced');
  await p.tick(1);
  assert.deepEqual(p.batches().at(-1), [5, 6], 'at the pacing\'s end, not the gathering\'s, with the record gathered before it');
});

test('a burst that fills a batch goes at once', async () => {
  const p = relayPage();
  for (let id = 0; id < LIMITS.batchEvents; id++) p.record({ id, kind: 'log' });
  assert.equal(p.sent.length, 1, 'a full batch does not wait');
  assert.equal(p.sent[0].batch.events.length, LIMITS.batchEvents);
  p.sent[0].ok();
  await p.tick(LIMITS.batchEvents * 200 * 1000 / LIMITS.rateChars); // the pacing after it (20 ms): less than gatherMs
  p.record({ id: 'a', kind: 'network', request_body: 'x'.repeat(LIMITS.batchChars) });
  await p.settle();
  assert.deepEqual(p.batches().at(-1), ['a'], 'nor one batch\'s characters');
});

test('the worker\'s flush takes what a burst gathered, at once, and nothing is sent twice', async () => {
  const p = relayPage();
  p.record({ id: 1, kind: 'log' });
  p.record({ id: 2, kind: 'log' });
  const answer = await p.flush();
  assert.deepEqual(ids(answer.events), [1, 2], 'no wait for the gathering');
  await p.tick(GATHER);
  assert.deepEqual(p.batches(), [], 'what the flush took is not sent again');
  p.record({ id: 3, kind: 'log' });
  await p.tick(GATHER);
  assert.deepEqual(p.batches(), [[3]]);
});

test('leaving the page sends what a burst gathered at once', async () => {
  const p = relayPage();
  p.record({ id: 1, kind: 'log' });
  p.fire('pagehide');
  assert.deepEqual(p.batches(), [[1]]);
});

test('leaving sends at once what is not of a request in flight; back from the cache the page is paced again', async () => {
  const p = relayPage();
  p.record(big({ id: 1, kind: 'network', request_id: 'r1' }));
  await p.tick(GATHER);
  p.record({ id: 2, kind: 'network', request_id: 'r1', body_update: true }); // completes 1: must not overtake it
  p.record({ id: 3, kind: 'action' });
  assert.deepEqual(p.batches(), [[1]]);

  p.fire('pagehide');
  assert.deepEqual(p.batches(), [[1], [3]], 'no pacing, beside the batch in flight, without its request');
  p.record({ id: 4, kind: 'action' }); // record.js's last action at pagehide
  assert.deepEqual(p.batches(), [[1], [3], [4]], 'a record made while leaving goes at once');

  p.sent[0].ok();
  await p.settle();
  assert.deepEqual(p.batches(), [[1], [3], [4], [2]], 'the request\'s next record follows once it landed');
  for (const s of p.sent.slice(1)) s.ok();
  await p.settle();

  p.fire('pageshow');
  await p.tick(1);
  p.record(big({ id: 5, kind: 'log' }));
  await p.tick(GATHER);
  p.record({ id: 6, kind: 'log' });
  assert.deepEqual(p.batches().slice(4), [[5]], 'one batch in flight again');
  p.sent[4].ok();
  await p.tick(GATHER);
  assert.deepEqual(p.batches().slice(4), [[5]], 'paced again');
  await p.tick(300 - GATHER);
  assert.deepEqual(p.batches().slice(4), [[5], [6]]);
});

test('a batch the worker does not take is retried while in flight, then counted as dropped', async () => {
  const p = relayPage();
  p.record({ id: 1, kind: 'log' });
  await p.tick(GATHER);
  p.record({ id: 2, kind: 'action' });
  for (const wait of [250, 1000, 4000]) {
    p.sent.at(-1).fail();
    await p.settle();
    await p.tick(wait);
  }
  assert.deepEqual(p.batches(), [[1], [1], [1], [1]], 'the same batch, retried; the next waits while it flies');
  p.sent.at(-1).fail();
  await p.settle();
  await p.tick(4000);
  assert.deepEqual(p.batches().at(-1), [2], 'after the last retry the next batch goes');
  assert.deepEqual({ ...p.sent.at(-1).batch.dropped }, { log: 1 }, 'and says the record given up on was dropped');
});

test('a flush while leaving answers once no batch is in flight, with what waited', async () => {
  const p = relayPage();
  p.record(big({ id: 1, kind: 'network', request_id: 'r1' }));
  p.fire('pagehide');
  p.record({ id: 2, kind: 'network', request_id: 'r1', body_update: true });
  p.record({ id: 3, kind: 'action' });
  assert.deepEqual(p.batches(), [[1], [3]]);

  let answer = null;
  p.flush().then((a) => { answer = a; });
  await p.settle();
  assert.equal(answer, null, 'no answer while batches fly: it could overtake them');
  p.sent[1].ok();
  await p.settle();
  assert.equal(answer, null, 'one batch still in flight');
  assert.equal(p.sent.length, 2, 'an acknowledgement while a flush waits sends no next batch');
  p.sent[0].ok();
  await p.settle();
  assert.equal(answer?.ok, true);
  assert.deepEqual(ids(answer.events), [2], 'the flush takes the record that waited for its request');
  assert.equal(answer.page, false, 'no page script linked');
  assert.equal(p.sent.length, 2, 'and it is not sent again');
});

test('back from the back/forward cache, what was in flight as the page entered it is sent again, and a flush answers', async () => {
  const p = relayPage();
  p.record({ id: 1, kind: 'log' });
  p.fire('pagehide', { persisted: true });
  p.record({ id: 2, kind: 'action' }); // record.js's last action at pagehide
  assert.deepEqual(p.batches(), [[1], [2]]);
  // Chrome closed both messages' channels as the page entered the cache: no answer ever comes.

  p.fire('pageshow', { persisted: true });
  assert.deepEqual(p.batches(), [[1], [2], [1], [2]], 'both sent again at the restore');
  assert.deepEqual(p.sent.slice(2).map((s) => s.batch.batch), p.sent.slice(0, 2).map((s) => s.batch.batch),
    'under their ids: the worker does not store a batch it has twice');
  p.record({ id: 3, kind: 'log' }); // the restored page's pageshow handler logs
  let answer = null;
  p.flush().then((a) => { answer = a; }); // back's settle
  await p.settle();
  assert.equal(answer, null, 'the flush waits for the batches in flight');
  p.sent[2].ok();
  p.sent[3].ok();
  await p.settle();
  assert.equal(answer?.ok, true, 'the flush answers once the batches sent again landed');
  assert.deepEqual(ids(answer.events), [3], 'with the record made after the restore');

  await p.tick(1); // the pacing after the batch before
  p.record({ id: 4, kind: 'action' });
  await p.tick(GATHER);
  assert.deepEqual(p.batches().slice(4), [[4]], 'records after the restore go to the worker');
  p.sent[0].ok(); // a late answer to a send before the restore changes nothing
  p.sent[1].fail();
  await p.settle();
  await p.tick(5000);
  assert.deepEqual(p.batches().slice(4), [[4]], 'nothing is sent twice');
  p.sent[4].ok();
  await p.tick(1);
  p.record({ id: 5, kind: 'log' });
  await p.tick(GATHER);
  assert.deepEqual(p.batches().slice(4), [[4], [5]]);
});

test('a retry due before the page entered the cache is not sent beside the batch sent again at the restore', async () => {
  const p = relayPage();
  p.record({ id: 1, kind: 'log' });
  await p.tick(GATHER);
  p.sent[0].fail();
  await p.settle(); // its retry waits 250 ms: no timer runs in the cache
  p.fire('pagehide', { persisted: true });
  p.fire('pageshow', { persisted: true });
  assert.deepEqual(p.batches(), [[1], [1]], 'sent again at the restore');
  await p.tick(250);
  assert.deepEqual(p.batches(), [[1], [1]], 'the retry before the restore is void');
  p.sent[1].fail();
  await p.settle();
  await p.tick(250);
  assert.deepEqual(p.batches(), [[1], [1], [1]], 'the batch sent again is retried as usual');
  p.sent[2].ok();
  await p.tick(1);
  p.record({ id: 2, kind: 'log' });
  await p.tick(GATHER);
  assert.deepEqual(p.batches().at(-1), [2]);
});

test('a pageshow of a page not from the cache sends nothing again', async () => {
  const p = relayPage();
  p.record({ id: 1, kind: 'log' });
  await p.tick(GATHER);
  p.fire('pageshow', { persisted: false });
  assert.deepEqual(p.batches(), [[1]]);
});

test('a flush asked before the page entered the cache does not take what waits: its answer would be lost', async () => {
  const p = relayPage();
  p.record({ id: 1, kind: 'log' });
  await p.tick(GATHER);
  let answer = null;
  p.flush().then((a) => { answer = a; });
  await p.settle();
  p.fire('pagehide', { persisted: true });
  p.record({ id: 2, kind: 'action' }); // sent at once beside batch 1: it waits for nothing now
  p.fire('pageshow', { persisted: true });
  p.record({ id: 3, kind: 'log' }); // waits: a flush is waiting
  assert.deepEqual(p.batches(), [[1], [2], [1], [2]]);
  p.sent[2].ok();
  p.sent[3].ok();
  await p.tick(GATHER); // the pacing after the batch before, and gathering
  assert.equal(answer, null, 'no answer into the closed channel');
  assert.deepEqual(p.batches().at(-1), [3], 'the record goes in a batch');
});

test('a page\'s own pagehide and pageshow change nothing: pacing stays on, nothing is sent again', async () => {
  const p = relayPage();
  p.record(big({ id: 1, kind: 'log' }));
  await p.tick(GATHER); // batch 1 goes once gathered
  p.record({ id: 2, kind: 'log' });
  await p.tick(GATHER);
  p.fire('pagehide', { persisted: true, isTrusted: false });
  assert.deepEqual(p.batches(), [[1]], 'not leaving: the next record waits for the batch in flight');
  for (let i = 0; i < 5; i++) p.fire('pageshow', { persisted: true, isTrusted: false });
  assert.deepEqual(p.batches(), [[1]], 'no batch sent again');
  let answer = null;
  p.flush().then((a) => { answer = a; });
  p.sent[0].ok();
  await p.settle();
  assert.equal(answer?.ok, true, 'the answer to the batch in flight still counts: the flush answers');
  assert.deepEqual(ids(answer.events), [2]);
});

test('a link the agent followed as the page entered the cache is not announced again after the restore', async () => {
  const p = relayPage();
  p.acting();
  p.fire('click', { target: p.link('/next.html') });
  assert.equal((await p.flush()).navigating, true, 'a link followed: the flush says a navigation is coming');
  p.fire('click', { target: p.link('/next.html') }); // no flush before the navigation began
  p.fire('pagehide', { persisted: true });
  p.fire('pageshow', { persisted: true });
  const answer = await p.flush(); // back's settle
  assert.equal(answer.navigating, false, 'the restored page is going nowhere');
});

test('the runtime\'s flush after an action that followed a link answers nothing at once; the worker\'s flush still learns the navigation', async () => {
  const p = relayPage();
  p.acting();
  p.record({ id: 1, kind: 'action' }); // a batch in flight: a flush would wait for it
  p.fire('click', { target: p.link('/next.html') });
  assert.equal(await p.runtimeFlush(), null, 'the document is about to go: the runtime answers without waiting on a flush');
  p.sent[0].ok();
  const answer = await p.flush();
  assert.equal(answer.navigating, true, 'the worker\'s flush says a navigation is coming');
  assert.deepEqual(ids(answer.events), []);
});

test('the runtime\'s flush after an action that navigates nowhere answers the flush', async () => {
  const p = relayPage();
  p.acting();
  p.record({ id: 1, kind: 'action' });
  p.sent[0].ok();
  p.record({ id: 2, kind: 'log' });
  const answer = await p.runtimeFlush();
  assert.equal(answer?.ok, true);
  assert.equal(answer.navigating, false);
  assert.deepEqual(ids(answer.events), [2]);
});
