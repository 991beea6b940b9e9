// Unit tests of the worker side of drag and fill_form (actions/moves.js):
// drag's drop target, fill_form's fields as the runtime takes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropTarget, formFields, MAX_FIELDS } from '../actions/moves.js';
import { CommandError } from '../runner.js';

test('dropTarget reads to, canonical as target is, and keeps a drag in one document', () => {
  assert.deepEqual(dropTarget({ selector: '#a' }, { selector: '#zone' }), { selector: '#zone' });
  assert.deepEqual(dropTarget({ ref: 'e3' }, { ref: 'e9' }), { ref: 'e9' });
  assert.deepEqual(dropTarget({ ref: 'f2e3' }, { ref: 'f2e9' }), { ref: 'f2e9' });
  assert.deepEqual(dropTarget({ text: 'Apple' }, { role: 'listitem', name: 'Cherry', exact: true }), { role: 'listitem', name: 'Cherry', exact: true });
  assert.throws(() => dropTarget({ ref: 'e3' }, { ref: 'f2e9' }), (e) => e instanceof CommandError && /different frames/.test(e.message));
  assert.throws(() => dropTarget({ ref: 'f2e3' }, { selector: '#zone' }), /different frames/);
  assert.throws(() => dropTarget({ selector: '#a' }, '#zone'), /not in its canonical form/, 'the daemon sends to canonically');
  assert.throws(() => dropTarget({ selector: '#a' }, undefined), /drag needs "to"/);
});

test('formFields passes text, options and booleans, naming the field it refuses', () => {
  const fields = [
    { target: { selector: '#name' }, value: 'Ada' },
    { target: { role: 'checkbox', name: 'Terms' }, value: true },
    { target: { ref: 'e4' }, value: ['x', 'y'] },
  ];
  assert.deepEqual(formFields(fields, false), fields);
  for (const bad of [undefined, [], Array(MAX_FIELDS + 1).fill(fields[0])]) {
    assert.throws(() => formFields(bad, false), /needs 1 to 50 fields/);
  }
  const n = { selector: '#n' };
  assert.throws(() => formFields([fields[0], { target: n, value: 3 }], false), /field 1's value 3 is not text/);
  assert.throws(() => formFields([{ target: n, value: [1] }], false), /field 0's value/);
  assert.throws(() => formFields([{ value: 'x' }], false), /field 0: it has no target/);
  assert.throws(() => formFields([{ target: '#n', value: 'x' }], false), /field 0: .*not in its canonical form/);
  assert.throws(() => formFields(['#n'], false), /field 0 is not \{target, value\}/);
  assert.throws(() => formFields([{ target: { ref: 'f3e2' }, value: 'x' }], false), /in an iframe; pass frame/);
  assert.deepEqual(formFields([{ target: { ref: 'f3e2' }, value: 'x' }], true), [{ target: { ref: 'f3e2' }, value: 'x' }]);
});
