// Unit tests of the command lifecycle (seed 000 timing) with mocked timers.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { runCommand, deadlineOf, errorText, CommandError, PENDING_AFTER_MS, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, PROBE_LEAD_MS, AFTER_MARGIN_MS } from '../runner.js';

// flush lets queued promise callbacks run between timer ticks.
const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

// harness runs one command whose execute() resolves or rejects when the test says.
function harness({ timeoutMs = 10000, probe, after } = {}) {
  const posts = [];
  const statuses = [];
  let settle;
  let signal;
  const done = runCommand({
    correlationId: 'exec_1',
    timeoutMs,
    execute: (s) => {
      signal = s;
      return new Promise((resolve, reject) => {
        settle = { resolve, reject };
      });
    },
    report: async (body) => {
      posts.push(body);
    },
    onStatus: (s) => statuses.push(s),
    timeoutMessage: (ms) => `ran past ${ms} ms`,
    probe,
    after,
  });
  return { posts, statuses, done, settle: () => settle, signal: () => signal };
}

test('command lifecycle', async (t) => {
  t.beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  t.afterEach(() => mock.timers.reset());

  await t.test('a fast command posts only its final status', async () => {
    const h = harness();
    await flush();
    mock.timers.tick(PENDING_AFTER_MS - 1);
    h.settle().resolve({ value: 1 });
    await h.done;
    mock.timers.tick(20000);
    await flush();
    assert.deepEqual(h.posts, [{ correlation_id: 'exec_1', status: 'complete', result: { value: 1 } }]);
    assert.deepEqual(h.statuses, ['complete']);
  });

  await t.test('a slow command posts pending at 2 s, then its final status', async () => {
    const h = harness();
    await flush();
    mock.timers.tick(PENDING_AFTER_MS);
    await flush();
    assert.deepEqual(h.posts, [{ correlation_id: 'exec_1', status: 'pending' }]);
    mock.timers.tick(3000);
    h.settle().resolve({ value: 'slow' });
    await h.done;
    assert.deepEqual(h.posts.map((p) => p.status), ['pending', 'complete']);
    assert.equal(h.signal().aborted, true, 'execute signal aborts once final');
  });

  await t.test('the deadline posts timeout and ignores a later completion', async () => {
    const h = harness({ timeoutMs: 5000 });
    await flush();
    mock.timers.tick(5000);
    await h.done;
    h.settle().resolve({ value: 'too late' });
    await flush();
    mock.timers.tick(60000);
    await flush();
    assert.deepEqual(h.posts, [
      { correlation_id: 'exec_1', status: 'pending' },
      { correlation_id: 'exec_1', status: 'timeout', error: 'ran past 5000 ms' },
    ]);
    assert.equal(h.signal().aborted, true);
  });

  await t.test('a deadline under 2 s posts no pending', async () => {
    const h = harness({ timeoutMs: 500 });
    await flush();
    mock.timers.tick(500);
    await h.done;
    mock.timers.tick(5000);
    await flush();
    assert.deepEqual(h.posts.map((p) => p.status), ['timeout']);
  });

  await t.test('a failing command posts error with its message', async () => {
    const h = harness();
    await flush();
    h.settle().reject(new CommandError('no tab with id 7'));
    await h.done;
    mock.timers.tick(20000);
    await flush();
    assert.deepEqual(h.posts, [{ correlation_id: 'exec_1', status: 'error', error: 'no tab with id 7' }]);
  });

  await t.test('a failure with a reason posts it, as navigated pages do', async () => {
    const h = harness();
    await flush();
    h.settle().reject(new CommandError('tab 7 navigated to http://x/', { reason: 'navigated' }));
    await h.done;
    await flush();
    assert.deepEqual(h.posts, [{ correlation_id: 'exec_1', status: 'error', error: 'tab 7 navigated to http://x/', reason: 'navigated' }]);
  });

  await t.test('a frozen tab fails the command with the probe\'s reason before the deadline, once', async () => {
    const probed = [];
    const h = harness({ probe: async () => {
      probed.push(1);
      return { reason: 'tab_unresponsive', error: 'tab 7 does not answer' };
    } });
    await flush();
    mock.timers.tick(10000 - PROBE_LEAD_MS - 1);
    await flush();
    assert.equal(probed.length, 0, 'not probed before the lead');
    mock.timers.tick(1);
    await flush();
    assert.equal(probed.length, 1);
    h.settle().resolve({ value: 'late' });
    mock.timers.tick(PROBE_LEAD_MS);
    await h.done;
    await flush();
    assert.deepEqual(h.posts.map((p) => p.status), ['pending', 'error']);
    assert.deepEqual(h.posts[1], { correlation_id: 'exec_1', status: 'error', error: 'tab 7 does not answer', reason: 'tab_unresponsive' });
    assert.ok(h.signal().aborted);
  });

  await t.test('a tab that answers the probe lets the command run to its deadline', async () => {
    const h = harness({ probe: async () => null });
    await flush();
    mock.timers.tick(10000 - PROBE_LEAD_MS);
    await flush();
    assert.deepEqual(h.posts.map((p) => p.status), ['pending']);
    mock.timers.tick(PROBE_LEAD_MS);
    await h.done;
    assert.deepEqual(h.posts.map((p) => p.status), ['pending', 'timeout']);
  });

  await t.test('a command that finishes first, or has a short deadline, is never probed', async () => {
    let probed = 0;
    const probe = async () => {
      probed++;
      return { reason: 'tab_unresponsive', error: 'x' };
    };
    const fast = harness({ probe });
    await flush();
    fast.settle().resolve({});
    await fast.done;
    mock.timers.tick(20000);
    await flush();
    const short = harness({ timeoutMs: 2000, probe });
    await flush();
    mock.timers.tick(2000);
    await short.done;
    assert.equal(probed, 0);
    assert.deepEqual(short.posts.map((p) => p.status), ['pending', 'timeout']);
  });

  await t.test('a synchronous throw in execute is an error, not a crash', async () => {
    const posts = [];
    await runCommand({
      correlationId: 'x',
      timeoutMs: 1000,
      execute: () => {
        throw new CommandError('unknown action foo');
      },
      report: async (b) => posts.push(b),
      timeoutMessage: () => '',
    });
    assert.deepEqual(posts, [{ correlation_id: 'x', status: 'error', error: 'unknown action foo' }]);
  });

  await t.test('the final post waits for the pending post and is posted once', async () => {
    const order = [];
    let releasePending;
    let settle;
    const done = runCommand({
      correlationId: 'c',
      timeoutMs: 10000,
      execute: () => new Promise((r) => (settle = r)),
      report: (body) => {
        order.push(`start ${body.status}`);
        if (body.status !== 'pending') return Promise.resolve();
        return new Promise((r) => (releasePending = () => { order.push('end pending'); r(); }));
      },
      timeoutMessage: () => '',
    });
    await flush();
    mock.timers.tick(PENDING_AFTER_MS);
    await flush();
    settle({});
    await flush();
    assert.deepEqual(order, ['start pending'], 'final not started while pending is in flight');
    releasePending();
    await done;
    assert.deepEqual(order, ['start pending', 'end pending', 'start complete']);
  });
});

