// The order of a draw-mode note's keys (overlay/note.js, overlay/logic.js
// makeNote): a key typed for a note can reach it by three routes (typed in
// its frame, held by the overlay, handed back by the previous note's frame)
// whose messages arrive in any order; the note is every key in the order
// typed. Each frame runs the real note.js in a vm context with a fake
// input, window and chrome.runtime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import vm from 'node:vm';
import * as L from '../overlay/logic.js';

// The note frame's script as note.html loads it: note.js bundled with logic.js.
const noteSrc = fs.readFileSync(new URL('../dist/note.js', import.meta.url), 'utf8');
const ID = 'gasoline-id';
const OVERLAY = { id: ID, tab: { id: 1 } }; // the overlay's messages come from a tab

/**
 * frame runs note.js for note key with its own time origin (a frame's
 * performance.timeOrigin differs; t is on the clock all frames share).
 * Keys it does not take are typed at the caret, as the browser would.
 */
function frame(key, timeOrigin) {
  const input = {
    maxLength: 500, selectionStart: 0, selectionEnd: 0, _v: '',
    get value() { return this._v; },
    set value(v) { this._v = String(v); this.selectionStart = this.selectionEnd = this._v.length; },
    focus() { doc.activeElement = input; },
    setSelectionRange(a, b) { this.selectionStart = a; this.selectionEnd = b; },
  };
  const doc = { activeElement: null, hasFocus: () => false, querySelector: () => input };
  const listeners = {};
  const onMessage = [];
  const sent = [];
  const ctx = vm.createContext({
    location: { hash: '#' + key },
    document: doc,
    performance: { timeOrigin },
    addEventListener: (type, fn) => { (listeners[type] ??= []).push(fn); },
    chrome: { runtime: { id: ID, onMessage: { addListener: (fn) => onMessage.push(fn) }, sendMessage: async (m) => { sent.push(m); } } },
  });
  vm.runInContext(noteSrc, ctx);
  const f = {
    key, input, sent,
    get text() { return input.value; },
    /** focus gives the frame the focus at t. */
    focus(t) { for (const fn of listeners.focus) fn({ timeStamp: t - timeOrigin }); },
    /** type types one key at t; not taken, it edits at the caret. */
    type(k, t) {
      let prevented = false;
      const e = { isTrusted: true, key: k, timeStamp: t - timeOrigin, preventDefault: () => { prevented = true; }, stopImmediatePropagation() {} };
      for (const fn of listeners.keydown) fn(e);
      if (prevented || doc.activeElement !== input) return;
      const v = input.value;
      const [a, b] = [input.selectionStart, input.selectionEnd];
      const next = k === 'Backspace' ? (a === b ? v.slice(0, Math.max(0, a - 1)) + v.slice(b) : v.slice(0, a) + v.slice(b)) : v.slice(0, a) + k + v.slice(b);
      const caret = k === 'Backspace' ? (a === b ? Math.max(0, a - 1) : a) : a + 1;
      input._v = next;
      input.setSelectionRange(caret, caret);
    },
    /** typeAll types s from t, one key a millisecond. */
    typeAll(s, t) { [...s].forEach((k, i) => f.type(k, t + i)); },
    /** receive delivers message m from sender. */
    receive(m, sender = OVERLAY) { for (const fn of onMessage) fn(m, sender, () => {}); },
    /** handed is what this frame handed to other notes (draw-late), and forgets it. */
    handed() { return sent.splice(0).filter((m) => m.gasoline === 'draw-late'); },
  };
  return f;
}

/** relay is what the worker and the overlay do with a frame's draw-late: it reaches note `to` as draw-type. */
function relay(from, notes) {
  for (const m of from.handed()) notes[m.key].receive({ gasoline: 'draw-type', key: m.key, keys: L.timedKeys(m.keys) });
}

const keys = (s, t) => [...s].map((k, i) => ({ k, t: t + i }));

/** two is note a, typed "second one" with the focus, and note b, the new one, loaded and not yet focused. */
function two() {
  const a = frame('a'.repeat(32), 1000);
  const b = frame('b'.repeat(32), 1500);
  a.focus(2000);
  a.typeAll('second one', 2001);
  return { a, b, notes: { [a.key]: a, [b.key]: b } };
}

const BEGUN = 3000; // when the box of note b was begun

test('a key typed in the new note, then keys typed before it handed over by the overlay: in the order typed', () => {
  // "th" reached the overlay, "ird" the new note's frame first (CI got "irthd" when they crossed).
  const { b } = two();
  b.focus(3010);
  b.typeAll('ird', 3012);
  b.receive({ gasoline: 'draw-type', key: b.key, keys: keys('th', 3010) });
  assert.equal(b.text, 'third');
});

test('the overlay\'s messages arrive out of order (each sendMessage is a channel of its own)', () => {
  // "th" held until the frame loaded, then "i" and "r" one message each; the first came last.
  const { b } = two();
  b.receive({ gasoline: 'draw-type', key: b.key, keys: keys('i', 3012) });
  b.receive({ gasoline: 'draw-type', key: b.key, keys: keys('r', 3013) });
  b.receive({ gasoline: 'draw-type', key: b.key, keys: keys('th', 3010) });
  b.focus(3014);
  b.type('d', 3014);
  assert.equal(b.text, 'third');
});

test('the focus came back to the overlay: keys held there come after those typed in the frame before them', () => {
  // "th" typed in the frame, "ir" held by the overlay and handed over, then "d" typed in the frame.
  const { b } = two();
  b.focus(3005);
  b.typeAll('th', 3010);
  b.receive({ gasoline: 'draw-type', key: b.key, keys: keys('ir', 3012) });
  b.type('d', 3014);
  assert.equal(b.text, 'third');
});

