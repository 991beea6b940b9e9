// The recorder's choice of the text an action made appear
// (capture/record/shown.js, pick).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pick } from '../capture/record/shown.js';

test('appeared text: shortest first, at most three, each found once on the page', () => {
  const page = 'Orders Load orders 2 orders Welcome back, Ada Your cart is saved Saved Last login 12:30 PM 42';
  const got = pick(['Welcome back, Ada', '2 orders', 'Your cart is saved', 'Saved', 'Last login 12:30 PM'], { page });
  // "Saved" is twice on the page (case folded, as getByText matches): ambiguous.
  assert.deepEqual([...got], ['2 orders', 'Welcome back, Ada', 'Your cart is saved']);
});

test('appeared text: no bare numbers or times, no removed text, no secrets, no repeats', () => {
  const got = pick(['42', '12:30 pm', '3.5%', 'Clicked 1 times', 'Clicked 0 times', 'pw is [redacted]', 'x', 'clicked 1 TIMES'],
    { gone: new Set(['Clicked 0 times']), page: '' });
  assert.deepEqual([...got], ['Clicked 1 times']);
});

test('appeared text: a long text is cut at a word, as a substring getByText finds', () => {
  const long = 'Your order has been placed and will ship within three business days from our warehouse';
  const [got] = pick([long], { page: long });
  assert.ok(got.length <= 64 && long.startsWith(got) && !got.endsWith(' '), got);
  assert.equal(pick(['Not on the page'], { page: 'something else' }).length, 0);
});

test('appeared text: "Loading..." is not asserted, it is gone by the time a test looks', () => {
  assert.deepEqual([...pick(['Loading...', 'Saving\u2026', 'Saved'], { page: 'Saved' })], ['Saved']);
});

test('appeared text: the page is read only when a candidate is left, and only the shortest are searched', () => {
  let reads = 0;
  const page = () => { reads++; return 'Done'; };
  assert.equal(pick(['42', '12:30'], { page }).length, 0);
  assert.equal(reads, 0, 'no candidate left: the page text is never read');
  const many = Array.from({ length: 6000 }, (_, i) => `candidate ${i}`);
  assert.deepEqual([...pick([...many, 'Done'], { page })], ['Done']);
  assert.equal(reads, 1);
  // Only the 30 shortest are searched: a longer text behind 30 shorter ones
  // that are not on the page is not looked up (a bounded cost per action).
  const shortOnes = Array.from({ length: 30 }, (_, i) => `miss ${i}`);
  assert.equal(pick([...shortOnes, 'a longer text that is on the page'], { page: 'a longer text that is on the page' }).length, 0);
});
