// The draw-mode overlay's pure logic (overlay/logic.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as L from '../overlay/logic.js';

test('rectFrom covers a drag in any direction and ignores clicks', () => {
  assert.deepEqual(L.rectFrom({ x: 110, y: 80 }, { x: 10, y: 20.4 }), { x: 10, y: 20, width: 100, height: 60 });
  assert.deepEqual(L.rectFrom({ x: 10, y: 20 }, { x: 110, y: 80 }), { x: 10, y: 20, width: 100, height: 60 });
  assert.equal(L.rectFrom({ x: 10, y: 10 }, { x: 12, y: 13 }), null);
  assert.deepEqual(L.rectFrom({ x: 10, y: 10 }, { x: 10, y: 30 }), { x: 10, y: 10, width: 0, height: 20 });
});

test('toPage and center convert between the viewport and a scrolled page', () => {
  const r = L.toPage({ left: 5, top: 10, width: 20, height: 30 }, 100, 400);
  assert.deepEqual(r, { x: 105, y: 410, width: 20, height: 30 });
  assert.deepEqual(L.center(r, 100, 400), { x: 15, y: 25 });
});

function fakeEl(over = {}) {
  return { nodeType: 1, localName: 'button', innerText: '  Buy\n now  ', ...over };
}

test('describeElement names the element for the agent, with a ref and a few styles', () => {
  const core = { cssOf: () => '#shop > button:nth-of-type(2)', roleOf: () => 'button', nameOf: () => ' Buy now ' };
  const style = { getPropertyValue: (p) => ({ color: 'rgb(0, 0, 0)', 'font-size': '9px' })[p] || '' };
  const d = L.describeElement(fakeEl(), { core, refFor: () => 'e7', style });
  assert.deepEqual(d, {
    tag: 'button', selector: '#shop > button:nth-of-type(2)', ref: 'e7', role: 'button', name: 'Buy now', text: 'Buy now',
    styles: { color: 'rgb(0, 0, 0)', 'font-size': '9px' },
  });
  assert.equal(L.describeElement(null, { core }), undefined);
  // A failing helper loses its field, not the annotation.
  const broken = { cssOf: () => { throw new Error('x'); }, roleOf: () => { throw new Error('y'); } };
  assert.deepEqual(L.describeElement(fakeEl({ innerText: 'x'.repeat(500) }), { core: broken, refFor: null, style: null }),
    { tag: 'button', text: 'x'.repeat(199) + '…' });
});

test('donePost carries note keys, not notes, and caps items; noteText caps notes; cancelPost says why', () => {
  const items = Array.from({ length: 30 }, (_, i) => ({ note_key: `k${i}`, note: 'from the page', rect: { x: i, y: 0, width: 5, height: 5 } }));
  const p = L.donePost({ id: 'ann_1', url: 'http://x/', title: 't', viewport: { width: 800, height: 600 }, items, maxItems: 25 });
  assert.equal(p.correlation_id, 'ann_1');
  assert.equal(p.annotations.length, 20);
  assert.deepEqual(p.annotations[1], { note_key: 'k1', rect: { x: 1, y: 0, width: 5, height: 5 } });
  assert.equal(L.donePost({ id: 'ann_1', url: '', title: '', viewport: {}, items, maxItems: 2 }).annotations.length, 2);
  assert.equal(L.noteText('n'.repeat(900)).length, L.MAX_NOTE);
  assert.equal(L.noteText(' note\n1 '), 'note 1');
  assert.equal(L.noteText(undefined), '');
  assert.deepEqual(L.cancelPost('ann_1', 'the user pressed Esc'), { correlation_id: 'ann_1', cancelled: true, reason: 'the user pressed Esc' });
});

test('instructionText puts the agent first and says how to finish', () => {
  assert.match(L.instructionText({ instructions: 'Mark the broken layout', mode: 'draw' }), /^Mark the broken layout — Drag rectangles.*Done.*Esc/);
  assert.match(L.instructionText({ mode: 'pick' }), /^Click the elements/);
});

test('editKey is what a key does to a note: a character, Backspace, or nothing', () => {
  assert.equal(L.editKey({ key: 'a' }), 'a');
  assert.equal(L.editKey({ key: 'é' }), 'é');
  assert.equal(L.editKey({ key: 'Backspace' }), 'Backspace');
  for (const e of [{ key: 'Enter' }, { key: 'ArrowLeft' }, { key: 'a', ctrlKey: true }, { key: 'a', altKey: true }, { key: 'a', isComposing: true }]) {
    assert.equal(L.editKey(e), '', JSON.stringify(e));
  }
});

test('timedKeys keeps only characters and Backspace with their times', () => {
  assert.deepEqual(L.timedKeys([{ k: 'a', t: 1 }, { k: 'Enter', t: 2 }, { k: 'ab', t: 3 }, { k: 'b' }, null, { k: 'Backspace', t: 4, x: 1 }]),
    [{ k: 'a', t: 1 }, { k: 'Backspace', t: 4 }]);
  assert.deepEqual(L.timedKeys('a'), []);
  assert.equal(L.timedKeys(Array.from({ length: 900 }, (_, t) => ({ k: 'a', t }))).length, L.MAX_NOTE);
});

test('handBack finds the keys typed after another box was begun, unless the frame got the focus again since', () => {
  const log = [{ t: 5 }, { t: 9 }, { t: 12 }, { t: 15 }];
  assert.equal(L.handBack(log, 10, 1), 2);
  assert.equal(L.handBack(log, 9, 1), 1);
  assert.equal(L.handBack(log, 20, 1), -1);
  assert.equal(L.handBack(log, 10, 11), -1, 'the user came back to this note');
  assert.equal(L.handBack(log, 10, -Infinity), 2);
});
