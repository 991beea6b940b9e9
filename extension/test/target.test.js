// Unit tests of actions/target.js: refs, targets, failure text, budgets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetOf, parseTarget, frameOfRef, prefixFor, failureText, pageBudget, modifiersOf, describeTarget } from '../actions/target.js';
import { CommandError } from '../runner.js';

test('refs carry their frame', () => {
  assert.equal(frameOfRef('e12'), 0);
  assert.equal(frameOfRef('f7e3'), 7);
  for (const bad of ['', 'x1', 'e', 'f7', 'e1x', '12', 'fe1']) assert.equal(frameOfRef(bad), null, bad);
  assert.equal(prefixFor(0), 'e');
  assert.equal(prefixFor(7), 'f7e');
  assert.equal(frameOfRef(prefixFor(7) + '4'), 7);
});

test('targetOf reads one kind of target', () => {
  assert.deepEqual(targetOf({ ref: 'e3' }), { ref: 'e3' });
  assert.deepEqual(targetOf({ selector: '#a' }), { selector: '#a' });
  assert.deepEqual(targetOf({ role: 'Button', name: 'Go' }), { role: 'button', name: 'Go' });
  assert.deepEqual(targetOf({ role: 'link' }), { role: 'link' });
  assert.deepEqual(targetOf({ text: 'Welcome' }), { text: 'Welcome' });
  assert.equal(targetOf({}), null);
  assert.equal(targetOf({ text: 'typed' }, { textIsValue: true }), null, 'fill and type read text as the value');
  assert.deepEqual(targetOf({ ref: 'e1', text: 'typed' }, { textIsValue: true }), { ref: 'e1' });
  assert.throws(() => targetOf({ ref: 'e1', selector: '#a' }), (e) => e instanceof CommandError && /one target, not ref and selector/.test(e.message));
  assert.throws(() => targetOf({ name: 'Go' }), /goes with "role"/);
  assert.throws(() => targetOf({ ref: 'button' }), /not a ref/);
});

test('target is a ref, a selector, {role, name} or {text}', () => {
  assert.deepEqual(targetOf({ target: 'e5' }), { ref: 'e5' });
  assert.deepEqual(targetOf({ target: ' f7e12 ' }), { ref: 'f7e12' });
  assert.deepEqual(targetOf({ target: '#save > button' }), { selector: '#save > button' });
  assert.deepEqual(targetOf({ target: 'e5x' }), { selector: 'e5x' }, 'not a ref: a selector');
  assert.deepEqual(targetOf({ target: { role: 'CheckBox', name: 'Walk the dog' } }), { role: 'checkbox', name: 'Walk the dog' });
  assert.deepEqual(targetOf({ target: { role: 'button', name: 'Go', exact: true } }), { role: 'button', name: 'Go', exact: true });
  assert.deepEqual(targetOf({ target: { text: 'Accept' } }), { text: 'Accept' });
  assert.deepEqual(targetOf({ target: { text: 'Email' }, text: 'ada' }, { textIsValue: true }), { text: 'Email' },
    'fill: the target object\'s text is the target, the flat text the value');
  assert.throws(() => targetOf({ target: 'e5', ref: 'e5' }), /one target, not target and ref/);
  assert.throws(() => targetOf({ target: { role: 'button' }, name: 'Go' }), /goes with "role"/);
  for (const [bad, why] of [[42, /not a string or an object/], [['e5'], /not a string or an object/], ['  ', /target is empty/],
    [{ ref: 'e5' }, /unknown fields ref/], [{}, /needs role \(with name\) or text/], [{ name: 'Go' }, /name goes with role/],
    [{ role: 'button', text: 'Go' }, /both role and text/]]) {
    assert.throws(() => parseTarget(bad), (e) => e instanceof CommandError && why.test(e.message), JSON.stringify(bad));
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
