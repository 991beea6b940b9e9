// Unit test of what fill and type give back (actions/runtime.js's held):
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
    const got = held(el);
    assert.deepEqual({ ...got }, { secret: true }, `${el.attrs.get('type')} ${el.attrs.get('autocomplete') ?? ''}`);
    assert.ok(!JSON.stringify(got).includes(el.value), 'the text is not in the result');
  }
  const plain = held(h('input', { type: 'email', value: 'ada@example.com' }));
  assert.equal(plain.secret, undefined);
  assert.equal(plain.value, 'ada@example.com');
});
