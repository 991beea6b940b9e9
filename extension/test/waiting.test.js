// Unit tests of actions/waiting.js: a DOM action hears what its runtime
// waits for, from its own tab only, until it stops watching.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { watchWaiting } from '../actions/waiting.js';

const EXT_ID = 'ipimnlogmeffgddjpdmodnligphcpfag';

// fakeRuntime is chrome.runtime with onMessage; send delivers a message to
// its listeners as Chrome would, from sender.
function fakeRuntime() {
  const listeners = new Set();
  globalThis.chrome = {
    runtime: {
      id: EXT_ID,
      onMessage: { addListener: (fn) => listeners.add(fn), removeListener: (fn) => listeners.delete(fn) },
    },
  };
  return {
    listeners,
    send: (msg, sender) => {
      for (const fn of listeners) fn(msg, { id: EXT_ID, ...sender }, () => {});
    },
  };
}

test('watchWaiting hears its tab runtime until stopped', () => {
  const rt = fakeRuntime();
  const heard = [];
  const stop = watchWaiting(7, (text) => heard.push(text));
  rt.send({ gasoline: 'waiting', text: "disabled: button 'Save' is disabled" }, { tab: { id: 7 } });
  rt.send({ gasoline: 'waiting', text: 'not_found: no element matches #x' }, { tab: { id: 8 } }); // another tab
  rt.send({ gasoline: 'waiting', text: 'from elsewhere' }, { id: 'another-extension', tab: { id: 7 } });
  rt.send({ gasoline: 'busy' }, { tab: { id: 7 } });
  rt.send({ gasoline: 'waiting', text: '' }, { tab: { id: 7 } });
  stop();
  rt.send({ gasoline: 'waiting', text: 'after the action' }, { tab: { id: 7 } });
  assert.deepEqual(heard, ["disabled: button 'Save' is disabled", '']);
  assert.equal(rt.listeners.size, 0);
});

test('watchWaiting without a hook watches nothing', () => {
  const rt = fakeRuntime();
  watchWaiting(7, undefined)();
  assert.equal(rt.listeners.size, 0);
});
