// The worker's messages to the DOM runtime against their one declaration
// (page-ops.js, generated from internal/tools/interact_pageops.go): the
// worker builds each through pageMessage, which refuses an op, a field or
// an act option the declarations do not have, and the runtime's handle
// refuses such a message too, naming what is wrong. Go's
// TestPageOpsHandled checks that the runtime handles exactly the declared
// ops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { h, fakeDocument, loadCore } from './fakedom.js';
import { PAGE_OPS, PAGE_ANSWERS, VERB_RESULT_OPS } from '../page-ops.js';
import { pageMessage, takes, ADDRESS } from '../actions/page-message.js';
import { messageFault } from '../actions/runtime/message.js';

await loadCore();
globalThis.chrome = { runtime: { id: 'gasoline', onMessage: { addListener() {} } } };
globalThis.addEventListener ??= () => {};
globalThis.document ??= fakeDocument(h('body', {}));
await import('../actions/runtime.js');
const { handle } = globalThis.gasolineRuntime;

test('pageMessage builds a declared message and leaves out what is null or undefined', () => {
  assert.deepEqual(pageMessage({ op: 'ping' }), { gasoline: 'dom', op: 'ping' });
  assert.deepEqual(pageMessage({ op: 'wait', target: { selector: '#a' }, state: 'visible', timeout_ms: 10, prefix: 'e' }),
    { gasoline: 'dom', op: 'wait', target: { selector: '#a' }, state: 'visible', timeout_ms: 10, prefix: 'e' });
  assert.deepEqual(pageMessage({ op: 'metrics', target: null, scope: undefined }), { gasoline: 'dom', op: 'metrics' });
  assert.deepEqual(pageMessage({ op: 'act', action: 'click', target: { ref: 'e1' }, opts: { button: 'right' }, timeout_ms: 500 }).opts, { button: 'right' });
  assert.deepEqual(pageMessage({ op: 'act', action: 'drag', target: { ref: 'e1' }, opts: { to: { ref: 'e2' } }, timeout_ms: 500 }).opts, { to: { ref: 'e2' } });
});