test('after(): the flush that follows the action', async (t) => {
  t.beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'] }));
  t.afterEach(() => mock.timers.reset());

  await t.test('an action done near its deadline is complete, its flush cut to the time left', async () => {
    const budgets = [];
    const h = harness({ after: (outcome, budgetMs) => {
      budgets.push(budgetMs);
      outcome.result.capture = { complete: false };
      return new Promise(() => {}); // a flush that would run past the deadline
    } });
    await flush();
    mock.timers.tick(9000);
    h.settle().resolve({ value: 1 });
    await flush();
    assert.deepEqual(budgets, [1000 - AFTER_MARGIN_MS]);
    mock.timers.tick(1000 - AFTER_MARGIN_MS);
    await h.done;
    mock.timers.tick(5000);
    await flush();
    assert.deepEqual(h.posts.map((p) => p.status), ['pending', 'complete'], 'never timeout: the action ran');
    assert.deepEqual(h.posts[1].result, { value: 1, capture: { complete: false } });
  });

  await t.test('an action past its deadline minus the margin gets no flush time', async () => {
    const budgets = [];
    const h = harness({ after: (_, budgetMs) => {
      budgets.push(budgetMs);
      return new Promise(() => {});
    } });
    await flush();
    mock.timers.tick(9900);
    h.settle().resolve({});
    await flush();
    mock.timers.tick(0);
    await h.done;
    assert.deepEqual(budgets, [0]);
    assert.deepEqual(h.posts.map((p) => p.status), ['pending', 'complete']);
  });

  await t.test('once the action resolved, the probe neither starts nor decides', async () => {
    let probed = 0;
    let endFlush;
    const probe = async () => {
      probed++;
      return { reason: 'tab_unresponsive', error: 'busy' };
    };
    const h = harness({ probe, after: () => new Promise((resolve) => {
      endFlush = resolve;
    }) });
    await flush();
    mock.timers.tick(10000 - PROBE_LEAD_MS - 100);
    h.settle().resolve({ value: 'done' });
    await flush();
    mock.timers.tick(200); // the probe's time passes during the flush
    await flush();
    endFlush();
    await h.done;
    assert.equal(probed, 0);
    assert.deepEqual(h.posts.map((p) => p.status), ['pending', 'complete']);

    // A probe already asked when the action resolves: its verdict is ignored.
    let answer;
    const h2 = harness({ probe: () => new Promise((resolve) => {
      answer = resolve;
    }), after: async () => {} });
    await flush();
    mock.timers.tick(10000 - PROBE_LEAD_MS);
    await flush();
    h2.settle().resolve({ value: 'done' });
    await flush();
    answer({ reason: 'tab_unresponsive', error: 'busy' });
    await h2.done;
    await flush();
    assert.deepEqual(h2.posts.map((p) => p.status), ['pending', 'complete']);
  });

  await t.test('a failed action is reported as its error after the flush', async () => {
    const seen = [];
    const h = harness({ after: async (outcome) => seen.push(outcome.error.message) });
    await flush();
    h.settle().reject(new CommandError('no such element', { reason: 'not_found' }));
    await h.done;
    assert.deepEqual(seen, ['no such element']);
    assert.deepEqual(h.posts, [{ correlation_id: 'exec_1', status: 'error', error: 'no such element', reason: 'not_found' }]);
  });
});

test('deadlineOf', () => {
  const cases = [
    [{ timeout_ms: 2500 }, 2500],
    [{ timeout_ms: 0 }, DEFAULT_TIMEOUT_MS],
    [{}, DEFAULT_TIMEOUT_MS],
    [{ params: { timeout_ms: 1234 } }, DEFAULT_TIMEOUT_MS], // the deadline is the query's, never a param
    [{ timeout_ms: 'junk' }, DEFAULT_TIMEOUT_MS],
    [{ timeout_ms: 10 * MAX_TIMEOUT_MS }, MAX_TIMEOUT_MS],
  ];
  for (const [q, want] of cases) assert.equal(deadlineOf(q), want, JSON.stringify(q));
});

test('errorText', () => {
  assert.equal(errorText(new CommandError('plain')), 'plain');
  assert.equal(errorText(new TypeError('t')), 'TypeError: t');
  assert.equal(errorText(new Error('e')), 'e');
  assert.equal(errorText('s'), 's');
});
