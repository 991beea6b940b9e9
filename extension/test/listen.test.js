// Unit tests of listen.js: one shared listener per event, fanned out to
// subscribers, kept a while after the last leaves.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { subscribe, LINGER_MS } from '../listen.js';

function fakeEvent() {
  const listeners = [];
  return {
    listeners,
    adds: 0,
    addListener(f) {
      this.adds++;
      listeners.push(f);
    },
    removeListener(f) {
      const i = listeners.indexOf(f);
      if (i >= 0) listeners.splice(i, 1);
    },
    fire(...args) {
      [...listeners].forEach((f) => f(...args));
    },
  };
}

test('subscribers share one listener and get each event in the order they came', () => {
  const e = fakeEvent();
  const got = [];
  const offA = subscribe(e, (d) => got.push(`a${d}`));
  const offB = subscribe(e, (d) => got.push(`b${d}`));
  e.fire(1);
  offA();
  e.fire(2);
  offB();
  e.fire(3);
  assert.deepEqual(got, ['a1', 'b1', 'b2']);
  assert.equal(e.adds, 1);
  assert.equal(e.listeners.length, 1, 'kept while it lingers');
});

test('a subscriber that throws does not keep the others from the event; one that leaves meanwhile gets no more', () => {
  const e = fakeEvent();
  const got = [];
  const errors = [];
  const queue = globalThis.queueMicrotask;
  globalThis.queueMicrotask = (f) => {
    try {
      f();
    } catch (err) {
      errors.push(err.message);
    }
  };
  let offC;
  const offA = subscribe(e, () => {
    offC();
    throw new Error('boom');
  });
  const offB = subscribe(e, (d) => got.push(`b${d}`));
  offC = subscribe(e, (d) => got.push(`c${d}`));
  try {
    e.fire(1);
  } finally {
    globalThis.queueMicrotask = queue;
  }
  assert.deepEqual(got, ['b1']);
  assert.deepEqual(errors, ['boom'], 'the error is reported');
  offA();
  offB();
});

test('the listener goes LINGER_MS after the last subscriber left, unless one came back', () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const e = fakeEvent();
    subscribe(e, () => {})();
    mock.timers.tick(LINGER_MS - 1);
    const off = subscribe(e, () => {});
    mock.timers.tick(LINGER_MS);
    assert.equal(e.listeners.length, 1, 'a subscriber came back in time');
    off();
    mock.timers.tick(LINGER_MS);
    assert.equal(e.listeners.length, 0);
    const got = [];
    const again = subscribe(e, (d) => got.push(d));
    e.fire('x');
    assert.deepEqual(got, ['x']);
    assert.equal(e.adds, 2, 'added again once gone');
    again();
    again(); // twice is once
  } finally {
    mock.timers.reset();
  }
});
