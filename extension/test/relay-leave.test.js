// The relay's next batch (capture/relay.js takeBatch), and what may go to
// the worker at once as the page is left, beside batches in flight.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadScript } from './capture-dom.js';

const { takeBatch, LIMITS } = loadScript('relay.js', 'gasolineRelayKit');
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
