// Unit tests of what an action changed, as effects.changed says it
// (actions/changed.js summarize): text and controls that appeared or went
// away, value, focus and title, within MAX_CHARS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import '../actions/changed.js';

const { summarize, MAX_CHARS } = globalThis.gasolineChanged;

test('a row added: its text and its controls with refs', () => {
  const got = summarize({
    appeared: [{ text: 'Buy milk' }, { role: 'checkbox', name: 'Toggle', ref: 'e21' }, { role: 'button', name: 'Delete', ref: 'e22' }],
    removed: [],
    title: { before: 'Todos', after: 'Todos' },
  });
  assert.deepEqual(got, { appeared: ['Buy milk', "checkbox 'Toggle' e21", "button 'Delete' e22"] });
});

test('nothing changed, or the same text gone and back (a re-render): null', () => {
  assert.equal(summarize({ appeared: [], removed: [], title: { before: 'A', after: 'A' } }), null);
  assert.equal(summarize({ appeared: [{ text: '2 items left' }], removed: [{ text: '2 items left' }] }), null);
});

test('text replaced, value, focus and title', () => {
  const got = summarize({
    appeared: [{ text: '2 items left' }],
    removed: [{ text: '1 item left' }],
    value: { before: 'Buy milk', after: '', ref: 'e3' },
    focus: { before: null, after: "textbox 'What needs to be done?' e3" },
    title: { before: 'Todos', after: 'Todos (2)' },
  });
  assert.deepEqual(got, {
    title: 'Todos (2)', focus: "textbox 'What needs to be done?' e3", value: "e3 ''",
    appeared: ['2 items left'], removed: ['1 item left'],
  });
});

test('focus lost says none', () => {
  assert.deepEqual(summarize({ appeared: [], removed: [], focus: { before: null, after: '' } }), { focus: 'none' });
});

test('many changes stay within MAX_CHARS (about 60 tokens); the rest is counted', () => {
  const rows = Array.from({ length: 40 }, (_, i) => ({ text: `Row ${i} with a rather long description of what it holds` }));
  const got = summarize({ appeared: rows, removed: [{ text: 'Loading…' }] });
  assert.ok(JSON.stringify(got).length <= MAX_CHARS, `${JSON.stringify(got).length} chars: ${JSON.stringify(got)}`);
  assert.ok(got.appeared.length >= 2 && got.appeared[0].startsWith('Row 0 with'));
  assert.ok(got.appeared[0].length <= 48, 'an item is clipped');
  assert.equal(got.appeared.length + (got.removed?.length ?? 0) + got.more, 41);
});
