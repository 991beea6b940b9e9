// A hostile page: it replaces, after pristine.js ran, every built-in that
// pageRun could use to read a result, and tries to receive the scripts sent
// to it. The page is a separate realm (node:vm), as a tab is; each script
// is handed to pristine.js's request handler with pageRun's source, as the
// relay hands it over the private port, and the answer is copied out with
// structuredClone, as the port copies it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { MAX_RESULT_CHARS } from '../page.js';
import { handOver } from './pagerun.js';
import { readPageResult } from '../jsresult.js';

const PRISTINE = readFileSync(new URL('../dist/pristine.js', import.meta.url), 'utf8');

// The page's own code, run after pristine.js.
const HOSTILE = `
  globalThis.stolen = [];
  globalThis.pageTitle = 'Real Title';
  const lie = 'All tests passed';
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  const FakeAsync = function (src) { stolen.push(String(src)); return async () => lie; };
  Object.defineProperty(AsyncFunction.prototype, 'constructor', { value: FakeAsync });
  globalThis.Function = FakeAsync;
  const realThen = Promise.prototype.then;
  Promise.prototype.then = function (ok, bad) { return realThen.call(this, () => ok && ok(lie), bad); };
  Object.defineProperty(Promise.prototype, 'constructor', { get() { return function Fake(ex) { return new Promise(ex); }; } });
  Object.defineProperty(Object.prototype, 'then', { configurable: true, get() { return (resolve) => resolve(lie); } });
  Object.prototype.toJSON = () => lie;
  Object.defineProperty(Array.prototype, '0', { configurable: true, set(v) { stolen.push('index set'); } });
  Object.defineProperty(Object.prototype, 'value', { configurable: true, set(v) { stolen.push('value set'); } });
  JSON.stringify = () => JSON.parse('"' + lie + '"');
  JSON.parse = () => lie;
  globalThis.String = function () { return 'https://bank.example/'; };
  Array.from = () => [lie];
  Array.isArray = () => false;
  Object.keys = () => ['lie'];
  Object.getPrototypeOf = () => ({ constructor: FakeAsync });
  Object.defineProperty = () => {};
  Reflect.apply = () => lie;
  Reflect.defineProperty = () => true;
  Function.prototype.call = function () { return lie; };
  Function.prototype.apply = function () { return lie; };
  globalThis.Map = class { constructor() { return { lie }; } };
  globalThis.Set = globalThis.Map;
  String.prototype.slice = () => lie;
  String.prototype.replace = () => lie;
  String.prototype.charCodeAt = () => 0;
  RegExp.prototype.exec = () => null;
  RegExp.prototype[Symbol.replace] = () => lie;
  Error.isError = () => false;
  Object.defineProperty(Map.prototype, 'size', { get() { return 0; } });
  Map.prototype.entries = function () { return [][Symbol.iterator](); };
`;

// page makes a realm, runs pristine.js in it and then the page's own code,
// and returns the realm and pristine.js's request handler (which, in a
// browser, only the relay's port reaches).
function page(before = '', after = '') {
  const ctx = vm.createContext({});
  vm.runInContext(before, ctx);
  vm.runInContext(PRISTINE, ctx);
  const kit = vm.runInContext('const k = gasolinePristineKit; delete globalThis.gasolinePristineKit; k', ctx);
  vm.runInContext(after, ctx);
  return { ctx, run: (script, late = false) => handOver(kit, script, MAX_RESULT_CHARS, late) };
}

function hostilePage() {
  return page('', HOSTILE);
}

test('a page that replaced the built-ins cannot change a result', async (t) => {
  const page = hostilePage();
  const cases = [
    { name: 'a page value', script: 'pageTitle', want: 'Real Title' },
    { name: 'nested data', script: '({a: [1, "two", {three: 3}], b: null, c: true})', want: { a: [1, 'two', { three: 3 }], b: null, c: true } },
    { name: 'a body with await', script: 'const t = await pageTitle; return t', want: 'Real Title' },
    { name: 'an expression with await', script: '[await pageTitle, (await pageTitle).length]', want: ['Real Title', 10] },
    { name: 'a Date', script: 'new Date(0)', want: '1970-01-01T00:00:00.000Z' },
    { name: 'an array', script: '[pageTitle]', want: ['Real Title'] },
    { name: 'NaN', script: '[NaN, 1/0]', want: ['NaN', 'Infinity'] },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const r = await page.run(c.script);
      assert.equal(r.ok, true, `not ok: ${r.kind} ${r.message ?? r.error?.message ?? ''}`);
      assert.equal(r.builtins, 'pristine');
      const got = readPageResult(r, { script: c.script, url: '', maxChars: MAX_RESULT_CHARS });
      assert.deepEqual(JSON.parse(JSON.stringify(got.value)), c.want);
    });
  }
  await t.test('errors are the script\'s', async () => {
    const r = await page.run('throw new RangeError("real")');
    assert.equal(r.kind, 'thrown');
    assert.equal(r.error.name, 'RangeError');
    assert.equal(r.error.message, 'real');
  });
  const stolen = vm.runInContext('stolen.join("|")', page.ctx);
  assert.equal(stolen, '', `the page received: ${stolen}`);
});

test('a tab loaded before the extension started says its built-ins are the page\'s', async () => {
  const p = page('JSON.stringify = () => "lie"'); // the page ran first
  const r = await p.run('1', true);
  assert.equal(r.builtins, 'page');
  const got = readPageResult(r, { script: '1', url: '', maxChars: 100 });
  assert.match(got.hint, /loaded before the extension started.*reload the tab/);
});

// A page that hooks a DOM method and Error.prepareStackTrace to reach the
// function objects on the stack (.caller, .arguments, CallSite.getFunction)
// and read their source: the scripts and pageRun are strict code, so it
// gets none of them, and pageRun reads no stack while the page formats
// stacks, so the hook never receives an error the script threw.
test('a page hook reaches no function of the script or of pageRun', async (t) => {
  const { ctx, run } = page('', `
    globalThis.stolen = [];
    const grab = (f) => { if (typeof f === 'function') stolen.push(Function.prototype.toString.call(f)); };
    globalThis.probe = function probe() {
      for (let f = probe.caller, i = 0; f && i < 10; f = f.caller, i++) { grab(f); try { stolen.push(String([...f.arguments])); } catch {} }
      return 'probed';
    };
    Error.prepareStackTrace = (err, sites) => {
      stolen.push('error ' + err.message);
      for (const s of sites) { grab(s.getFunction()); grab(s.getThis()); }
      return 'stack';
    };
  `);
  for (const script of [
    '[probe(), new Error("x").stack, "SECRET-1"]',
    'const s = "SECRET-2"; probe(); void new Error("y").stack; return s',
    'function helper() { return probe() } helper(); throw new Error("SECRET-3")',
    'await null; probe(); new Error().stack; "SECRET-4"',
  ]) {
    await t.test(script, async () => {
      const r = await run(script);
      assert.ok(r.ok || r.kind === 'thrown', `${r.kind}: ${r.message ?? ''}`);
    });
  }
  const stolen = vm.runInContext('stolen.join("|")', ctx);
  assert.doesNotMatch(stolen, /SECRET|gasoline|pageRun/, `the page received: ${stolen}`);
});
