// capture/ask.js, an idle document's recorder on demand: at the user's
// first trusted input it asks the worker for the recorder, once, and from
// the first held action on it keeps the page's mutations for the
// recorder; loaded after capture/tap.js in a bare context.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const tapSrc = readFileSync(new URL('../capture/tap.js', import.meta.url), 'utf8');
const askSrc = readFileSync(new URL('../capture/ask.js', import.meta.url), 'utf8');

/** plain is v as this realm's plain data (the context's objects are of another realm). */
const plain = (v) => JSON.parse(JSON.stringify(v));

/**
 * load runs tap.js and ask.js; fire(type, event) calls the window's
 * listeners; mutate(records) delivers mutations to the observers that
 * observe; sent lists the messages to the worker; timers the callbacks set.
 */
function load({ sendMessage } = {}) {
  const listeners = [];
  const sent = [];
  const observers = [];
  const timers = [];
  const ctx = vm.createContext({
    addEventListener: (type, fn, opts) => listeners.push({ type, fn, opts }),
    document: { readyState: 'complete' },
    setTimeout: (fn) => timers.push(fn),
    chrome: { runtime: { sendMessage: sendMessage ?? ((m) => { sent.push(m); return Promise.resolve(); }) } },
    MutationObserver: class {
      constructor(fn) {
        this.fn = fn;
        observers.push(this);
      }
      observe(target, opts) {
        this.on = { target, opts };
      }
      disconnect() {
        this.on = null;
      }
    },
  });
  vm.runInContext(tapSrc, ctx);
  vm.runInContext(askSrc, ctx);
  const fire = (type, e) => {
    for (const l of listeners) if (l.type === type) l.fn({ type, composedPath: () => [e.at], target: e.at, ...e });
  };
  const mutate = (ms) => {
    for (const o of observers) if (o.on) o.fn(ms);
  };
  return { ctx, listeners, sent, observers, timers, fire, mutate };
}

test('ask.js asks the worker for the recorder at the first trusted input, once, and tap.js still holds the events', () => {
  const { ctx, sent, observers, fire, listeners } = load();
  assert.ok(listeners.every((l) => l.opts.capture && l.opts.passive), 'capturing and passive, as tap.js');
  assert.equal(ctx.gasolineTap.asked, false);
  fire('click', { isTrusted: false, at: 'script' });
  assert.deepEqual(sent, [], 'a script\'s event asks nothing');
  fire('pointerdown', { isTrusted: true, at: 'save' });
  assert.deepEqual(plain(sent), [{ gasoline: 'capture', op: 'recorder' }]);
  assert.equal(ctx.gasolineTap.asked, true);
  assert.equal(observers.length, 0, 'a pointerdown is no action: nothing is watched yet');
  fire('click', { isTrusted: true, at: 'save' });
  assert.equal(sent.length, 1, 'asked once');
  const got = [];
  ctx.gasolineTap((type, e, at) => got.push([type, at]));
  assert.deepEqual(got, [['click', 'save']], 'tap.js held the click (a pointerdown is not held)');
});

test('ask.js keeps what the page changed from the first held action on, for the recorder, once', () => {
  const { ctx, observers, timers, fire, mutate } = load();
  fire('keydown', { isTrusted: true, key: 'a', at: 'field' });
  fire('input', { isTrusted: true, at: 'field' });
  assert.equal(observers.length, 0, 'typing is no action that shows anything');
  mutate([{ n: 0 }]);
  fire('keydown', { isTrusted: true, key: 'Enter', at: 'field' });
  assert.equal(observers.length, 1);
  assert.deepEqual(plain(observers[0].on.opts), { childList: true, subtree: true, characterData: true });
  fire('click', { isTrusted: true, at: 'save' });
  assert.equal(observers.length, 1, 'one watch, from the first action');
  mutate([{ n: 1 }, { n: 2 }]);
  mutate(Array.from({ length: 300 }, (_, i) => ({ n: 3 + i })));
  const ms = ctx.gasolineTap.changes();
  assert.equal(ms.length, 200, 'at most 200 records');
  assert.deepEqual(plain(ms.slice(0, 2).map((m) => m.n)), [1, 2], 'from the first action on, not before');
  assert.equal(observers[0].on, null, 'the recorder took them: the watch ends');
  assert.deepEqual([...ctx.gasolineTap.changes()], [], 'handed over once');
  assert.equal(timers.length, 1, 'and it ends by itself (2 s) if the recorder never comes');
});

test('ask.js asks nothing in a document that has the recorder, and a reloaded extension does not break the page\'s events', () => {
  const { ctx, sent, fire } = load();
  ctx.gasolineRecorder = true;
  fire('click', { isTrusted: true, at: 'save' });
  assert.deepEqual(sent, []);
  assert.equal(ctx.gasolineTap.changes().length, 0);

  const orphan = load({ sendMessage: () => { throw new Error('Extension context invalidated.'); } });
  assert.doesNotThrow(() => orphan.fire('click', { isTrusted: true, at: 'save' }));
  assert.equal(orphan.ctx.gasolineTap.asked, true);
  const got = [];
  orphan.ctx.gasolineTap((type, e, at) => got.push(at));
  assert.deepEqual(got, ['save']);
});

test('ask.js stands down without tap.js, and when loaded twice', () => {
  const ctx = vm.createContext({ addEventListener: () => assert.fail('listened without tap.js') });
  vm.runInContext(askSrc, ctx);
  const { ctx: twice, listeners } = load();
  const n = listeners.length;
  vm.runInContext(askSrc, twice);
  assert.equal(listeners.length, n);
});