test('keys handed back by the previous note after later ones were typed land where they were typed', () => {
  const { a, b, notes } = two();
  a.typeAll('th', 3010); // the focus is still leaving note a: its process has not heard
  b.focus(3011);
  b.typeAll('ird', 3012);
  assert.equal(a.text, 'second oneth');
  a.receive({ gasoline: 'draw-new', to: b.key, at: BEGUN, notes: [a.key] });
  assert.equal(a.text, 'second one', 'note a gives back what was typed after the box was begun');
  relay(a, notes);
  assert.equal(b.text, 'third');
});

test('three routes whose messages arrive in reverse order', () => {
  const { a, b, notes } = two();
  a.type('t', 3010); // note a, before it heard
  // 'h' held by the overlay: its message comes last.
  b.focus(3012);
  b.typeAll('ird', 3012);
  a.receive({ gasoline: 'draw-new', to: b.key, at: BEGUN, notes: [a.key] });
  relay(a, notes);
  assert.equal(b.text, 'tird');
  b.receive({ gasoline: 'draw-type', key: b.key, keys: keys('h', 3011) });
  assert.equal(b.text, 'third');
  assert.equal(a.text, 'second one');
});

test('a key reaching the previous note after it heard is handed on at once', () => {
  const { a, b, notes } = two();
  a.receive({ gasoline: 'draw-new', to: b.key, at: BEGUN, notes: [a.key] });
  a.type('t', 3010);
  b.focus(3011);
  b.typeAll('hird', 3011);
  relay(a, notes);
  assert.equal(b.text, 'third');
  assert.equal(a.text, 'second one');
});

test('a Backspace counts where it was typed, whatever route its character took', () => {
  // Typed "thx", Backspace, "ird": x went to the old note, the Backspace to the new one.
  const { a, b, notes } = two();
  a.typeAll('thx', 3010);
  b.focus(3013);
  b.type('Backspace', 3013);
  b.typeAll('ird', 3014);
  a.receive({ gasoline: 'draw-new', to: b.key, at: BEGUN, notes: [a.key] });
  relay(a, notes);
  assert.equal(b.text, 'third');
});

test('a key that comes before the focus is typed at the end and takes the focus', () => {
  const { b } = two();
  b.type('t', 3010);
  b.type('h', 3011);
  assert.equal(b.text, 'th');
  b.receive({ gasoline: 'draw-type', key: b.key, keys: [] });
  b.typeAll('ird', 3012);
  assert.equal(b.text, 'third');
});

test('keys the overlay hands to the previous note after the new box was begun go on to the new note', () => {
  const { a, b, notes } = two();
  a.receive({ gasoline: 'draw-new', to: b.key, at: BEGUN, notes: [a.key] });
  a.receive({ gasoline: 'draw-type', key: a.key, keys: [{ k: '!', t: 2999 }, ...keys('th', 3001)] });
  relay(a, notes);
  b.focus(3010);
  b.typeAll('ird', 3010);
  assert.equal(a.text, 'second one!');
  assert.equal(b.text, 'third');
});

test('the previous note keeps what was typed after the box was begun when the user came back to it', () => {
  const { a, b } = two();
  a.focus(3005);
  a.typeAll('!!', 3006);
  a.receive({ gasoline: 'draw-new', to: b.key, at: BEGUN, notes: [a.key] });
  assert.equal(a.text, 'second one!!');
  assert.deepEqual(a.handed(), []);
});

test('once the user edits the note otherwise, the input is theirs and keys handed over go first', () => {
  const { b } = two();
  b.focus(3010);
  b.typeAll('ird', 3010);
  b.input.setSelectionRange(0, 0); // the user moved the caret to the start
  b.typeAll('x', 3013);
  assert.equal(b.text, 'xird');
  b.receive({ gasoline: 'draw-type', key: b.key, keys: keys('th', 3001) });
  assert.equal(b.text, 'thxird');
  b.input.setSelectionRange(6, 6);
  b.type('!', 3020);
  assert.equal(b.text, 'thxird!', 'typing at the end of a free note is typing');
});

test('a free previous note hands back what was typed since the box was begun', () => {
  const { a, b, notes } = two();
  a.input.setSelectionRange(0, 0);
  a.type('S', 2500); // an edit at the start: the note is the user's
  a.input.setSelectionRange(11, 11);
  a.typeAll('th', 3010);
  assert.equal(a.text, 'Ssecond oneth');
  b.focus(3012);
  b.typeAll('ird', 3012);
  a.receive({ gasoline: 'draw-new', to: b.key, at: BEGUN, notes: [a.key] });
  assert.equal(a.text, 'Ssecond one');
  relay(a, notes);
  assert.equal(b.text, 'third');
});

test('makeNote files keys in the order typed, takes back from a time, and tracks nothing once free', () => {
  const n = L.makeNote(5);
  assert.equal(n.add(keys('ird', 12)), true);
  n.add(keys('th', 10));
  assert.equal(n.text(), 'third');
  n.add([{ k: 'Backspace', t: 14.5 }]);
  assert.equal(n.text(), 'thir');
  assert.deepEqual(n.takeFrom(13).map((x) => x.k), ['r', 'd', 'Backspace'], 'the keys typed at 13 or later, in order');
  assert.equal(n.text(), 'thi');
  n.add([{ k: 'a', t: 11 }, { k: 'b', t: 11 }, { k: 'c', t: 11 }]);
  assert.equal(n.text(), 'thabc', 'equal times keep the order they came in; at most max characters');
  n.release();
  assert.equal(n.free, true);
  assert.equal(n.add(keys('x', 1)), false);
  assert.deepEqual(n.takeFrom(0), []);
  assert.equal(L.typedText(['Backspace', 'a', '😀', 'Backspace', 'b']), 'ab');
});
