import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff, sleep, within } from '../backoff.js';

test('Backoff doubles from base to max with jitter in [d/2, d]', () => {
  const hi = new Backoff({ baseMs: 250, maxMs: 5000, random: () => 1 });
  assert.deepEqual(Array.from({ length: 7 }, () => hi.next()), [250, 500, 1000, 2000, 4000, 5000, 5000]);
  const lo = new Backoff({ baseMs: 250, maxMs: 5000, random: () => 0 });
  assert.deepEqual(Array.from({ length: 3 }, () => lo.next()), [125, 250, 500]);
  hi.reset();
  assert.equal(hi.next(), 250);
});

test('sleep resolves, and rejects on abort', async () => {
  await sleep(1);
  const ac = new AbortController();
  const p = sleep(60000, ac.signal);
  ac.abort(new Error('woken'));
  await assert.rejects(p, /woken/);
  await assert.rejects(sleep(1, ac.signal), /woken/);
});

test('within settles like the promise, or like late() once the time is up, and clears its timer', async () => {
  assert.equal(await within(Promise.resolve('on time'), 1000, () => 'late'), 'on time');
  await assert.rejects(within(Promise.reject(new Error('refused')), 1000, () => 'late'), /refused/);
  assert.equal(await within(new Promise(() => {}), 5, () => 'late'), 'late');
  await assert.rejects(within(new Promise(() => {}), 5, () => {
    throw new Error('no answer within 5 ms');
  }), /no answer within 5 ms/);
});
