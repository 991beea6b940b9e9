// Unit tests of actions/imaging.js: downscaling and the full-page plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scale, fullPagePlan, imageTokens, cropBox, MAX_SIDE, MAX_PIXELS } from '../actions/imaging.js';

test('scale shrinks the longest side to maxDim, keeping the aspect ratio', () => {
  assert.deepEqual(scale(1280, 720, 1568), { width: 1280, height: 720 }, 'an image that fits is unchanged');
  assert.deepEqual(scale(2560, 1440, 1568), { width: 1568, height: 882 });
  assert.deepEqual(scale(1280, 20000, 1568), { width: 100, height: 1568 });
  assert.deepEqual(scale(10000, 3, 1568), { width: 1568, height: 1 }, 'a side never rounds to 0');
  assert.deepEqual(scale(20000, 10000, 99999), { width: MAX_SIDE, height: 4000 }, 'never above 8000 px a side');
  const d = scale(2560, 1440, 1568, MAX_PIXELS);
  assert.ok(d.width * d.height <= MAX_PIXELS && imageTokens(d.width, d.height) <= 1600, `${d.width}x${d.height}`);
  assert.ok(d.width > 1400 && Math.abs(d.width / d.height - 16 / 9) < 0.01, `${d.width}x${d.height} keeps 16:9`);
});

test('fullPagePlan covers the page top to bottom, the last capture flush with the bottom', () => {
  assert.deepEqual(fullPagePlan(800, 600, 600), { width: 800, height: 600, offsets: [0] });
  assert.deepEqual(fullPagePlan(800, 600, 400), { width: 800, height: 600, offsets: [0] });
  assert.deepEqual(fullPagePlan(800, 600, 1500), { width: 800, height: 1500, offsets: [0, 600, 900] });
  assert.deepEqual(fullPagePlan(800, 600, 1200), { width: 800, height: 1200, offsets: [0, 600] });
  assert.equal(fullPagePlan(800, 600, 1e6).height, 16000, 'bounded');
});

test('imageTokens is width × height / 750', () => {
  assert.equal(imageTokens(1568, 882), 1844);
  assert.equal(imageTokens(1092, 1092), 1590);
});

test('cropBox maps a page rectangle into a capture of the scrolled viewport, device pixels included', () => {
  const vp = { width: 800, height: 600, scroll_x: 0, scroll_y: 400 };
  assert.deepEqual(cropBox({ x: 40, y: 600, width: 160, height: 60 }, vp, 800, 600), { x: 40, y: 200, width: 160, height: 60, partial: false });
  assert.deepEqual(cropBox({ x: 40, y: 600, width: 160, height: 60 }, vp, 1600, 1200), { x: 80, y: 400, width: 320, height: 120, partial: false }, 'DPR 2');
  assert.deepEqual(cropBox({ x: 10.4, y: 401.2, width: 20.3, height: 10 }, vp, 1200, 900), { x: 16, y: 2, width: 30, height: 15, partial: false }, 'DPR 1.5 rounds edges');
  assert.deepEqual(cropBox({ x: 700, y: 350, width: 200, height: 100 }, vp, 800, 600), { x: 700, y: 0, width: 100, height: 50, partial: true }, 'clipped at the top and right');
  assert.equal(cropBox({ x: 0, y: 0, width: 100, height: 100 }, vp, 800, 600), null, 'scrolled out of view');
  assert.equal(cropBox({ x: 10, y: 500, width: 0, height: 40 }, vp, 800, 600), null, 'no area');
  assert.equal(cropBox({ x: 10, y: 500, width: 10, height: 40 }, { width: 0 }, 800, 600), null, 'no viewport');
});
