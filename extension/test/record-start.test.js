// capture/record.js coming after DOMContentLoaded with capture/tap.js's held events: a
// held event is stamped when it happened, not when the recorder came, and
// a top document reached by navigation that is already "complete" at
// its coming still gets its "appeared" watch. The recorder as shipped
// (dist/end-isolated.js: its modules bundled, after the engine, which
// stands down for the stub engine here) loaded in a bare context (the
// engine's own tests are engine.test.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const tapSrc = readFileSync(new URL('../capture/tap.js', import.meta.url), 'utf8');
const recordSrc = readFileSync(new URL('../dist/end-isolated.js', import.meta.url), 'utf8');
const askSrc = readFileSync(new URL('../capture/ask.js', import.meta.url), 'utf8');

const engine = {
  roleOf: () => 'button',
  nameOf: () => 'Save',
  cssOf: (el) => `#${el.id}`,
  locatorOf: () => ({ by: 'role', role: 'button', name: 'Save' }),
  clip: (s) => s,
  norm: (s) => String(s ?? '').trim(),
  isSecret: () => false,
  pageView: { visible: () => true },
  shadowOf: () => null,
};

/**
 * loadAt runs tap.js while the document is in readyState start, then
 * record.js once it is in end (its coming after DOMContentLoaded); now is the wall clock,
 * timeOrigin the page's. It returns the records, fire(type, event) and
 * the querySelectorAll calls (the arrival watch).
 */
function loadAt({ start, end, now, timeOrigin = now - 5000, slept = 0, referrer = 'http://x/from', ask = false, parsedAt = 0 }) {
  const listeners = [];
  const observers = [];
  const records = [];
  const arrivals = [];
  const document = {
    readyState: start,
    referrer,
    documentElement: { nodeType: 1 },
    addEventListener: () => {},
    querySelectorAll: (sel) => {
      arrivals.push(sel);
      return [];
    },
  };
  const ctx = vm.createContext({
    document,
    addEventListener: (type, fn) => listeners.push({ type, fn }),
    setTimeout: () => 0,
    clearTimeout: () => {},
    MutationObserver: class {
      constructor(fn) {
        this.fn = fn;
        observers.push(this);
      }
      observe() {
        this.on = true;
      }
      disconnect() {
        this.on = false;
      }
      takeRecords() {
        return [];
      }
    },
    performance: { timeOrigin, now: () => now - timeOrigin - slept, // the monotonic clock stops while the machine sleeps
      getEntriesByType: (type) => (type === 'navigation' && parsedAt ? [{ domContentLoadedEventEnd: parsedAt }] : []) },
    Date: { now: () => now },
    Math,
    Number,
    JSON,
    Object,
    gasolineEngine: engine,
    gasolineRecord: (r) => records.push(r),
  });
  ctx.window = ctx;
  ctx.top = ctx;
  ctx.chrome = { runtime: { sendMessage: async () => {} } };
  vm.runInContext(tapSrc, ctx);
  if (ask) vm.runInContext(askSrc, ctx); // a document loaded idle (dist/start-isolated-idle.js)
  const fire = (type, e) => {
    for (const l of listeners) if (l.type === type) l.fn({ type, composedPath: () => [e.at], target: e.at, ...e });
  };
  return {
    records,
    arrivals,
    fire,
    mutate: (ms) => observers.filter((o) => o.on).forEach((o) => o.fn(ms)),
    recorder() {
      document.readyState = end;
      vm.runInContext(recordSrc, ctx);
    },
  };
}

test('a click tap.js held while the page parsed is stamped when it happened, not when the recorder came', () => {
  const now = 1_700_000_000_000;
  const p = loadAt({ start: 'loading', end: 'interactive', now, timeOrigin: now - 5000 });
  p.fire('click', { isTrusted: true, at: { nodeType: 1, id: 'save', closest: () => null }, timeStamp: 1200 });
  p.recorder();
  const clicks = p.records.filter((r) => r.type === 'click');
  assert.equal(clicks.length, 1);
  assert.equal(clicks[0].ts, now - 5000 + 1200, 'now less the event\'s age (performance.now() - timeStamp)');
});

test('after the machine slept, a click is stamped now less its age, not hours back', () => {
  const now = 1_700_000_000_000;
  const p = loadAt({ start: 'loading', end: 'interactive', now, timeOrigin: now - 8 * 3600e3, slept: 8 * 3600e3 - 5000 });
  p.recorder();
  p.fire('click', { isTrusted: true, at: { nodeType: 1, id: 'save', closest: () => null }, timeStamp: 4900 });
  assert.equal(p.records.find((r) => r.type === 'click')?.ts, now - 100);
});

test('an event without a usable timeStamp is stamped now', () => {
  const now = 1_700_000_000_000;
  const p = loadAt({ start: 'loading', end: 'interactive', now });
  p.recorder();
  p.fire('click', { isTrusted: true, at: { nodeType: 1, id: 'save', closest: () => null } });
  assert.equal(p.records.find((r) => r.type === 'click')?.ts, now);
});

test('a top document reached by navigation watches what it arrived with, also when already complete when the recorder comes', () => {
  for (const end of ['interactive', 'complete']) {
    const p = loadAt({ start: 'loading', end, now: 1e12 });
    p.recorder();
    assert.equal(p.arrivals.length, 1, `${end}: the arrival watch ran`);
  }
});

test('a recorder brought in long after its document was parsed (an agent\'s look at a page loaded idle) watches no arrival', () => {
  const now = 1e12;
  // The page's clock reads 60 s when the recorder comes.
  for (const [ago, watched] of [[1000, 1], [4900, 1], [5000, 0], [59000, 0]]) {
    const p = loadAt({ start: 'loading', end: 'complete', now, timeOrigin: now - 60000, parsedAt: 60000 - ago });
    p.recorder();
    assert.equal(p.arrivals.length, watched, `parsed ${ago} ms before the recorder came`);
  }
});

test('a document the recorder was brought into late (tap.js ran when it was complete) watches no arrival', () => {
  const p = loadAt({ start: 'complete', end: 'complete', now: 1e12 });
  p.recorder();
  assert.deepEqual(p.arrivals, []);
});

test('a document whose recorder the user\'s first input asked for (capture/ask.js) watches no arrival, and records what the held click made appear before the recorder came', () => {
  const p = loadAt({ start: 'loading', end: 'complete', now: 1e12, ask: true });
  const shown = { nodeType: 3, data: 'Saved!', parentElement: { isConnected: true, closest: () => null, textContent: 'Saved!' } };
  p.fire('pointerdown', { isTrusted: true, at: { nodeType: 1, id: 'save', closest: () => null } });
  p.fire('click', { isTrusted: true, at: { nodeType: 1, id: 'save', closest: () => null } });
  p.mutate([{ type: 'childList', addedNodes: [shown], removedNodes: [] }]); // the page's handler ran before the recorder came
  p.recorder();
  assert.deepEqual(p.arrivals, [], 'what the page shows now is not what it arrived with');
  p.fire('pagehide', {}); // ends the click's watch
  assert.deepEqual(p.records.map((r) => [r.type, r.selector, r.text]), [['click', '#save', undefined], ['appeared', '#save', 'Saved!']]);
});
