// Unit tests of execute_js on pages whose CSP forbids eval (userscripts/):
// when the MAIN world refuses eval, the script runs again in a USER_SCRIPT
// world, and without user scripts the command says where to allow them.
//
// Worlds are node vm contexts, each with its own built-ins: a "page" whose
// MAIN world refuses code generation from strings (as a CSP without
// 'unsafe-eval' does: new AsyncFunction throws EvalError) and a USER_SCRIPT
// world that allows it. chrome.scripting.executeScript and
// chrome.userScripts.execute run what they are given in those contexts,
// pristine.js and pageRun included, and copy the answer out as JSON. The
// ISOLATED world holds a relay that hands each script to the MAIN world's
// pristine.js, as pristine-relay.js does over its port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { runQuery } from '../commands.js';
import { readPageResult, USER_WORLD_NOTE } from '../jsresult.js';
import { MAX_RESULT_CHARS, PAGE_RUN_SOURCE, runInPristine, scriptSources } from '../page.js';
import { CommandError } from '../runner.js';
import { evalRefused, notAllowedText, runInUserScriptWorld, userScriptsApi, USER_WORLD_MARK, WORLD_CSP, WORLD_ID } from '../userscripts/execute.js';

const EXT_ID = 'ipimnlogmeffgddjpdmodnligphcpfag';
const file = (name) => readFileSync(new URL(`../${name}`, import.meta.url), 'utf8');
const copyOut = (v) => (v === undefined ? null : JSON.parse(JSON.stringify(v))); // what Chrome copies out of a world

// world is a JavaScript world of the page: its own global and built-ins.
function world({ evalAllowed }) {
  const ctx = vm.createContext({ setTimeout }, { codeGeneration: { strings: evalAllowed, wasm: false } });
  return {
    ctx,
    run: (source) => vm.runInContext(source, ctx),
  };
}

// fakeBrowser is one tab (7) showing url, document D1, with a MAIN world
// that refuses eval (unless mainEval) and, when userScripts is given, chrome.userScripts with
// a USER_SCRIPT world per worldId. calls records the API calls.
function fakeBrowser({ url = 'https://strict.test/', userScripts = 'allowed', mainEval = false } = {}) {
  const main = world({ evalAllowed: mainEval });
  main.run(file('dist/pristine.js')); // the document_start content script
  const kit = main.run('gasolinePristineKit');
  const isolated = world({ evalAllowed: true });
  isolated.ctx.gasolinePristineRelay = {
    connected: () => true,
    run: (runner, body, expr, maxChars) => new Promise((resolve) => kit.handle([1, runner, body, expr, maxChars, false], resolve)),
  };
  const worlds = new Map();
  const calls = { scripting: [], configure: [], execute: [] };
  const event = () => ({ addListener() {}, removeListener() {} });
  const inject = async (w, { func, args = [], files = [], js = [] }) => {
    let v;
    for (const f of files) v = w.run(file(f));
    for (const s of js) v = w.run(s.file ? file(s.file) : s.code);
    if (func) v = w.run(`(${func.toString()})(...${JSON.stringify(args)})`);
    return [{ documentId: 'D1', frameId: 0, result: copyOut(await v) }];
  };
  const api = {
    configureWorld: async (props) => {
      calls.configure.push(props);
    },
    execute: async (inj) => {
      calls.execute.push(inj);
      if (!worlds.has(inj.worldId)) {
        const conf = calls.configure.findLast((c) => c.worldId === inj.worldId);
        worlds.set(inj.worldId, world({ evalAllowed: /'unsafe-eval'/.test(conf?.csp ?? '') }));
      }
      return inject(worlds.get(inj.worldId), inj);
    },
  };
  globalThis.chrome = {
    runtime: { id: EXT_ID },
    tabs: { get: async (id) => ({ id, url, status: 'complete' }), onReplaced: event(), onRemoved: event() },
    webNavigation: { getFrame: async () => ({ documentId: 'D1', url }), getAllFrames: async () => [{ frameId: 0, documentId: 'D1', url }], onCommitted: event() },
    scripting: {
      executeScript: async (inj) => {
        calls.scripting.push(inj);
        return inject(inj.world === 'ISOLATED' ? isolated : main, inj);
      },
    },
  };
  if (userScripts === 'allowed') globalThis.chrome.userScripts = api;
  if (userScripts === 'throws') {
    Object.defineProperty(globalThis.chrome, 'userScripts', {
      get() {
        throw new Error('The userScripts API is only available for users in developer mode.');
      },
    });
  }
  return { calls, api, main };
}

