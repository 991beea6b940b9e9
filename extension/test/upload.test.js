// Unit tests of the upload action's page side (actions/verbs/upload.js) in a vm
// context with a stand-in runtime, file input and DataTransfer. The daemon
// checks the files it reads (internal/upload); the worker runs upload on
// the generic path (actions/verb.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import vm from 'node:vm';

const b64 = (s) => Buffer.from(s).toString('base64');

/** Stand-ins for the page's DOM types the page script uses. */
class FakeInput {
  constructor({ type = 'file', multiple = false, disabled = false, id = 'f' } = {}) {
    Object.assign(this, { localName: 'input', type, multiple, disabled, id, files: [], events: [] });
  }

  dispatchEvent(e) {
    this.events.push([e.type, e.bubbles]);
    return true;
  }
}
class FakeDataTransfer {
  constructor() {
    const list = [];
    this.items = { add: (f) => list.push(f) };
    this.files = list;
  }
}

/** pageAction loads actions/verbs/upload.js and returns the action it adds and its needs. */
function pageAction() {
  const added = {};
  class Failure extends Error {
    constructor(reason, message) {
      super(message);
      this.reason = reason;
    }
  }
  const ctx = vm.createContext({
    atob, Uint8Array, Array, String, Number, Date, Event, File,
    DataTransfer: FakeDataTransfer,
    gasolineRuntime: {
      addAction: (name, needs, fn) => { added[name] = { needs, fn }; },
      Failure,
      describe: (el) => `${el.localName}#${el.id}`,
    },
  });
  ctx.globalThis = ctx;
  vm.runInContext(fs.readFileSync(new URL('../actions/verbs/upload.js', import.meta.url), 'utf8'), ctx);
  return added.upload;
}

test('the page side sets File objects on the input and fires input and change', async () => {
  const { needs, fn } = pageAction();
  assert.deepEqual({ ...needs }, { enabled: true, control: true, invisible: true }, 'hidden inputs are fine');
  const input = new FakeInput({ multiple: true });
  const got = await fn(input, { files: [
    { name: 'a.txt', type: 'text/plain', last_modified: 1700000000000, data: b64('hello') },
    { name: 'b.bin', type: '', last_modified: 0, data: Buffer.from([0, 255]).toString('base64') },
  ] });
  assert.deepEqual(JSON.parse(JSON.stringify(got)), { files: [{ name: 'a.txt', size: 5, type: 'text/plain' }, { name: 'b.bin', size: 2, type: '' }] });
  assert.equal(await input.files[0].text(), 'hello');
  assert.equal(input.files[0].lastModified, 1700000000000);
  assert.deepEqual([...new Uint8Array(await input.files[1].arrayBuffer())], [0, 255]);
  assert.deepEqual(input.events, [['input', true], ['change', true]]);
});

test('the page side finds the input in a label or a container, and refuses other elements', async () => {
  const { fn } = pageAction();
  const one = [{ name: 'a.txt', type: 'text/plain', data: b64('x') }];
  const inner = new FakeInput({ id: 'inner' });
  const drop = { localName: 'div', id: 'drop', querySelectorAll: () => [inner] };
  await fn(drop, { files: one });
  assert.equal(inner.files.length, 1);
  const label = { localName: 'label', id: 'l', control: new FakeInput({ id: 'by-label' }) };
  await fn(label, { files: one });
  assert.equal(label.control.files.length, 1);

  const cases = [
    { el: { localName: 'button', id: 'send', querySelectorAll: () => [] }, files: one, reason: 'not_editable', text: /button#send is not a file input/ },
    { el: { localName: 'div', id: 'two', querySelectorAll: () => [new FakeInput(), new FakeInput()] }, files: one, reason: 'not_editable', text: /holds none \(or several\)/ },
    { el: new FakeInput({ type: 'text' }), files: one, reason: 'not_editable', text: /not a file input/ },
    { el: new FakeInput(), files: [...one, ...one], reason: 'not_editable', text: /takes one file \(no multiple attribute\), not 2/ },
    { el: new FakeInput({ disabled: true }), files: one, reason: 'disabled', text: /is disabled/ },
  ];
  for (const c of cases) {
    await assert.rejects(fn(c.el, { files: c.files }), (e) => e.reason === c.reason && c.text.test(e.message));
  }
});
