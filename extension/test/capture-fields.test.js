// The worker's check (capture/events.js) follows the field table generated
// from Go (capture/fields.js, apitype.EventSpecs): each kind's required
// fields, string caps and enums, read from the table, not restated here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sanitise } from '../capture/events.js';
import { FIELDS, REQUIRED, DEFAULTS } from '../capture/fields.js';

const stamp = { tab_id: 7, frame_id: 0, page_url: 'https://app.test/' };

/** sample is a valid value of a field of type type with rule. */
function sample(type, rule) {
  switch (type) {
    case 'str': return 'x';
    case 'body': return 'b';
    case 'enum': return rule[0];
    case 'int': return 3;
    case 'num': return 1.5;
    case 'bool': return true;
    case 'headers': return { a: '1' };
    case 'mods': return [rule[0]];
    case 'locator': return { by: 'css', selector: 'a' };
    default: throw new Error(`no sample of ${type}`);
  }
}

/** minimal is the smallest valid record of kind: its required fields. */
function minimal(kind) {
  const raw = { kind };
  for (const [name, type, rule] of FIELDS[kind]) if (REQUIRED[kind].includes(name)) raw[name] = sample(type, rule);
  return raw;
}

for (const kind of Object.keys(FIELDS)) {
  const check = (raw) => sanitise(raw, stamp, undefined, { allowTab: true });
  test(`${kind}: the table's fields, caps, enums and required fields`, () => {
    assert.notEqual(check(minimal(kind)), null, 'the required fields alone make a valid event');
    for (const [name, type, rule] of FIELDS[kind]) {
      if (type === 'str') {
        const got = check({ ...minimal(kind), [name]: 'y'.repeat(rule + 10) });
        assert.equal(got[name].length, rule, `${name} is cut at ${rule}`);
        assert.ok(got[name].endsWith('…'));
      }
      if (type === 'enum') {
        const got = check({ ...minimal(kind), [name]: 'not-a-value' });
        if (REQUIRED[kind].includes(name) && DEFAULTS[kind]?.[name] === undefined) assert.equal(got, null, `${name} must be one of ${rule}`);
        else assert.equal(got[name], DEFAULTS[kind]?.[name], `${name} outside its values is dropped`);
        for (const v of rule) assert.equal(check({ ...minimal(kind), [name]: v })[name], v);
      }
      if (REQUIRED[kind].includes(name)) {
        const raw = minimal(kind);
        delete raw[name];
        const got = check(raw);
        if (DEFAULTS[kind]?.[name] !== undefined) assert.equal(got[name], DEFAULTS[kind][name]);
        else assert.equal(got, null, `${name} is required`);
      }
      if (type !== 'enum') {
        const v = sample(type, rule);
        assert.deepEqual(check({ ...minimal(kind), [name]: v })[name], v, `${name} is kept`);
      }
    }
  });
}
