// Unit tests of the settle state machine (capture/settle.js) with a fake
// clock and timers: what an action started is followed to its end, a cap
// bounds it, and the result says what was still pending.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Settler, QUIET_MS, QUIET_CLEAN_MS } from '../capture/settle.js';

const tick = () => new Promise((r) => setImmediate(r));

class Clock {
  constructor() {
    this.t = 0;
    this.queue = [];
  }

  now = () => this.t;

  setTimeout = (f, ms) => {
    const x = { at: this.t + ms, f };
    this.queue.push(x);
    return x;
  };

  clearTimeout = (x) => {
    this.queue = this.queue.filter((y) => y !== x);
  };

  /** run advances to ms, firing due timers in order and letting promises settle. */
  async run(ms) {
    const end = this.t + ms;
    await tick();
    for (;;) {
      this.queue.sort((a, b) => a.at - b.at);
      const x = this.queue[0];
      if (!x || x.at > end) break;
      this.queue.shift();
      this.t = x.at;
      x.f();
      await tick();
    }
    this.t = end;
    await tick();
  }
}

// setup's Settler waits QUIET_MS after a clean answer too (quietCleanMs),
// unless told otherwise: most tests here are about what comes after it.
function setup({ capMs = 2000, probe, load = false, quietCleanMs = QUIET_MS } = {}) {
  const c = new Clock();
  const s = new Settler({ capMs, probe: probe ?? (async () => ({ timers: 0, due_ms: 0 })), now: c.now, timers: c, load, quietCleanMs });
  let out = null;
  const start = () => s.settle().then((r) => {
    out = { ...r, at: c.t };
  });
  return { c, s, start, result: () => out };
}

test('timers that were pending when last asked, due just as the cap comes, are reported, not taken as quiet', async () => {
  // The page always has a timer to run (a clock); the last answer's due time
  // falls on the cap, so no probe follows it: the wait ends at the cap with
  // the timer pending, never settled.
  const capMs = 1000;
  let probes = 0;
  const { c, start, result } = setup({ capMs, load: true, probe: async () => (probes++, { timers: 1, due_ms: capMs - 5, page: true }) });
  start();
  await c.run(capMs + 50);
  assert.equal(probes, 1);
  assert.deepEqual(result(), { settled: false, at: capMs, pending: ['1 timer(s) the page set while loading or in their callbacks'] });
});

test('nothing follows: settled after the quiet window', async () => {
  const { c, start, result } = setup();
  start();
  await c.run(QUIET_MS - 1);
  assert.equal(result(), null);
  await c.run(1);
  assert.deepEqual(result(), { settled: true, at: QUIET_MS });
});

test('a page that answers it has run what the action queued is settled QUIET_CLEAN_MS after its answer', async () => {
  const { c, start, result } = setup({ quietCleanMs: QUIET_CLEAN_MS });
  start();
  await c.run(QUIET_CLEAN_MS - 1);
  assert.equal(result(), null);
  await c.run(1);
  assert.deepEqual(result(), { settled: true, at: QUIET_CLEAN_MS });
});

test('after a clean answer, what the browser then reports is followed with the whole quiet window', async () => {
  const { c, s, start, result } = setup({ quietCleanMs: QUIET_CLEAN_MS });
  start();
  await c.run(1);
  s.navStarted('http://x/next'); // location.href set by the handler: the page cannot say it
  await c.run(50);
  assert.equal(result(), null, 'navigating');
  s.navCommitted('http://x/next');
  s.navReady();
  await c.run(QUIET_MS - 1);
  assert.equal(result(), null, 'the new document gets QUIET_MS, not QUIET_CLEAN_MS');
  await c.run(1);
  assert.deepEqual(result(), { settled: true, at: 51 + QUIET_MS });
});

