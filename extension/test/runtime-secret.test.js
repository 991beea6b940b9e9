// Unit test of what fill and type give back (actions/runtime.js's held), by
// fill_form's rules for a text field: a clipped preview, value_differs, and
// a secret field's text never, only secret: true, which the test generator
// reads to write an environment variable instead of the text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h, fakeDocument, loadCore } from './fakedom.js';

await loadCore();
globalThis.chrome = { runtime: { id: 'gasoline', onMessage: { addListener() {} } } };
globalThis.addEventListener ??= () => {};
globalThis.document ??= fakeDocument(h('body', {}));
await import('../actions/runtime.js');
const { held } = globalThis.gasolineRuntime;

test('fill and type say secret: true for a secret field, and never give its text back', () => {
  const secrets = [
    h('input', { type: 'password', value: 'hunter2' }),
    h('input', { type: 'text', autocomplete: 'cc-number', value: '4111111111111111' }),
    h('input', { type: 'text', autocomplete: 'one-time-code', value: '123456' }),
  ];
  for (const el of secrets) {
    const got = held(el, el.value, false); // judged from the element alone
    assert.deepEqual({ ...got }, { secret: true }, `${el.attrs.get('type')} ${el.attrs.get('autocomplete') ?? ''}`);
    assert.ok(!JSON.stringify(got).includes(el.value), 'the text is not in the result');
  }
  const plain = held(h('input', { type: 'email', value: 'ada@example.com' }), 'ada@example.com', false);
  assert.equal(plain.secret, undefined);
  assert.deepEqual(plain, { value: 'ada@example.com' });
  // Secret before filling, then turned into a text field by the page: still secret.
  const shown = held(h('input', { type: 'text', value: 'hunter2' }), 'hunter2', true);
  assert.deepEqual(shown, { secret: true });
});

test('fill and type give a long text back clipped, and say value_differs when the page changed it', () => {
  const letter = 'Dear Sir or Madam, '.repeat(1000);
  const got = held(h('textarea', { value: letter }), letter, false);
  assert.deepEqual(got, { value: letter.slice(0, 59) + '…', chars: letter.length });
  assert.deepEqual(held(h('input', { type: 'tel', value: '(555) 123-4567' }), '5551234567', false),
    { value: '(555) 123-4567', value_differs: true });
});
