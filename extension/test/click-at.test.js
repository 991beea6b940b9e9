// Unit tests of click_at's page verb (actions/verbs/click_at.js) in a vm
// context with a stand-in runtime: it clicks what is at the point, refuses
// a point outside the viewport, and says what it clicked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import vm from 'node:vm';

class Failure extends Error {
  constructor(reason, message) {
    super(message);
    this.reason = reason;
  }
}

/** verb loads click_at.js over a page of 800x600 whose only element is at; it returns the verb and the clicks it made. */
function verb(at) {
  const added = {};
  const clicks = [];
  const ctx = vm.createContext({
    Number, innerWidth: 800, innerHeight: 600,
    gasolineRuntime: {
      addAction: (name, needs, fn) => { added[name] = { needs, fn }; },
      Failure,
      page: {
        hitAt: (x, y) => (at ? at(x, y) : null),
        clickPoint: (el, x, y, o) => clicks.push({ el, x, y, button: o.button }),
        brief: (el, prefix) => ({ ref: `${prefix}1`, role: el.role, name: el.name }),
        nextFrame: async () => {},
      },
    },
  });
  ctx.globalThis = ctx;
  vm.runInContext(fs.readFileSync(new URL('../actions/verbs/click_at.js', import.meta.url), 'utf8'), ctx);
  return { ...added.click_at, clicks };
}

test('click_at clicks the element at the point and says which', async () => {
  const canvas = { role: 'img', name: 'map' };
  const { needs, fn, clicks } = verb(() => canvas);
  assert.equal(needs.targetless, true, 'it names no element');
  const got = await fn(null, { x: 120.5, y: 40, prefix: 'f2e', button: 'right' });
  assert.deepEqual(JSON.parse(JSON.stringify(got)), { x: 120.5, y: 40, element: { ref: 'f2e1', role: 'img', name: 'map' } });
  assert.deepEqual(clicks, [{ el: canvas, x: 120.5, y: 40, button: 'right' }]);
});

test('click_at refuses a point outside the viewport, and says when nothing is there', async () => {
  const { fn, clicks } = verb(() => ({ role: 'img' }));
  for (const [x, y] of [[800, 10], [10, 600], [-1, 5]]) {
    await assert.rejects(fn(null, { x, y }), (e) => e.reason === 'bad_target' && /outside the viewport, which is 800x600/.test(e.message));
  }
  const empty = verb(null);
  await assert.rejects(empty.fn(null, { x: 1, y: 1 }), (e) => e.reason === 'not_found' && /take a screenshot/.test(e.message));
  assert.equal(clicks.length + empty.clicks.length, 0);
});