test('an answer with timers, requests or a navigation to come is not clean', async () => {
  for (const answer of [{ timers: 1, due_ms: 0 }, { timers: 0, action_requests: 1 }, { timers: 0, navigating: true }, null, { timers: 0, page: false }]) {
    let c;
    const t = setup({
      quietCleanMs: QUIET_CLEAN_MS,
      probe: async () => (c.t < 100 ? answer : { timers: 0, due_ms: 0 }), // the page's answer for its first 100 ms
    });
    c = t.c;
    const { start, result } = t;
    start();
    await c.run(QUIET_CLEAN_MS + 1);
    assert.equal(result(), null, `settled ${QUIET_CLEAN_MS} ms after the answer ${JSON.stringify(answer)}`);
    await c.run(3000);
  }
});

test('a navigation is followed to DOMContentLoaded, then quiet', async () => {
  const { c, s, start, result } = setup();
  start();
  await c.run(5);
  s.navStarted('http://x/welcome');
  await c.run(100);
  s.navCommitted('http://x/welcome');
  await c.run(300);
  assert.equal(result(), null, 'still loading');
  s.navReady();
  await c.run(QUIET_MS);
  assert.deepEqual(result(), { settled: true, at: 405 + QUIET_MS });
});

test('requests are followed to their end', async () => {
  const { c, s, start, result } = setup();
  s.requestStarted('1', { method: 'GET', url: 'http://x/api' });
  start();
  await c.run(500);
  assert.equal(result(), null);
  s.requestEnded('1');
  await c.run(QUIET_MS);
  assert.equal(result().settled, true);
});

test('short timers the action scheduled are waited for, then probed again', async () => {
  let timers = 1;
  let probes = 0;
  const { c, start, result } = setup({
    probe: async () => {
      probes++;
      return { timers, due_ms: 200 };
    },
  });
  start();
  await c.run(150);
  assert.equal(result(), null, 'the timer is not due yet');
  timers = 0; // it ran
  await c.run(60);
  await c.run(QUIET_MS);
  assert.equal(result()?.settled, true);
  assert.equal(probes, 2);
});

test('the cap ends it, saying what was pending', async () => {
  const { c, s, start, result } = setup({ capMs: 1000 });
  s.requestStarted('7', { method: 'GET', url: 'http://x/poll' });
  s.navStarted('http://x/slow');
  start();
  await c.run(1000);
  assert.equal(result().settled, false);
  assert.equal(result().at, 1000);
  assert.deepEqual(result().pending, ['navigation to http://x/slow (not committed)', 'request GET http://x/poll']);
});

test('settle_ms 0 reports at once and does not probe', async () => {
  let probed = false;
  const { c, start, result } = setup({ capMs: 0, probe: async () => { probed = true; return null; } });
  start();
  await c.run(0);
  assert.equal(result().settled, false);
  assert.equal(probed, false);
});

test('a submitted form that has not started navigating yet is waited for', async () => {
  const { c, s, start, result } = setup({ probe: async () => ({ timers: 0, due_ms: 0, navigating: true }) });
  start();
  await c.run(200);
  assert.equal(result(), null, 'waiting for the navigation to begin');
  s.navStarted('http://x/welcome');
  s.navReady();
  await c.run(QUIET_MS);
  assert.equal(result()?.settled, true);
});

test('a navigation that was announced but never begins ends the wait after NAV_START_MS', async () => {
  const { c, start, result } = setup({ probe: async () => ({ timers: 0, due_ms: 0, navigating: true }) });
  start();
  await c.run(1000 + QUIET_MS);
  assert.equal(result()?.settled, true);
});

test('a fetch the page started during the action is followed until the page has read it', async () => {
  let reading = 1;
  const { c, start, result } = setup({ probe: async () => ({ timers: 0, due_ms: 0, action_requests: reading }) });
  start();
  await c.run(300);
  assert.equal(result(), null, 'the page is still reading it');
  reading = 0;
  await c.run(25 + QUIET_MS);
  assert.equal(result()?.settled, true);
});

test('a tab the action opened is followed to its DOMContentLoaded, and named while loading', async () => {
  const { c, s, start, result } = setup({ capMs: 1000 });
  start();
  await c.run(5);
  s.tabOpened(42, 'http://x/ticket');
  await c.run(300);
  assert.equal(result(), null, 'the new tab is still loading');
  s.tabReady(42);
  await c.run(QUIET_MS);
  assert.deepEqual(result(), { settled: true, at: 305 + QUIET_MS });

  const late = setup({ capMs: 1000 });
  late.s.tabOpened(43, 'http://x/slow');
  late.start();
  await late.c.run(1000);
  assert.deepEqual(late.result().pending, ['new tab 43 loading http://x/slow']);
});

