// Unit tests of actions/runtime/waits.js boxWatch, the auto-wait's
// "stable" rule on a fake document whose animation clock and animations the
// test sets: an animated element is still only once its box is seen again
// at another animation time, with no animation of it still to start; the
// same box at the same time (a frame the busy renderer missed) is no proof,
// for at most FROZEN_LOOKS looks (a tab that paints no frames).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h, fakeDocument } from './fakedom.js';

const button = h('button', {}, 'Settings');
const panel = h('div', {}, button);
const doc = fakeDocument(h('body', {}, panel));
let animations = [];
doc.timeline = { currentTime: 100 };
doc.getAnimations = () => animations;
globalThis.document = doc;
const { boxWatch } = await import('../actions/runtime/waits.js');

const slide = (state = {}) => ({ playState: 'running', pending: false, effect: { target: panel }, ...state });
const at = (t) => { doc.timeline.currentTime = t; };

test('an element nothing animates is still at once', () => {
  animations = [];
  assert.equal(boxWatch().moving(button, '30,80,100,20'), false);
  animations = [slide({ effect: { target: h('div', {}) } })];
  assert.equal(boxWatch().moving(button, '30,80,100,20'), false, 'an animation elsewhere does not move it');
});

test('an animated element is still once its box is the same at another animation time', () => {
  animations = [slide()];
  const w = boxWatch();
  at(100);
  assert.equal(w.moving(button, '630,80,100,20'), true, 'first look: no box to compare yet');
  at(116);
  assert.equal(w.moving(button, '606,80,100,20'), true, 'it moved');
  at(132);
  assert.equal(w.moving(button, '582,80,100,20'), true);
  assert.equal(w.moving(button, '582,80,100,20'), true, 'the same box at the same time: a missed frame, no proof');
  at(148);
  assert.equal(w.moving(button, '558,80,100,20'), true, 'the next frame shows it moving on');
  at(500);
  assert.equal(w.moving(button, '30,80,100,20'), true);
  at(516);
  assert.equal(w.moving(button, '30,80,100,20'), false, 'at rest: the same box a frame later');
});

test('a transition not started yet holds its first box: no proof until it starts', () => {
  animations = [slide({ pending: true })];
  const w = boxWatch();
  at(100);
  assert.equal(w.moving(button, '630,80,100,20'), true);
  at(116);
  assert.equal(w.moving(button, '630,80,100,20'), true, 'pending: its first box proves nothing');
  animations = [slide()];
  at(132);
  assert.equal(w.moving(button, '606,80,100,20'), true, 'started: it moves');
});

test('a frozen clock proves nothing for four looks, then the box is taken as still (a tab that paints no frames)', () => {
  animations = [slide()];
  const w = boxWatch();
  at(100);
  assert.equal(w.moving(button, '630,80,100,20'), true);
  for (let i = 0; i < 4; i++) assert.equal(w.moving(button, '630,80,100,20'), true, `frozen look ${i + 1}`);
  assert.equal(w.moving(button, '630,80,100,20'), false, 'after FROZEN_LOOKS it acts');
});

test('forget starts over: the box after a scroll is compared with none', () => {
  animations = [slide()];
  const w = boxWatch();
  at(100);
  w.moving(button, '30,900,100,20');
  w.forget();
  at(116);
  assert.equal(w.moving(button, '30,900,100,20'), true, 'no box before the scroll counts');
  at(132);
  assert.equal(w.moving(button, '30,900,100,20'), false);
});