test('pageMessage refuses an undeclared op or field, a wrong type, a missing field, naming it', () => {
  const cases = [
    { msg: { op: 'wiat', target: { ref: 'e1' }, timeout_ms: 1 }, want: /unknown runtime op "wiat"/ },
    { msg: { op: 'wait', target: { ref: 'e1' }, timeout_ms: 1, stat: 'visible' }, want: /op wait has no field "stat"/ },
    { msg: { op: 'wait', target: { ref: 'e1' } }, want: /op wait needs field timeout_ms/ },
    { msg: { op: 'wait', target: 'e1', timeout_ms: 1 }, want: /field target must be an object/ },
    { msg: { op: 'act', action: 'query', opts: { limit: 0 }, timeout_ms: 1 }, want: /opts\.limit of query must be at least 1/ },
    { msg: { op: 'wait', state: 'shown', timeout_ms: 1 }, want: /field state must be one of attached, visible, hidden, detached/ },
    { msg: { op: 'metrics', prefix: 'e' }, want: /op metrics has no field "prefix" \(it takes none;/ },
  ];
  for (const { msg, want } of cases) {
    assert.throws(() => pageMessage(msg), want, JSON.stringify(msg));
  }
});

test('act\'s opts are the params the contract declares for its action, less where it runs', () => {
  const act = (action, opts) => () => pageMessage({ op: 'act', action, opts, timeout_ms: 100 });
  assert.throws(act('click', { buton: 'left' }), /opts\.buton is not an option of click \(its page verb takes button, click_count, modifiers, dialog/);
  assert.throws(act('click', { settle_ms: 0 }), /opts\.settle_ms is not an option of click/, 'settle_ms is read by the worker');
  assert.throws(act('click', { button: 'up' }), /opts\.button of click must be one of left, middle, right/);
  assert.throws(act('clack', {}), /the contract declares no action "clack"/);
  assert.doesNotThrow(act('get_text', { max_chars: 8000 }));
  for (const name of ['target', 'frame', 'tab_id', 'force', 'settle_ms']) assert.ok(ADDRESS.has(name), name);
});

test('takes says which ops carry a field (call adds the prefix only where declared)', () => {
  assert.equal(takes('act', 'prefix'), true);
  assert.equal(takes('metrics', 'prefix'), false);
  assert.equal(takes('nope', 'prefix'), false);
});

test('the runtime refuses an undeclared op or field with a message naming it', async () => {
  for (const [msg, want] of [
    [{ gasoline: 'dom', op: 'pong' }, /unknown runtime op "pong"/],
    [{ gasoline: 'dom', op: 'ping', nonce: 'x' }, /op ping has no field "nonce"/],
    [{ gasoline: 'dom', op: 'scroll' }, /op scroll needs field y/],
    [{ gasoline: 'dom', op: 'probe', nonce: 3 }, /field nonce must be a string/],
  ]) {
    const r = await handle(msg);
    assert.equal(r.ok, false, JSON.stringify(msg));
    assert.equal(r.reason, 'internal');
    assert.match(r.message, /^extension bug: /);
    assert.match(r.message, want);
  }
});

test('the runtime\'s answers carry the fields PAGE_ANSWERS declares', async () => {
  // A relay in the runtime's world (capture/relay.js) answers the flush.
  const polls = [];
  const asked = [];
  globalThis.gasolineRelay = async (p, o) => {
    polls.push(p);
    asked.push(o);
    return { ok: true, events: [], timers: 0 };
  };
  try {
    for (const msg of [{ op: 'ping' }, { op: 'probe', nonce: 'n' }, { op: 'probed' }, { op: 'changed', flush: { polls: [{ method: 'GET', url: 'https://a.test/poll' }] } }]) {
      const r = await handle(pageMessage(msg));
    assert.equal(r.ok, true, `${msg.op}: ${r.message}`);
      const { ok, ...rest } = r;
      const declared = Object.keys(PAGE_ANSWERS[msg.op]);
      for (const name of Object.keys(rest)) assert.ok(declared.includes(name), `${msg.op} answers ${name}, which PAGE_ANSWERS does not declare`);
      for (const name of declared) assert.ok(Object.hasOwn(rest, name), `${msg.op} does not answer ${name}`);
    }
    assert.deepEqual(polls, [[{ method: 'GET', url: 'https://a.test/poll' }]], 'the flush is the relay\'s, given the polls');
    assert.deepEqual(asked, [true], 'not while the op\'s submit or link is about to take the document away');
  } finally {
    delete globalThis.gasolineRelay;
  }
});

test('an op asked to flush answers without flushed where no relay is, or the relay fails', async () => {
  const r = await handle(pageMessage({ op: 'changed', flush: { polls: [] } }));
  assert.equal(r.ok, true);
  assert.equal(Object.hasOwn(r, 'flushed'), false);
  globalThis.gasolineRelay = async () => {
    throw new Error('port closed');
  };
  try {
    const failed = await handle(pageMessage({ op: 'changed', flush: { polls: [] } }));
    assert.equal(failed.ok, true, 'what changed is answered all the same');
    assert.equal(Object.hasOwn(failed, 'flushed'), false);
  } finally {
    delete globalThis.gasolineRelay;
  }
});

test('PAGE_OPS and PAGE_ANSWERS declare the same ops; act alone answers a verb\'s result', () => {
  assert.deepEqual(Object.keys(PAGE_ANSWERS), Object.keys(PAGE_OPS));
  assert.deepEqual([...VERB_RESULT_OPS], ['act']);
  assert.equal(messageFault({ gasoline: 'dom', op: 'ping' }), '');
  assert.equal(messageFault(null), 'the message is not an object');
});

test('every message to the runtime is built by pageMessage: no source writes {gasoline: "dom"} itself', () => {
  const root = new URL('../', import.meta.url);
  const skip = new Set(['node_modules', 'dist', 'test']);
  const files = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(new URL(dir, root), { withFileTypes: true })) {
      if (e.isDirectory() && !skip.has(e.name)) walk(`${dir}${e.name}/`);
      else if (e.isFile() && e.name.endsWith('.js')) files.push(dir + e.name);
    }
  };
  walk('');
  assert.ok(files.includes('actions/dom.js'));
  for (const f of files) {
    if (f === 'actions/page-message.js') continue;
    const src = fs.readFileSync(new URL(f, root), 'utf8');
    assert.doesNotMatch(src, /gasoline: 'dom'/, `${f} writes a runtime message itself; build it with pageMessage (actions/page-message.js)`);
  }
});

test('query is a page verb that finds its elements itself: act waits for none to be actionable', async () => {
  // The fake DOM has no layout: the e2e tests (TestHandsInput) run query on a page.
  const bad = await handle(pageMessage({ op: 'act', action: 'query', opts: { limit: 10 }, timeout_ms: 0 }));
  assert.deepEqual([bad.ok, bad.reason], [false, 'bad_target']);
  assert.match(bad.message, /^query needs a target/, 'the verb, not act, says so');
});