test('a form submitted into a new tab is not awaited in this one', async () => {
  const { c, s, start, result } = setup({ probe: async () => ({ timers: 0, due_ms: 0, navigating: true }) });
  start();
  await c.run(50);
  s.tabOpened(44, 'http://x/ticket');
  await c.run(100);
  s.tabReady(44);
  await c.run(QUIET_MS);
  assert.deepEqual(result(), { settled: true, at: 150 + QUIET_MS });
});

test('a new tab opened before the page says a navigation comes is not awaited in this one', async () => {
  const { c, s, start, result } = setup({ probe: async () => ({ timers: 0, due_ms: 0, navigating: true }) });
  s.tabOpened(45, 'http://x/ticket');
  start();
  await c.run(100);
  s.tabReady(45);
  await c.run(QUIET_MS);
  assert.deepEqual(result(), { settled: true, at: 100 + QUIET_MS });
});

test('after a navigation reaches its new document, the timers that document set while loading are waited for', async () => {
  let doc = 'old';
  let timers = 0;
  const asked = [];
  const { c, s, start, result } = setup({
    probe: async () => {
      asked.push(doc);
      return { timers: doc === 'new' ? timers : 0, due_ms: 300 };
    },
  });
  start();
  await c.run(5);
  s.navStarted('http://x/dashboard');
  doc = 'new';
  timers = 1;
  s.navCommitted('http://x/dashboard');
  await c.run(100);
  s.navReady();
  await c.run(QUIET_MS + 50);
  assert.equal(result(), null, 'the new document\'s timer is not due yet');
  timers = 0; // it ran
  await c.run(300);
  await c.run(QUIET_MS);
  assert.equal(result()?.settled, true);
  assert.deepEqual(asked, ['old', 'new', 'new']);
});

test('a navigated page that never stops setting timers ends at the cap, named as the page\'s', async () => {
  const { c, s, start, result } = setup({ capMs: 1000, probe: async () => ({ timers: 1, due_ms: 50 }) });
  s.navStarted('http://x/ticker');
  s.navReady();
  start();
  await c.run(1000);
  assert.deepEqual(result(), { settled: false, at: 1000, pending: ['1 timer(s) the page set while loading or in their callbacks'] });
});

test('following a load (navigate), pending names what the page started while loading', async () => {
  const { c, start, result } = setup({ capMs: 500, load: true, probe: async () => ({ timers: 2, due_ms: 50, action_requests: 1 }) });
  start();
  await c.run(500);
  assert.deepEqual(result().pending, ['1 fetch/XHR the page started while loading (still being read)', '2 timer(s) the page set while loading or in their callbacks']);
});

test('following a load, a page that does not answer is asked again, not taken as quiet', async () => {
  const answers = [null, { timers: 1, due_ms: 100 }, { timers: 0, due_ms: 0 }];
  const { c, start, result } = setup({ capMs: 1000, load: true, probe: async () => (answers.length ? answers.shift() : { timers: 0 }) });
  start();
  await c.run(90);
  assert.equal(result(), null, 'the second answer has a timer to wait for');
  await c.run(30 + QUIET_MS);
  assert.equal(result()?.settled, true);
  assert.equal(answers.length, 0);
});

test('following a load, a relay answer without the page script\'s count (page: false) is no answer: asked again, not taken as quiet', async () => {
  const answers = [{ timers: 0, due_ms: 0, page: false }, { timers: 1, due_ms: 100, page: true }, { timers: 0, due_ms: 0, page: true }];
  const { c, start, result } = setup({ capMs: 1000, load: true, probe: async () => (answers.length ? answers.shift() : { timers: 0 }) });
  start();
  await c.run(90);
  assert.equal(result(), null, 'the second answer has a timer to wait for');
  await c.run(30 + QUIET_MS);
  assert.equal(result()?.settled, true);
  assert.equal(answers.length, 0);
});

