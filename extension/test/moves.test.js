// Unit tests of the worker side of drag and fill_form (actions/moves.js):
// drag's drop target, fill_form's fields as the runtime takes them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropTarget, formFields, MAX_FIELDS } from '../actions/moves.js';
import { CommandError } from '../runner.js';

test('dropTarget reads to like target and keeps a drag in one document', () => {
  assert.deepEqual(dropTarget({ selector: '#a' }, '#zone'), { selector: '#zone' });
  assert.deepEqual(dropTarget({ ref: 'e3' }, 'e9'), { ref: 'e9' });
  assert.deepEqual(dropTarget({ ref: 'f2e3' }, 'f2e9'), { ref: 'f2e9' });
  assert.deepEqual(dropTarget({ text: 'Apple' }, { role: 'listitem', name: 'Cherry', exact: true }), { role: 'listitem', name: 'Cherry', exact: true });
  assert.throws(() => dropTarget({ ref: 'e3' }, 'f2e9'), (e) => e instanceof CommandError && /different frames/.test(e.message));
  assert.throws(() => dropTarget({ ref: 'f2e3' }, '#zone'), /different frames/);
  assert.throws(() => dropTarget({ selector: '#a' }, ''), /target is empty/);
  assert.throws(() => dropTarget({ selector: '#a' }, { name: 'x' }), /goes with role/);
});

test('formFields passes text, options and booleans, naming the field it refuses', () => {
  const fields = [
    { target: '#name', value: 'Ada' },
    { target: { role: 'checkbox', name: 'Terms' }, value: true },
    { target: 'e4', value: ['x', 'y'] },
  ];
  assert.deepEqual(formFields(fields, false), [
    { target: { selector: '#name' }, value: 'Ada' },
    { target: { role: 'checkbox', name: 'Terms' }, value: true },
    { target: { ref: 'e4' }, value: ['x', 'y'] },
  ]);
  for (const bad of [undefined, [], Array(MAX_FIELDS + 1).fill(fields[0])]) {
    assert.throws(() => formFields(bad, false), /needs 1 to 50 fields/);
  }
  assert.throws(() => formFields([fields[0], { target: '#n', value: 3 }], false), /field 1's value 3 is not text/);
  assert.throws(() => formFields([{ target: '#n', value: [1] }], false), /field 0's value/);
  assert.throws(() => formFields([{ value: 'x' }], false), /field 0: target/);
  assert.throws(() => formFields(['#n'], false), /field 0 is not \{target, value\}/);
  assert.throws(() => formFields([{ target: 'f3e2', value: 'x' }], false), /in an iframe; pass frame/);
  assert.deepEqual(formFields([{ target: 'f3e2', value: 'x' }], true), [{ target: { ref: 'f3e2' }, value: 'x' }]);
});
