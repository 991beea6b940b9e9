// capture/tap.js, the recorder's listeners from document_start: it holds
// the trusted events a user makes before capture/record.js comes (after
// DOMContentLoaded), with the element each was for, and hands them over in
// order, then every event at once; loaded in a bare context.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const src = readFileSync(new URL('../capture/tap.js', import.meta.url), 'utf8');

/** loadTap runs tap.js in a context whose window keeps its listeners; fire(type, event) calls them. */
function loadTap() {
  const listeners = [];
  const ctx = vm.createContext({
    addEventListener: (type, fn, opts) => listeners.push({ type, fn, opts }),
  });
  vm.runInContext(src, ctx);
  const fire = (type, e) => {
    for (const l of listeners) if (l.type === type) l.fn({ composedPath: () => [e.at], target: e.at, ...e });
  };
  return { ctx, listeners, fire };
}

test('tap.js listens, capturing and passive, for what the recorder records', () => {
  const { listeners } = loadTap();
  assert.deepEqual(listeners.map((l) => l.type).sort(), ['change', 'click', 'dblclick', 'input', 'keydown', 'submit']);
  for (const l of listeners) assert.deepEqual({ ...l.opts }, { capture: true, passive: true });
});

test('tap.js holds trusted events till the recorder takes them, then hands each at once', () => {
  const { ctx, fire } = loadTap();
  fire('click', { isTrusted: true, at: 'save' });
  fire('click', { isTrusted: false, at: 'script' }); // before the recorder, a script's event is nobody's
  fire('keydown', { isTrusted: true, at: 'field', key: 'Enter' });
  const got = [];
  ctx.gasolineTap((type, e, at) => got.push([type, at, e.isTrusted]));
  assert.deepEqual(got, [['click', 'save', true], ['keydown', 'field', true]]);
  fire('input', { isTrusted: false, at: 'agent' });
  assert.deepEqual(got.at(-1), ['input', 'agent', false], 'once taken, every event goes to the recorder, trusted or not');
  ctx.gasolineTap(() => assert.fail('a second taker got events'));
  fire('click', { isTrusted: true, at: 'again' });
  assert.deepEqual(got.at(-1), ['click', 'again', true]);
});

test('tap.js holds at most 100 events', () => {
  const { ctx, fire } = loadTap();
  for (let i = 0; i < 150; i++) fire('click', { isTrusted: true, at: i });
  let n = 0;
  ctx.gasolineTap(() => n++);
  assert.equal(n, 100);
});