test('following a load, a page that never answers is asked twice, then reported as not known to be quiet', async () => {
  let probes = 0;
  const { c, start, result } = setup({ capMs: 2000, load: true, probe: async () => (probes++, null) });
  start();
  await c.run(500);
  assert.equal(probes, 2);
  assert.deepEqual(result(), { settled: false, at: QUIET_MS, pending: ['the page did not answer whether it is still working (busy, or frozen)'] });
});

test('after an action, a page that does not answer is taken as quiet, as before', async () => {
  const { c, start, result } = setup({ probe: async () => null });
  start();
  await c.run(QUIET_MS);
  assert.equal(result()?.settled, true);
});

test('a probe slower than the reprobe interval still ends at the cap', async () => {
  const c = new Clock();
  const s2 = new Settler({ capMs: 500, load: true, now: c.now, timers: c, probe: () => new Promise((r) => c.setTimeout(() => r(null), 200)) });
  let out = null;
  s2.settle().then((r) => { out = { ...r, at: c.t }; });
  await c.run(800);
  assert.equal(out?.settled, false);
  assert.ok(out.at <= 700, `ended at ${out.at}`);
});

test('long-lived requests do not hold settling and are named as streaming', async () => {
  // A WebSocket the action opened, an event stream its headers revealed,
  // and a long poll the page names: none is waited for.
  const { c, s, start, result } = setup({
    probe: async () => ({ timers: 0, due_ms: 0, action_requests: 0, streams: [{ method: 'GET', url: 'http://x/poll?since=4', kind: 'long poll' }] }),
  });
  s.requestStarted('ws', { method: 'GET', url: 'ws://x/live', stream: 'websocket' });
  s.requestStarted('es', { method: 'GET', url: 'http://x/events' });
  s.requestStarted('lp', { method: 'GET', url: 'http://x/poll?since=4' });
  s.requestStreaming('es', { method: 'GET', url: 'http://x/events', stream: 'sse' });
  start();
  await c.run(QUIET_MS);
  assert.deepEqual(result(), {
    settled: true, at: QUIET_MS,
    streaming: ['GET /live (websocket)', 'GET /events (sse)', 'GET /poll?since=4 (long poll)'],
  });
});

test('a stream the page names late releases the request it held; the rest of the action is still waited for', async () => {
  let streams = [];
  let reading = 1;
  const { c, s, start, result } = setup({ probe: async () => ({ timers: 0, due_ms: 0, action_requests: reading, streams }) });
  s.requestStarted('lp', { method: 'GET', url: 'http://x/poll' });
  start();
  await c.run(400);
  assert.equal(result(), null, 'the poll is not known as one yet');
  streams = [{ method: 'GET', url: 'http://x/poll', kind: 'long poll' }];
  await c.run(100);
  assert.equal(result(), null, 'the action\'s own fetch is still being read');
  reading = 0;
  await c.run(100);
  assert.equal(result()?.settled, true);
  assert.deepEqual(result().streaming, ['GET /poll (long poll)']);
});

test('streaming names at most three, then a count', async () => {
  const { c, s, start, result } = setup();
  s.noteStreams([1, 2, 3, 4, 5].map((i) => ({ method: 'GET', url: `http://x/s${i}`, kind: 'sse' })));
  start();
  await c.run(QUIET_MS);
  assert.deepEqual(result().streaming, ['GET /s1 (sse)', 'GET /s2 (sse)', 'GET /s3 (sse)', '2 more']);
});

test('the streams the action started are named first', async () => {
  const { c, s, start, result } = setup();
  s.noteStreams([1, 2, 3].map((i) => ({ method: 'GET', url: `http://x/s${i}`, kind: 'sse' })));
  s.requestStarted('a', { method: 'POST', url: 'http://x/answer' });
  s.requestStreaming('a', { method: 'POST', url: 'http://x/answer', stream: 'sse' });
  start();
  await c.run(QUIET_MS);
  assert.deepEqual(result().streaming, ['POST /answer (sse)', 'GET /s1 (sse)', 'GET /s2 (sse)', '1 more']);
});
