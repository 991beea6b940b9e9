// actions/runtime.js in a document loaded idle: channel.js may come after
// the runtime (tabs/reach.js); it then takes the channel when channel.js
// hands itself over (gasolineChannelLate), not never.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h, fakeDocument, loadCore } from './fakedom.js';

await loadCore();
globalThis.chrome = { runtime: { id: 'gasoline', onMessage: { addListener() {} } } };
globalThis.addEventListener ??= () => {};
globalThis.document ??= fakeDocument(h('body', {}));
delete globalThis.gasolineChannel;
await import('../actions/runtime.js');

test('the runtime started before channel.js listens to the channel once it comes', () => {
  const late = globalThis.gasolineChannelLate;
  assert.ok(Array.isArray(late) && late.length === 1, 'the runtime waits for the channel in the list channel.js calls');
  const on = [];
  late[0]({ on: (type) => on.push(type), send: () => true, acting: () => false });
  assert.deepEqual(on, ['dialog']);
});