const executeJs = (script) => runQuery({ action: 'execute_js', params: { script, tab_id: 7 } }, undefined);

test('evalRefused tells a CSP refusal from other failures', () => {
  const cases = [
    [{ ok: false, kind: 'compile', cls: 'eval', message: 'Code generation from strings disallowed' }, true],
    [{ ok: false, kind: 'compile', cls: 'other', message: "This document requires 'TrustedScript' assignment." }, true],
    [{ ok: false, kind: 'compile', cls: 'other', message: "violates the following Content Security Policy directive" }, true],
    [{ ok: false, kind: 'compile', cls: 'syntax', message: 'Unexpected token' }, false],
    [{ ok: false, kind: 'thrown', error: { name: 'EvalError', message: 'x' } }, false],
    [{ ok: true, value: 1 }, false],
    [undefined, false],
    [null, false],
  ];
  for (const [r, want] of cases) assert.equal(evalRefused(r), want, JSON.stringify(r));
});

test('userScriptsApi is null when user scripts are not allowed', () => {
  assert.equal(userScriptsApi({}), null);
  assert.equal(userScriptsApi(undefined), null);
  const throwing = Object.defineProperty({}, 'userScripts', { get() { throw new Error('developer mode'); } });
  assert.equal(userScriptsApi(throwing), null);
  const api = { execute() {} };
  assert.equal(userScriptsApi({ userScripts: api }), api);
});

test('the MAIN world of the fake page refuses eval as a strict CSP does', async () => {
  const { calls } = fakeBrowser({ userScripts: 'none' });
  const { body, expr } = scriptSources('1 + 1');
  const [res] = await chrome.scripting.executeScript({ target: { tabId: 7 }, world: 'ISOLATED', func: runInPristine, args: [PAGE_RUN_SOURCE, body, expr, 1000] });
  assert.equal(res.result.kind, 'compile');
  assert.equal(res.result.cls, 'eval');
  assert.equal(calls.scripting.length, 1);
});

test('on a page that refuses eval, execute_js runs the script in the USER_SCRIPT world', async (t) => {
  const { calls } = fakeBrowser();
  const cases = [
    { script: '"ab".toUpperCase()', want: 'AB' },
    { script: 'const x = 6;\nreturn x * 7', want: 42 },
    { script: 'await new Promise((r) => setTimeout(() => r("later"), 5))', want: 'later' },
    { script: '({a: [1, 2], n: NaN})', want: { a: [1, 2], n: 'NaN' } },
  ];
  for (const c of cases) {
    await t.test(c.script, async () => {
      const got = await executeJs(c.script);
      assert.deepEqual(got.value, c.want);
      assert.equal(got.world, 'USER_SCRIPT');
      assert.equal(got.tab_id, 7);
      assert.equal(got.url, 'https://strict.test/');
      assert.equal(got.builtins, 'pristine');
      assert.ok(got.hint.includes(USER_WORLD_NOTE), got.hint);
    });
  }
  const inj = calls.execute.at(-1);
  assert.equal(inj.world, 'USER_SCRIPT');
  assert.equal(inj.worldId, WORLD_ID);
  assert.equal(inj.injectImmediately, true);
  assert.deepEqual(inj.target, { tabId: 7, documentIds: ['D1'] });
  assert.deepEqual(inj.js.slice(0, 2), [{ code: USER_WORLD_MARK }, { file: 'dist/pristine.js' }]);
  assert.deepEqual(calls.configure.at(-1), { worldId: WORLD_ID, csp: WORLD_CSP, messaging: false });
});

test('globals a script sets in the USER_SCRIPT world are there for the next script', async () => {
  fakeBrowser();
  await executeJs('globalThis.counter = 41');
  const got = await executeJs('++counter');
  assert.equal(got.value, 42);
});

