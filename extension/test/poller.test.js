// The poll loop with a scripted client: dispatch never blocks the next poll,
// 401 marks the extension unpaired, an unreachable daemon is retried.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HEAD_START_MS, Poller } from '../poller.js';
import { Backoff, RECENT_DAEMON_MS, RECONNECT_CAP_MS, reconnectDelay, sleep } from '../backoff.js';
import { DaemonError, NetworkError, SignatureError } from '../daemon.js';

// scripted returns a makeClient whose pendingQueries answers from steps in
// order (a value, an Error to throw, or a function of the signal), then holds
// until aborted.
function scripted(steps) {
  const calls = [];
  const args = [];
  const makeClient = (config) => ({
    pendingQueries: (opts) => {
      const { signal } = opts;
      calls.push(config);
      args.push(opts);
      const step = steps.shift();
      if (typeof step === 'function') return step(signal);
      if (step instanceof Error) return Promise.reject(step);
      if (step) return Promise.resolve(step);
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    },
  });
  return { makeClient, calls, args };
}

function statusRecorder() {
  const s = { current: {}, updates: [] };
  s.update = (patch) => {
    s.updates.push(patch);
    Object.assign(s.current, patch);
    return Promise.resolve();
  };
  s.dropped = (message) => s.update({ dropped_batches: (s.current.dropped_batches || 0) + 1, last_error: message });
  return s;
}

