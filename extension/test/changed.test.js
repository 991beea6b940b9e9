// Unit tests of what an action changed, as effects.changed says it
// (actions/changed.js summarize): text and controls that appeared or went
// away, value, focus and title, within MAX_CHARS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import '../actions/changed.js';

const { summarize, MAX_CHARS, FULL_CHARS } = globalThis.gasolineChanged;

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
  const { all, ...got } = summarize({ appeared: rows, removed: [{ text: 'Loading…' }] });
  assert.ok(all, 'the whole list comes beside (the daemon keeps it behind a handle)');
  assert.ok(JSON.stringify(got).length <= MAX_CHARS, `${JSON.stringify(got).length} chars: ${JSON.stringify(got)}`);
  assert.ok(got.appeared.length >= 2 && got.appeared[0].startsWith('Row 0 with'));
  assert.ok(got.appeared[0].length <= 48, 'an item is clipped');
  assert.equal(got.appeared.length + (got.removed?.length ?? 0) + got.more, 41);
});

test('more than fits: all is the whole list, a line an item, the compact part unchanged', () => {
  const rows = Array.from({ length: 200 }, (_, i) => ({ text: `Row ${i} with a rather long description of what it holds, longer than an item of the compact part` }));
  const seen = { appeared: [...rows, { role: 'button', name: 'Load more', ref: 'e9' }], removed: [{ text: 'Loading…' }] };
  const got = summarize(seen);
  const { all, ...compact } = got;
  assert.ok(JSON.stringify(compact).length <= MAX_CHARS, `${JSON.stringify(compact).length} chars`);
  assert.equal(compact.appeared.length + (compact.removed?.length ?? 0) + compact.more, 202);
  const lines = all.trimEnd().split('\n');
  assert.equal(lines.length, 202);
  assert.equal(lines[0], '+ ' + rows[0].text, 'an item up to 200 characters is whole');
  assert.equal(lines[199], '+ ' + rows[199].text);
  assert.equal(lines[200], "+ button 'Load more' e9");
  assert.equal(lines[201], '- Loading…');
});

test('what fits is said without all', () => {
  const got = summarize({ appeared: [{ text: 'Saved' }], removed: [] });
  assert.deepEqual(got, { appeared: ['Saved'] });
});

test('all is capped at FULL_CHARS, the lines left out counted', () => {
  const rows = Array.from({ length: 2000 }, (_, i) => ({ text: `${i} `.padEnd(150, 'x') }));
  const { all, more } = summarize({ appeared: rows, removed: [] });
  assert.ok(all.length <= FULL_CHARS, `${all.length} chars`);
  assert.ok(more > 1900);
  const last = all.trimEnd().split('\n').at(-1);
  const kept = all.trimEnd().split('\n').length - 1;
  assert.equal(last, `… ${2000 - kept} more not kept (${FULL_CHARS} characters at most)`);
});

test('a control whose state changed: its states, before what appeared', () => {
  const got = summarize({
    appeared: [{ text: 'Settings' }, { role: 'link', name: 'Profile', ref: 'e8' }],
    removed: [],
    state: [{ role: 'button', name: 'Menu', ref: 'e5', states: ['expanded'] }, { role: 'button', name: 'Save', ref: 'e9', states: ['enabled'] }],
  });
  assert.deepEqual(got, { state: ["button 'Menu' e5 expanded", "button 'Save' e9 enabled"], appeared: ['Settings', "link 'Profile' e8"] });
});
