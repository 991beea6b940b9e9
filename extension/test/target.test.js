// Unit tests of actions/target.js: refs, targets, failure text, budgets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetOf, frameOfRef, prefixFor, failureText, pageBudget, modifiersOf, describeTarget } from '../actions/target.js';
import { CommandError } from '../runner.js';
import { readFileSync } from 'node:fs';

test('refs carry their frame', () => {
  assert.equal(frameOfRef('e12'), 0);
  assert.equal(frameOfRef('f7e3'), 7);
  for (const bad of ['', 'x1', 'e', 'f7', 'e1x', '12', 'fe1']) assert.equal(frameOfRef(bad), null, bad);
  assert.equal(prefixFor(0), 'e');
  assert.equal(prefixFor(7), 'f7e');
  assert.equal(frameOfRef(prefixFor(7) + '4'), 7);
});

// The daemon's cases (internal/tools/testdata/targets.json, TestCanonicalTarget):
// each form of a target and the canonical one the daemon sends for it.
const cases = JSON.parse(readFileSync(new URL('../../internal/tools/testdata/targets.json', import.meta.url), 'utf8'));

test('targetOf decodes every canonical target the daemon sends, to itself', () => {
  assert.ok(cases.length > 10, 'the daemon\'s target cases are nearly empty');
  for (const c of cases) assert.deepEqual(targetOf({ target: c.target ?? undefined }), c.target, JSON.stringify(c.args));
});

test('targetOf refuses what is not a canonical target: the daemon normalizes every form', () => {
  for (const bad of ['e5', '#a', 42, ['e5'], {}, { ref: 'e5', selector: '#a' }, { name: 'Go' }, { role: 'button', text: 'Go' },
    { ref: 'button' }, { text: '' }, { text: 'Go', exact: 'yes' }, { role: 'button', name: 'Go', level: 2 }]) {
    assert.throws(() => targetOf({ target: bad }), (e) => e instanceof CommandError && /not in its canonical form/.test(e.message), JSON.stringify(bad));
  }
});

test('failureText gives the reason first and the candidates one a line', () => {
  assert.equal(failureText({ reason: 'not_found', message: 'no element' }), 'not_found: no element');
  assert.equal(failureText({ reason: 'ambiguous', message: 'three', candidates: [{ ref: 'e1', role: 'button', name: 'Delete' }, { ref: 'e2', role: 'link' }] }),
    'ambiguous: three\ncandidates:\n  e1 button "Delete"\n  e2 link');
});

test('pageBudget leaves time to report before the deadline', () => {
  assert.equal(pageBudget(10000), 8500);
  assert.equal(pageBudget(2000), 1500);
  assert.equal(pageBudget(0), 0);
});

test('modifiersOf accepts a list or a "+" string of known modifiers', () => {
  assert.deepEqual(modifiersOf(undefined), []);
  assert.deepEqual(modifiersOf(['Control', 'Shift']), ['Control', 'Shift']);
  assert.deepEqual(modifiersOf('Control+Alt'), ['Control', 'Alt']);
  assert.throws(() => modifiersOf(['Hyper']), /unknown modifier "Hyper"/);
});

test('describeTarget names each kind', () => {
  assert.equal(describeTarget(null), 'the page');
  assert.equal(describeTarget({ role: 'button', name: 'Go' }), 'role button named "Go"');
  assert.equal(describeTarget({ text: 'Hi' }), 'text "Hi"');
});
