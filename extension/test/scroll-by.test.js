// Unit tests of scroll_by's page verb (actions/verbs/scroll_by.js) in a vm
// context with a stand-in window and runtime: it scrolls the page or the
// element, and says where it ended, whether it moved, and at the end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import vm from 'node:vm';

/** box is a scrolling box of view px showing content of size px (both ways), scrolled to 0. */
function box(view, size) {
  const b = { clientHeight: view, clientWidth: view, scrollHeight: size, scrollWidth: size, scrollTop: 0, scrollLeft: 0 };
  const clamp = (v) => Math.max(0, Math.min(size - view, v));
  b.scrollBy = ({ left, top }) => {
    b.scrollLeft = clamp(b.scrollLeft + left);
    b.scrollTop = clamp(b.scrollTop + top);
  };
  return b;
}

/** verb loads scroll_by.js in a window whose page is page (a box); it returns the verb. */
function verb(page) {
  const added = {};
  const ctx = vm.createContext({
    Number, Math,
    document: { scrollingElement: page },
    gasolineRuntime: {
      addAction: (name, needs, fn) => { added[name] = { needs, fn }; },
      describe: () => 'div#list',
      page: { nextFrame: async () => {} },
    },
  });
  Object.defineProperties(ctx, {
    scrollX: { get: () => page.scrollLeft },
    scrollY: { get: () => page.scrollTop },
  });
  ctx.scrollBy = page.scrollBy;
  ctx.globalThis = ctx;
  ctx.window = ctx;
  vm.runInContext(fs.readFileSync(new URL('../actions/verbs/scroll_by.js', import.meta.url), 'utf8'), ctx);
  return added.scroll_by;
}

test('scroll_by scrolls the page and says where it ended', async () => {
  const page = box(600, 2000);
  const { needs, fn } = verb(page);
  assert.equal(needs.targetless, true, 'the target is optional');
  assert.deepEqual({ ...await fn(null, { dy: 800 }) }, { scroll_x: 0, scroll_y: 800, moved: true });
  assert.deepEqual({ ...await fn(null, { dy: 5000 }) }, { scroll_x: 0, scroll_y: 1400, moved: true, at_end: true });
  assert.deepEqual({ ...await fn(null, { dy: 10 }) }, { scroll_x: 0, scroll_y: 1400, moved: false, at_end: true });
  assert.deepEqual({ ...await fn(null, { dy: -1400 }) }, { scroll_x: 0, scroll_y: 0, moved: true, at_end: true }, 'back at the top');
});

test('scroll_by scrolls the element named, not the page, and says when it does not scroll', async () => {
  const page = box(600, 2000);
  const { fn } = verb(page);
  const list = box(300, 900);
  assert.deepEqual({ ...await fn(list, { dy: 250, dx: 0 }) }, { scroll_x: 0, scroll_y: 250, moved: true });
  assert.equal(page.scrollTop, 0, 'the page stayed');
  const fits = box(300, 300);
  const got = await fn(fits, { dy: 100 });
  assert.equal(got.moved, false);
  assert.match(got.note, /div#list does not scroll \(its content fits\); target the element that scrolls/);
});
