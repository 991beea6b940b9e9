// The drift test of the DOM actions' one path: every action the daemon
// declares with a page verb (contract.js DOM_ACTIONS, generated from
// internal/tools/interact_dom.go) runs through the generic handler
// (actions/verb.js) and has its verb in the page runtime (runtime.js, or
// its own file under actions/verbs/, which registers that verb alone);
// every verb the runtime has is an action the daemon declares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { h, fakeDocument, loadCore } from './fakedom.js';
import { CONTRACT, DOM_ACTIONS, PAGE_VERB_FILES } from '../contract.js';

await loadCore();
globalThis.chrome = { runtime: { id: 'gasoline', onMessage: { addListener() {} } } };
globalThis.addEventListener ??= () => {};
globalThis.document ??= fakeDocument(h('body', {}));
await import('../actions/runtime.js');
const rt = globalThis.gasolineRuntime;
const builtIn = new Set(rt.verbs());

// Each verb file is loaded with addAction watched: what it registers.
const byFile = {};
const add = rt.addAction;
for (const file of PAGE_VERB_FILES) {
  byFile[file] = [];
  rt.addAction = (name, ...rest) => {
    byFile[file].push(name);
    return add(name, ...rest);
  };
  await import(`../${file}`);
}
rt.addAction = add;
const verbs = new Set(rt.verbs());

const extension = join(dirname(fileURLToPath(import.meta.url)), '..');

test('every DOM action has its page verb, and every page verb an action', () => {
  assert.ok(Object.keys(DOM_ACTIONS).length >= 10, 'DOM_ACTIONS is nearly empty: the contract is broken');
  for (const [action, spec] of Object.entries(DOM_ACTIONS)) {
    assert.ok(Object.hasOwn(CONTRACT, action), `${action} has no params in CONTRACT`);
    assert.ok(verbs.has(spec.verb), `${action}: the page runtime has no verb ${spec.verb}; add actions/verbs/${spec.verb}.js (or drop the Go declaration)`);
    assert.equal(!builtIn.has(spec.verb), Boolean(spec.file), `${action}: its verb is ${builtIn.has(spec.verb) ? 'in runtime.js, yet declared a file' : 'not in runtime.js, yet declared no file'}`);
  }
  for (const verb of verbs) {
    assert.ok(Object.hasOwn(CONTRACT, verb), `the page runtime has a verb ${verb}, which no Go action declares`);
  }
});

test('each page verb file registers its one verb, named by the file, and every file is declared', () => {
  for (const [file, names] of Object.entries(byFile)) {
    assert.deepEqual(names, [basename(file, '.js')], `${file} registers ${names.join(', ') || 'nothing'}`);
  }
  const onDisk = readdirSync(join(extension, 'actions', 'verbs')).filter((f) => f.endsWith('.js')).map((f) => `actions/verbs/${f}`);
  assert.deepEqual(onDisk.sort(), [...PAGE_VERB_FILES].sort(), 'the files under actions/verbs/ are the declared page verb files');
});

test('the generic handler runs every DOM action, and ACTIONS routes them to it', async () => {
  const { VERB_ACTIONS } = await import('../actions/verb.js');
  const { ACTIONS } = await import('../commands.js');
  assert.deepEqual(Object.keys(VERB_ACTIONS).sort(), Object.keys(DOM_ACTIONS).sort());
  for (const action of Object.keys(DOM_ACTIONS)) {
    assert.equal(ACTIONS[action], VERB_ACTIONS[action], `ACTIONS.${action} is not the generic handler`);
  }
});

test('the generic path gives the verb the action\'s own params, and reads what says where', async () => {
  const { verbCall } = await import('../actions/verb.js');
  const { paramsOf } = await import('../params.js');
  const click = verbCall('click', paramsOf('click', { target: { selector: '#go' }, button: 'right', tab_id: 3, settle_ms: 0, frame: 'iframe' }));
  assert.deepEqual(click, { verb: 'click', opts: { button: 'right' }, how: { needsTarget: true, targetless: false, reads: false } });
  const fill = verbCall('fill', paramsOf('fill', { target: { ref: 'e4' }, text: '' }));
  assert.deepEqual(fill.opts, { text: '' }, 'fill\'s text is what it enters');
  const text = verbCall('get_text', paramsOf('get_text', { max_chars: 9 }));
  assert.deepEqual(text, { verb: 'get_text', opts: { max_chars: 9 }, how: { needsTarget: false, targetless: false, reads: true } });
  assert.deepEqual(verbCall('key_press', paramsOf('key_press', { key: 'Enter', target: { text: 'x' } })).opts, { key: 'Enter' });
  assert.equal(verbCall('click_at', paramsOf('click_at', { x: 1, y: 2 })).how.targetless, true);
});