// deferred is a promise with its resolve function.
function deferred() {
  let resolve;
  const promise = new Promise((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const until = async (cond, what) => {
  for (let i = 0; i < 200; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.fail(`timed out waiting for ${what}`);
};

const fastBackoff = () => new Backoff({ baseMs: 1, maxMs: 2 });

test('dispatches every query and polls again without waiting for commands', async () => {
  const { makeClient, calls } = scripted([[{ correlation_id: 'a' }, { correlation_id: 'b' }], [{ correlation_id: 'c' }]]);
  const dispatched = [];
  const status = statusRecorder();
  const p = new Poller({
    loadConfig: async () => ({ token: 't', port: 1 }),
    makeClient,
    dispatch: (q) => {
      dispatched.push(q.correlation_id);
      return new Promise(() => {}); // a command that never ends must not hold the loop
    },
    status,
    backoff: fastBackoff(),
  });
  p.start();
  p.start(); // idempotent: still one loop
  await until(() => calls.length === 3, 'third poll');
  assert.deepEqual(dispatched, ['a', 'b', 'c']);
  assert.equal(status.current.paired, true);
  assert.equal(status.current.daemon_reachable, true);
  await p.stop();
  assert.equal(p.running, false);
});

test('401 marks the extension unpaired and waits before retrying', async () => {
  const { makeClient, calls } = scripted([new DaemonError(401, 'unauthorized', 'bad token')]);
  const status = statusRecorder();
  const waits = [];
  const p = new Poller({
    loadConfig: async () => ({ token: 'old', port: 1 }),
    makeClient,
    dispatch: () => {},
    status,
    backoff: fastBackoff(),
    unauthorizedRetryMs: 60000,
    wait: (ms, signal) => {
      waits.push(ms);
      return sleep(ms, signal);
    },
  });
  p.start();
  await until(() => status.current.token_rejected === true, '401 handling');
  assert.equal(status.current.paired, false);
  assert.match(status.current.last_error, /gasoline pair/);
  await until(() => waits.length > 0, 'the wait after the 401');
  assert.deepEqual(waits, [60000], 'no fast retry after 401: the loop waits unauthorizedRetryMs');
  assert.equal(calls.length, 1, 'no fast retry after 401');
  p.reconfigure(); // a new token: poll again at once
  await until(() => calls.length === 2, 'poll after reconfigure');
  await p.stop();
});

test('an unreachable daemon is retried with backoff and recovers', async () => {
  const down = new NetworkError('cannot reach the daemon');
  const { makeClient, calls } = scripted([down, down, down, []]);
  const status = statusRecorder();
  let lost = 0;
  const p = new Poller({ loadConfig: async () => ({ token: 't', port: 1 }), makeClient, dispatch: () => {}, status, backoff: fastBackoff(), onLost: () => lost++ });
  p.start();
  await until(() => calls.length === 5, 'recovery');
  assert.equal(lost, 3, 'onLost is told of each unreachable turn (a daemon that comes back may be a new one)');
  assert.ok(status.updates.some((u) => u.daemon_reachable === false));
  assert.equal(status.current.daemon_reachable, true);
  assert.equal(status.current.last_error, null);
  await p.stop();
});

test('an answer from a daemon that started at another time is a lost daemon too (restarted between two polls)', async () => {
  const answer = (started) => () => Promise.resolve([]).then((q) => {
    args.at(-1).onStarted?.(started);
    return q;
  });
  const { makeClient, calls, args } = scripted([answer('t1'), answer('t1'), answer('t2'), answer('t2')]);
  let lost = 0;
  const p = new Poller({ loadConfig: async () => ({ token: 't', port: 1 }), makeClient, dispatch: () => {}, status: statusRecorder(), onLost: () => lost++ });
  p.start();
  await until(() => calls.length === 5, 'four answers');
  assert.equal(lost, 1, 'one new daemon seen');
  await p.stop();
});

test('without a token the loop ends; start() after pairing begins it again', async () => {
  let token = '';
  const { makeClient, calls } = scripted([]);
  const status = statusRecorder();
  const p = new Poller({ loadConfig: async () => ({ token, port: 1 }), makeClient, dispatch: () => {}, status });
  p.start();
  await p.done;
  assert.equal(p.running, false);
  assert.equal(calls.length, 0);
  assert.equal(status.current.paired, false);
  token = 'new';
  p.reconfigure();
  await until(() => calls.length === 1, 'poll with the new token');
  assert.equal(calls[0].token, 'new');
  await p.stop();
});

test('an answer the paired daemon did not sign is dropped, counted, and polled again with backoff', async () => {
  const forged = () => new SignatureError('not signed by the daemon this extension paired with');
  const { makeClient, calls } = scripted([forged(), forged(), [{ correlation_id: 'real' }]]);
  const dispatched = [];
  const status = statusRecorder();
  const p = new Poller({
    loadConfig: async () => ({ token: 't', port: 4242 }), makeClient, dispatch: (q) => dispatched.push(q.correlation_id), status, backoff: fastBackoff(),
  });
  p.start();
  await until(() => calls.length === 4, 'polls after the dropped answers');
  assert.deepEqual(dispatched, ['real'], 'nothing from an unsigned answer is dispatched');
  assert.equal(status.current.dropped_batches, 2);
  assert.ok(status.updates.some((u) => /127\.0\.0\.1:4242.*nothing in it was run/.test(u.last_error ?? '')));
  assert.notEqual(status.current.paired, false, 'an impostor cannot unpair the extension');
  await p.stop();
});

test('a config read in flight during reconfigure is read again, never polled with', async () => {
  let token = 'old';
  const reads = [];
  const { makeClient, calls } = scripted([]);
  const p = new Poller({
    loadConfig: () => {
      const d = deferred();
      reads.push(d);
      return d.promise;
    },
    makeClient,
    dispatch: () => {},
    status: statusRecorder(),
  });
  p.start();
  await until(() => reads.length === 1, 'first config read');
  token = 'new';
  p.reconfigure(); // while the first read is in flight
  reads[0].resolve({ token: 'old', port: 1 }); // the read predates the change
  await until(() => reads.length === 2, 'config read again');
  reads[1].resolve({ token, port: 2 });
  await until(() => calls.length === 1, 'the poll');
  assert.deepEqual(calls.map((c) => c.token), ['new'], 'no poll with the old token');
  await p.stop();
});

test('after reconfigure nothing from an earlier poll is dispatched', async () => {
  const answer = deferred();
  const { makeClient, calls } = scripted([() => answer.promise]); // a poll that ignores its abort signal
  const dispatched = [];
  let token = 't';
  const p = new Poller({ loadConfig: async () => ({ token, port: 1 }), makeClient, dispatch: (q) => dispatched.push(q.correlation_id), status: statusRecorder() });
  p.start();
  await until(() => calls.length === 1, 'first poll');
  token = ''; // Unpair: the token is removed, then reconfigure()
  p.reconfigure();
  answer.resolve([{ correlation_id: 'late' }]);
  await until(() => !p.running, 'the loop ends without a token');
  assert.deepEqual(dispatched, [], 'a command received for the removed token was dispatched');
  assert.equal(calls.length, 1);
});

test('a reconfigure while the loop is ending is not lost', async () => {
  let token = '';
  const { makeClient, calls } = scripted([]);
  const p = new Poller({ loadConfig: async () => ({ token, port: 1 }), makeClient, dispatch: () => {}, status: statusRecorder() });
  p.start();
  // The loop has seen no token and is about to end; pairing stores a token
  // and calls reconfigure() before the loop's end has been processed.
  await Promise.resolve();
  await Promise.resolve();
  token = 'fresh';
  p.reconfigure();
  await until(() => calls.length === 1, 'poll with the new token');
  assert.equal(calls[0].token, 'fresh');
  await p.stop();
});

test('after stop nothing more is dispatched', async () => {
  const answer = deferred();
  const { makeClient, calls } = scripted([() => answer.promise]);
  const dispatched = [];
  const p = new Poller({ loadConfig: async () => ({ token: 't', port: 1 }), makeClient, dispatch: (q) => dispatched.push(q), status: statusRecorder() });
  p.start();
  await until(() => calls.length === 1, 'the poll in flight');
  const stopped = p.stop();
  answer.resolve([{ correlation_id: 'late' }]);
  await stopped;
  assert.deepEqual(dispatched, []);
});

test('a daemon that answered a short while ago is looked for every 300 ms at most; one long gone, with the usual backoff', async () => {
  const down = new NetworkError('cannot reach the daemon');
  const { makeClient } = scripted([[], down, down, down, down, down, down, down, down]);
  let clock = 1_000_000;
  const waits = [];
  const p = new Poller({
    loadConfig: async () => ({ token: 't', port: 1 }),
    makeClient,
    dispatch: () => {},
    status: statusRecorder(),
    backoff: new Backoff({ baseMs: 250, maxMs: 5000, random: () => 1 }),
    now: () => clock,
    wait: async (ms) => {
      waits.push(ms);
      if (waits.length === 4) clock += RECENT_DAEMON_MS; // the daemon has now been gone a long while
    },
  });
  p.start();
  await until(() => waits.length === 8, 'eight waits');
  await p.stop();
  // Seen just before: 250 then capped at 300 however many attempts fail.
  assert.deepEqual(waits.slice(0, 4), [250, RECONNECT_CAP_MS, RECONNECT_CAP_MS, RECONNECT_CAP_MS]);
  // Gone for RECENT_DAEMON_MS: the backoff's own growth, up to its maximum.
  assert.deepEqual(waits.slice(4), [4000, 5000, 5000, 5000]);
});

test('reconnectDelay caps only while the daemon was seen recently', () => {
  const b = () => new Backoff({ baseMs: 4000, maxMs: 4000, random: () => 1 });
  assert.equal(reconnectDelay(b(), 0), RECONNECT_CAP_MS);
  assert.equal(reconnectDelay(b(), RECENT_DAEMON_MS - 1), RECONNECT_CAP_MS);
  assert.equal(reconnectDelay(b(), RECENT_DAEMON_MS), 4000);
  assert.equal(reconnectDelay(b(), Infinity), 4000);
});

test('ready is awaited before the first poll', async () => {
  const { makeClient, calls } = scripted([]);
  const gate = deferred();
  let asked = false;
  const p = new Poller({ loadConfig: async () => ({ token: 't', port: 1 }), makeClient, dispatch: () => {}, status: statusRecorder(),
    ready: () => { asked = true; return gate.promise; }, backoff: fastBackoff() });
  p.start();
  await until(() => asked, 'the loop waiting on ready');
  await new Promise((r) => setImmediate(r)); // every promise callback that could run without ready has run
  assert.equal(calls.length, 0, 'no poll before the registration is in place');
  gate.resolve();
  await until(() => calls.length === 1, 'the first poll');
  await p.stop();
});

test('each poll carries frames(); an agent_at in the answer reaches onAgent after the answer, not for a stale generation', async () => {
  const agent = [];
  let since = 0;
  const steps = [
    (signal, opts) => {
      opts.onAgent(1234);
      return Promise.resolve([]);
    },
  ];
  const calls = [];
  const makeClient = () => ({
    pendingQueries: (opts) => {
      calls.push(opts);
      const step = steps.shift();
      if (step) return step(opts.signal, opts);
      return new Promise((_, reject) => opts.signal.addEventListener('abort', () => reject(opts.signal.reason)));
    },
  });
  const p = new Poller({ loadConfig: async () => ({ token: 't', port: 1 }), makeClient, dispatch: () => {}, status: statusRecorder(),
    frames: () => since, onAgent: (at) => {
      agent.push(at);
      since = 5678;
    }, backoff: fastBackoff() });
  p.start();
  await until(() => calls.length === 2, 'the second poll');
  assert.deepEqual(agent, [1234]);
  assert.deepEqual(calls.map((c) => c.frames), [0, 5678]);
  await p.stop();
});

test('tell sends frames() at once in a poll that does not wait, beside the held one, and dispatches what it brings', async () => {
  let since = 0;
  const calls = [];
  const makeClient = () => ({
    pendingQueries: (opts) => {
      calls.push(opts);
      if (opts.waitMs === 0) return Promise.resolve([{ correlation_id: 'queued' }]);
      return new Promise((_, reject) => opts.signal.addEventListener('abort', () => reject(opts.signal.reason)));
    },
  });
  const dispatched = [];
  const p = new Poller({ loadConfig: async () => ({ token: 't', port: 1 }), makeClient, dispatch: (q) => dispatched.push(q.correlation_id),
    status: statusRecorder(), frames: () => since, held: () => [{ tab_id: 7, origin: 'https://shop.example', events: since ? 2 : 0 }], backoff: fastBackoff() });
  await p.tell(); // not running: nothing
  assert.equal(calls.length, 0);
  p.start();
  await until(() => calls.length === 1, 'the held poll');
  since = 5678;
  await p.tell();
  assert.equal(calls.length, 2);
  assert.deepEqual({ waitMs: calls[1].waitMs, frames: calls[1].frames }, { waitMs: 0, frames: 5678 });
  assert.equal(calls[1].held[0].events, 2, 'tell carries what is held now');
  assert.ok(calls[1].framesAt >= calls[0].framesAt && calls[0].framesAt > 0, 'each report says when it was read: the daemon keeps the latest');
  assert.deepEqual(dispatched, ['queued']);
  assert.equal(calls[0].signal.aborted, false, 'the held poll goes on');
  await p.stop();
});

test('the next poll waits until the commands it brought reached their tab, HEAD_START_MS at most', async () => {
  const { makeClient, calls } = scripted([[{ correlation_id: 'a' }], [{ correlation_id: 'b' }]]);
  const reachedA = deferred();
  const caps = []; // the HEAD_START_MS waits, each released by the test
  const p = new Poller({
    loadConfig: async () => ({ token: 't', port: 1 }),
    makeClient,
    dispatch: (q) => (q.correlation_id === 'a' ? reachedA.promise : new Promise(() => {})),
    status: statusRecorder(),
    backoff: fastBackoff(),
    wait: (ms, signal) => {
      if (ms !== HEAD_START_MS) return sleep(ms, signal);
      const cap = deferred();
      caps.push(cap);
      return cap.promise;
    },
  });
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
  };
  p.start();
  await until(() => caps.length === 1, 'a dispatched');
  await settle();
  assert.equal(calls.length, 1, 'no poll while a is choosing its tab');
  reachedA.resolve();
  await until(() => calls.length === 2, 'the poll once a reached its tab');
  await until(() => caps.length === 2, 'b dispatched');
  await settle();
  assert.equal(calls.length, 2, 'b, which never reaches a tab, holds the poll until HEAD_START_MS');
  caps[1].resolve();
  await until(() => calls.length === 3, 'the poll after HEAD_START_MS');
  await p.stop();
});
