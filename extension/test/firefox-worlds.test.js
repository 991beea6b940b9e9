// In Firefox an isolated world's global is a sandbox whose window (and the
// top that names it) is another object, where Chrome's isolated world is
// the window itself: the scripts that tell a top document from an iframe
// must compare top with the window, or every Firefox document looks like
// an iframe (execute_js then finds no pristine port: "no_pristine").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { hasPristine } from '../tabs/reach.js';

const RELAY = readFileSync(new URL('../pristine-relay.js', import.meta.url), 'utf8');

// sandbox is a Firefox-like isolated world of a top document: its window
// is not the global, and top is that window.
function sandbox() {
  const win = new EventTarget();
  win.top = win;
  const ctx = vm.createContext({
    window: win,
    top: win,
    document: { readyState: 'complete', getElementsByTagName: () => ({ length: 1 }) },
    addEventListener: win.addEventListener.bind(win),
    removeEventListener: win.removeEventListener.bind(win),
  });
  return ctx;
}

test('the relay sets up in a Firefox top document', () => {
  const ctx = sandbox();
  vm.runInContext(RELAY, ctx);
  assert.equal(typeof vm.runInContext('globalThis.gasolinePristineRelay', ctx), 'object');
});

test('the relay stays out of a Firefox iframe', () => {
  const ctx = sandbox();
  ctx.top = new EventTarget(); // another window: this one is a frame
  vm.runInContext(RELAY, ctx);
  assert.equal(vm.runInContext('globalThis.gasolinePristineRelay', ctx), undefined);
});

test('hasPristine takes a Firefox top document for a top document', () => {
  const win = {};
  win.top = win;
  const g = { window: win, top: win, gasolinePristineRelay: { connected: () => true }, gasolineChannel: {} };
  assert.notEqual(hasPristine(g), false);
  const frame = { window: {}, top: win, gasolineCaptureLinked: true };
  assert.equal(hasPristine(frame), true);
  assert.equal(hasPristine({ ...frame, gasolineCaptureLinked: false }), false);
});