test('a failure in the USER_SCRIPT world says where the script ran', async () => {
  fakeBrowser();
  await assert.rejects(executeJs('const a = 1;\nreturn window.app.state'), (err) => {
    assert.ok(err instanceof CommandError);
    assert.match(err.message, /^Uncaught (ReferenceError|TypeError): /);
    assert.ok(err.message.includes(USER_WORLD_NOTE), err.message);
    return true;
  });
  await assert.rejects(executeJs('return ('), /does not compile: SyntaxError.*\n\(the script ran in the USER_SCRIPT world/s);
});

test('without user scripts, execute_js says where to allow them', async (t) => {
  for (const mode of ['none', 'throws']) {
    await t.test(mode, async () => {
      fakeBrowser({ userScripts: mode });
      await assert.rejects(executeJs('document.title'), (err) => {
        assert.ok(err instanceof CommandError);
        assert.equal(err.message, notAllowedText('https://strict.test/', EXT_ID));
        assert.match(err.message, /"Allow User Scripts" on the extension's details page \(chrome:\/\/extensions\/\?id=ipimnlogmeffgddjpdmodnligphcpfag/);
        assert.match(err.message, /Developer mode/);
        return true;
      });
    });
  }
});

test('a page that allows eval never reaches the USER_SCRIPT world', async () => {
  const { calls } = fakeBrowser({ mainEval: true });
  const got = await executeJs('6 * 7');
  assert.deepEqual([got.value, got.world, got.hint], [42, 'MAIN', undefined]);
  assert.equal(calls.execute.length, 0);
});

// The capture flush after execute_js flushes the frames execute_js asked
// for once its script was done (onFrames), not frames from before it; after
// a USER_SCRIPT run, whose script acts later than that look, it asks itself.
test('execute_js hands the frames it looked up after a MAIN script to onFrames, none after a USER_SCRIPT one', async () => {
  const { main } = fakeBrowser({ mainEval: true });
  let ran = false;
  globalThis.chrome.webNavigation.getAllFrames = async () => [{ frameId: 0, documentId: 'D1', url: 'https://strict.test/', ran }];
  const seen = [];
  const onFrames = (tabId, frames) => seen.push({ tabId, frames });
  const exec = (script) => runQuery({ action: 'execute_js', params: { script, tab_id: 7 } }, undefined, { onFrames });
  const sent = globalThis.chrome.scripting.executeScript;
  globalThis.chrome.scripting.executeScript = async (inj) => {
    const r = await sent(inj);
    ran = true;
    return r;
  };
  const got = await exec('6 * 7');
  assert.equal(got.url, 'https://strict.test/');
  assert.equal(seen.length, 1);
  assert.equal(seen[0].tabId, 7);
  assert.deepEqual(await seen[0].frames, [{ frameId: 0, documentId: 'D1', url: 'https://strict.test/', ran: true }], 'the frames were asked after the script ran');

  // The top document asked beside the origin rule's look is used, for its tab only.
  let getFrame = 0;
  globalThis.chrome.webNavigation.getFrame = async () => {
    getFrame++;
    return { documentId: 'D1', url: 'https://strict.test/' };
  };
  const topFrame = { tabId: 7, frame: Promise.resolve({ documentId: 'D1', url: 'https://strict.test/' }) };
  const pinned = await runQuery({ action: 'execute_js', params: { script: '6 * 7', tab_id: 7 } }, undefined, { topFrame });
  assert.deepEqual([pinned.value, getFrame], [42, 0]);
  await runQuery({ action: 'execute_js', params: { script: '6 * 7', tab_id: 7 } }, undefined, { topFrame: { ...topFrame, tabId: 8 } });
  assert.equal(getFrame, 1, 'another tab\'s top document used');

  fakeBrowser();
  globalThis.chrome.webNavigation.getAllFrames = async () => [{ frameId: 0, documentId: 'D1', url: 'https://strict.test/' }];
  seen.length = 0;
  const user = await exec('"ab".toUpperCase()');
  assert.equal(user.world, 'USER_SCRIPT');
  assert.equal(seen.length, 0, 'frames handed over after a USER_SCRIPT run');
});

test('a script that finishes after its command ended is dropped, and onLate says so', async () => {
  const { main } = fakeBrowser({ mainEval: true });
  const ended = new AbortController();
  let late = 0;
  let lateCalled;
  const called = new Promise((resolve) => {
    lateCalled = resolve;
  });
  const onLate = () => {
    late++;
    lateCalled();
  };
  const query = { action: 'execute_js', params: { script: 'await new Promise((r) => { globalThis.release = r; }); return "late"', tab_id: 7 } };
  const run = runQuery(query, ended.signal, { onLate });
  for (let i = 0; typeof main.ctx.release !== 'function'; i++) { // the script starts waiting in the page
    assert.ok(i < 1000, 'the script never started');
    await new Promise((r) => setImmediate(r));
  }
  ended.abort(new Error('command finished'));
  await assert.rejects(run, /command finished/);
  assert.equal(late, 0, 'onLate before the script finished');
  main.ctx.release();
  await called;
  assert.equal(late, 1);

  // A script that finished before its command ended is not late.
  const done = new AbortController();
  const got = await runQuery({ action: 'execute_js', params: { script: '6 * 7', tab_id: 7 } }, done.signal, { onLate });
  done.abort(new Error('command finished'));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual([got.value, late], [42, 1]);
});

test('runInUserScriptWorld explains what Chrome refused', async (t) => {
  const tab = { id: 7 };
  const target = { tabId: 7, documentIds: ['D1'] };
  const opts = { body: '1', expr: '1', maxChars: MAX_RESULT_CHARS, url: 'https://strict.test/' };
  await t.test('a document that is gone', async () => {
    const { api } = fakeBrowser();
    api.execute = async () => { throw new Error('No document with id D1 in tab with id 7'); };
    await assert.rejects(runInUserScriptWorld(tab, target, opts), (err) => err.reason === 'navigated' && /navigated \(a new document\)/.test(err.message));
  });
  await t.test('user scripts switched off while the worker runs', async () => {
    // Chrome keeps the object in a live worker; its calls fail.
    const { api } = fakeBrowser();
    api.configureWorld = async () => { throw new Error("'userScripts.configureWorld' is not available in this context."); };
    await assert.rejects(runInUserScriptWorld(tab, target, opts), (err) => err.message === notAllowedText(opts.url, EXT_ID));
  });
  await t.test('user scripts switched off during the call', async () => {
    const { api } = fakeBrowser();
    api.execute = async () => {
      delete globalThis.chrome.userScripts;
      throw new Error('Extension context invalidated.');
    };
    await assert.rejects(runInUserScriptWorld(tab, target, opts), (err) => err.message === notAllowedText(opts.url, EXT_ID));
  });
  await t.test('Chrome before 135', async () => {
    fakeBrowser();
    globalThis.chrome.userScripts = { configureWorld: async () => {} };
    await assert.rejects(runInUserScriptWorld(tab, target, opts), /chrome\.userScripts\.execute needs Chrome 135/);
  });
  await t.test('an injection error', async () => {
    const { api } = fakeBrowser();
    api.execute = async () => [{ documentId: 'D1', frameId: 0, error: 'Script failed' }];
    await assert.rejects(runInUserScriptWorld(tab, target, opts), /USER_SCRIPT world could not run the script in tab 7: Script failed/);
  });
});

test('readPageResult words a USER_SCRIPT result like a MAIN one, plus the note', () => {
  const r = { ok: true, value: 'x', compiled_as: 'expression', builtins: 'pristine' };
  const main = readPageResult(r, { script: 'x', url: 'u', maxChars: 100 });
  const user = readPageResult(r, { script: 'x', url: 'u', maxChars: 100, world: 'USER_SCRIPT' });
  assert.deepEqual(main, { value: 'x', builtins: 'pristine' });
  assert.deepEqual(user, { value: 'x', builtins: 'pristine', hint: USER_WORLD_NOTE });
});

test('in the USER_SCRIPT world pristine.js saves the built-ins once, there only', () => {
  const w = world({ evalAllowed: true });
  const keys = w.run('Object.keys');
  w.run(USER_WORLD_MARK);
  w.run(file('dist/pristine.js'));
  w.run('Object.keys = () => ["lie"]'); // an earlier agent script
  w.run(USER_WORLD_MARK);
  w.run(file('dist/pristine.js'));
  assert.equal(w.run('gasolineUserWorld.builtins.keys'), keys);
  assert.equal(w.run('Object.isFrozen(gasolineUserWorld.builtins)'), true);
  assert.equal(w.run('typeof gasolinePristineKit'), 'undefined');
});
