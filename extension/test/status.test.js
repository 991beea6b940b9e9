import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusStore, KEYS } from '../status.js';

// memoryStorage mimics chrome.storage.local's get/set and counts writes.
function memoryStorage(initial = {}) {
  const data = structuredClone(initial);
  return {
    data,
    writes: 0,
    async get(key) {
      return key in data ? { [key]: structuredClone(data[key]) } : {};
    },
    async set(obj) {
      this.writes++;
      Object.assign(data, structuredClone(obj));
    },
  };
}

test('writes only when a field changes', async () => {
  const storage = memoryStorage();
  const s = new StatusStore(storage, 'i1');
  await s.update({ paired: true, daemon_reachable: true });
  await s.update({ paired: true, daemon_reachable: true });
  assert.equal(storage.writes, 1);
  assert.equal(storage.data[KEYS.status].paired, true);
  assert.equal(storage.data[KEYS.status].instance, 'i1');
});

test('command statuses apply to the last command only', async () => {
  const storage = memoryStorage();
  const s = new StatusStore(storage, 'i1');
  s.commandReceived('execute_js', 'exec_a');
  s.commandReceived('navigate', 'nav_b');
  s.commandStatus('exec_a', 'complete'); // an older command: ignored
  await s.commandStatus('nav_b', 'pending');
  const last = storage.data[KEYS.status].last_command;
  assert.equal(last.correlation_id, 'nav_b');
  assert.equal(last.status, 'pending');
});

test("an earlier instance's unfinished command shows as interrupted", async () => {
  const storage = memoryStorage({
    [KEYS.status]: { paired: true, last_command: { action: 'execute_js', correlation_id: 'exec_a', status: 'pending', instance: 'old' } },
  });
  const s = new StatusStore(storage, 'new');
  await s.update({ daemon_reachable: true });
  const st = storage.data[KEYS.status];
  assert.equal(st.last_command.status, 'interrupted');
  assert.equal(st.paired, true);
  assert.equal(st.instance, 'new');
});

test('dropped answers are counted across worker instances', async () => {
  const storage = memoryStorage();
  const s = new StatusStore(storage, 'i1');
  s.dropped('first');
  await s.dropped('second');
  const next = new StatusStore(storage, 'i2');
  await next.dropped('third');
  const st = storage.data[KEYS.status];
  assert.equal(st.dropped_batches, 3);
  assert.equal(st.last_error, 'third');
  assert.ok(st.last_dropped_at);
});

test("a command's statuses cost one write, a moment later; another change stores them at once", async () => {
  const storage = memoryStorage();
  const s = new StatusStore(storage, 'i1', { commandWriteMs: 50 });
  await s.update({ paired: true });
  const received = s.commandReceived('execute_js', 'exec_a');
  const done = s.commandStatus('exec_a', 'complete');
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(storage.writes, 1, 'nothing stored while the command runs');
  await Promise.all([received, done]);
  assert.equal(storage.writes, 2);
  assert.equal(storage.data[KEYS.status].last_command.status, 'complete');

  const next = s.commandReceived('navigate', 'nav_b');
  await s.update({ daemon_reachable: true });
  assert.equal(storage.writes, 3);
  assert.equal(storage.data[KEYS.status].last_command.correlation_id, 'nav_b', 'the waiting status went along');
  await next;
  assert.equal(storage.writes, 3, 'nothing was left to store');
});
