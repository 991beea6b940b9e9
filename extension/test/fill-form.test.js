// Unit tests of what fill_form says of each field (actions/runtime.js's
// fieldOutcome): the agent sent the values, so a long text comes back
// clipped with its length, a secret field's never (not even clipped), and
// a field that no longer holds what was sent says value_differs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h, fakeDocument, loadCore } from './fakedom.js';

await loadCore();
globalThis.chrome = { runtime: { id: 'gasoline', onMessage: { addListener() {} } } };
globalThis.addEventListener ??= () => {};
globalThis.document ??= fakeDocument(h('body', {}));
await import('../actions/runtime.js');
const { fieldOutcome } = globalThis.gasolineRuntime;

const named = { ref: 'e1', role: 'textbox', name: 'Letter' };
const letter = 'Dear Sir or Madam, '.repeat(1000); // 19 000 characters

test('a long text is given back clipped, with its length', () => {
  const got = fieldOutcome(h('textarea', { value: letter }), letter, { value: letter }, named);
  assert.equal(got.value, letter.slice(0, 59) + '…');
  assert.equal(got.chars, letter.length);
  assert.equal(got.value_differs, undefined);
  assert.equal(got.ref, 'e1');
  assert.ok(JSON.stringify(got).length < 250, `${JSON.stringify(got).length} characters`);
});

test('a short text is given back whole, with no length', () => {
  const got = fieldOutcome(h('input', { type: 'text', value: 'Ada Lovelace' }), 'Ada Lovelace', {}, named);
  assert.deepEqual(got, { ...named, value: 'Ada Lovelace' });
});

test('a secret field never gives its value back, not even clipped, nor when it differs', () => {
  const pw = 'hunter22-' + 'x'.repeat(100);
  for (const el of [
    h('input', { type: 'password', value: pw }),
    h('input', { type: 'text', autocomplete: 'cc-number', value: pw }),
    h('input', { type: 'password', value: pw.slice(0, 8) }), // cut by the page
  ]) {
    const got = fieldOutcome(el, pw, { secret: true }, named);
    const text = JSON.stringify(got);
    assert.equal(got.secret, true);
    assert.ok(!text.includes('hunter'), `the secret is in ${text}`);
    assert.equal(got.value, undefined);
    assert.equal(got.chars, undefined);
    assert.equal(got.value_differs, el.value === pw ? undefined : true);
  }
  const card = h('select', { autocomplete: 'cc-exp-month' }, h('option', { value: '07', selected: true }, 'July'));
  // A secret <select> says how many options it holds selected, never which: analyze test replays it with selectOption.
  assert.deepEqual(fieldOutcome(card, '07', { selected: ['07'] }, named), { ...named, secret: true, selected_count: 1 });
});

test('a field that holds something else than was sent says value_differs and shows where', () => {
  const sent = 'A'.repeat(100) + 'B'.repeat(100);
  const held = 'A'.repeat(100) + 'C'.repeat(100); // reformatted after its first 100 characters
  const got = fieldOutcome(h('textarea', { value: held }), sent, {}, named);
  assert.equal(got.value_differs, true);
  assert.equal(got.chars, 200);
  assert.ok(got.value.startsWith('…' + 'A'.repeat(20) + 'C'), got.value);
  assert.ok(got.value.length <= 61, got.value);

  const phone = fieldOutcome(h('input', { type: 'tel', value: '(555) 123-4567' }), '5551234567', {}, named);
  assert.deepEqual(phone, { ...named, value_differs: true, value: '(555) 123-4567' });

  const cleared = fieldOutcome(h('input', { type: 'text', value: '' }), 'Ada', {}, named);
  assert.deepEqual(cleared, { ...named, value_differs: true, value: '' });
});

test('a checkbox and a select are read back as they are now', () => {
  const box = { ref: 'e2', role: 'checkbox', name: 'Terms' };
  assert.deepEqual(fieldOutcome(h('input', { type: 'checkbox', checked: true }), true, { checked: true, changed: true }, box),
    { ...box, checked: true, changed: true });
  assert.deepEqual(fieldOutcome(h('input', { type: 'checkbox', checked: false }), 'checked', { checked: true, changed: true }, box),
    { ...box, checked: false, changed: true, value_differs: true });

  const combo = { ref: 'e3', role: 'combobox', name: 'Plan' };
  const plan = (picked) => h('select', {}, ...['free', 'team'].map((v) => h('option', { value: v, selected: v === picked }, v)));
  assert.deepEqual(fieldOutcome(plan('team'), 'Team', { selected: ['team'] }, combo), { ...combo, selected: ['team'] });
  assert.deepEqual(fieldOutcome(plan('free'), 'Team', { selected: ['team'] }, combo), { ...combo, selected: ['free'], value_differs: true });
});

test('a text over the field\'s maxlength gets a note', () => {
  const el = h('input', { type: 'text', value: 'abcdef' });
  el.maxLength = 3;
  const got = fieldOutcome(el, 'abcdef', {}, named);
  assert.match(got.note, /maxlength 3/);
  assert.equal(got.value, 'abcdef');
});

test('a field the page removed after filling gets a note', () => {
  const el = h('input', { type: 'text', value: 'Ada' });
  el.isConnected = false;
  const got = fieldOutcome(el, 'Ada', {}, named);
  assert.match(got.note, /removed this field/);
  assert.equal(got.value, 'Ada');
});
