// Unit tests of actions/busy.js: the worker's count of each tab's requests in flight.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestCounter, STREAM_MS, MAX_PER_TAB } from '../actions/busy.js';

test('busy counts a tab\'s requests in flight and how long it has been quiet', () => {
  let now = 1000;
  const c = new RequestCounter({ now: () => now });
  assert.deepEqual(c.busy(4), { inflight: 0, quiet_ms: null }, 'a tab never seen');
  c.begin(4, 'a');
  c.begin(4, 'b');
  c.begin(5, 'c');
  now += 300;
  assert.deepEqual(c.busy(4), { inflight: 2, quiet_ms: 300 });
  c.end(4, 'a');
  now += 200;
  assert.deepEqual(c.busy(4), { inflight: 1, quiet_ms: 200 });
  c.end(4, 'b');
  now += 1500;
  assert.deepEqual(c.busy(4), { inflight: 0, quiet_ms: 1500 });
  assert.equal(c.busy(5).inflight, 1, 'tabs are counted apart');
  c.end(9, 'x'); // a tab never seen: nothing to do
  c.forget(5);
  assert.deepEqual(c.busy(5), { inflight: 0, quiet_ms: null });
});

test('a request in flight for longer than STREAM_MS is a stream, not activity', () => {
  let now = 0;
  const c = new RequestCounter({ now: () => now });
  c.begin(1, 'poll');
  now += STREAM_MS - 1;
  assert.equal(c.busy(1).inflight, 1);
  now += 1;
  assert.deepEqual(c.busy(1), { inflight: 0, quiet_ms: STREAM_MS });
});

test('a tab remembers at most MAX_PER_TAB requests', () => {
  const c = new RequestCounter({ now: () => 0 });
  for (let i = 0; i < MAX_PER_TAB + 10; i++) c.begin(1, String(i));
  assert.equal(c.busy(1).inflight, MAX_PER_TAB);
  assert.equal(c.tabs.get(1).inflight.has('0'), false, 'the oldest went first');
});
