// Unit tests of actions/imaging.js: downscaling and the full-page plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scale, fullPagePlan, imageTokens, MAX_SIDE, MAX_PIXELS } from '../actions/imaging.js';

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
