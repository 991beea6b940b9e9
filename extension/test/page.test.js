// Unit tests of pageRun, the function execute_js injects into pages, and of
// the worker's reading of its answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { raw, run } from './pagerun.js';
import { PAGE_RUN_SOURCE, runInPristine } from '../page.js';

const value = async (script) => {
  const { r, result, error } = await run(script);
  assert.equal(error, undefined, `failed: ${error}`);
  return { v: JSON.parse(JSON.stringify(result.value)), r, result }; // as Chrome copies it: plain objects
};

test('compiles expressions and function bodies', async (t) => {
  const cases = [
    { name: 'expression', script: '1 + 2', want: 3, as: 'expression' },
    { name: 'trailing semicolon', script: '  40 + 2;  \n', want: 42, as: 'expression' },
    { name: 'object literal', script: '{a: 1}', want: { a: 1 }, as: 'expression' },
    { name: 'trailing comment', script: '7 // seven', want: 7, as: 'expression' },
    { name: 'body with return', script: 'const x = 2;\nreturn x * 3', want: 6, as: 'body' },
    { name: 'await in expression', script: 'await Promise.resolve("later")', want: 'later', as: 'expression' },
    { name: 'await in body', script: 'const v = await new Promise(r => setTimeout(() => r(5), 5)); return v', want: 5, as: 'body' },
    { name: 'expression returning a promise', script: 'Promise.resolve([1, 2])', want: [1, 2], as: 'expression' },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const { v, r } = await value(c.script);
      assert.deepEqual(v, c.want);
      assert.equal(r.compiled_as, c.as);
      assert.equal(r.builtins, 'pristine');
    });
  }
});

test('undefined becomes null with type "undefined"', async () => {
  const { v, result } = await value('undefined');
  assert.equal(v, null);
  assert.equal(result.type, 'undefined');
  const body = await value('let x = 1; x++');
  assert.equal(body.result.type, 'undefined');
  assert.match(body.result.hint, /return/);
});

test('plain JSON conversions', async (t) => {
  const cases = [
    { name: 'NaN and Infinity as strings', script: '[NaN, Infinity, -Infinity]', want: ['NaN', 'Infinity', '-Infinity'] },
    { name: 'undefined in arrays and objects', script: '({a: undefined, b: [undefined, 1]})', want: { b: [null, 1] } },
    { name: 'Date', script: 'new Date(0)', want: '1970-01-01T00:00:00.000Z' },
    { name: 'invalid Date', script: 'new Date(NaN)', want: null },
    { name: 'toJSON', script: '({toJSON() { return {j: 1} }})', want: { j: 1 } },
    { name: 'Map with string keys', script: 'new Map([["a", 1], ["b", 2]])', want: { a: 1, b: 2 }, type: 'map' },
    { name: 'Map with object keys', script: 'new Map([[{k: 1}, "v"]])', want: [[{ k: 1 }, 'v']], type: 'map' },
    { name: 'Set', script: 'new Set([1, "x"])', want: [1, 'x'], type: 'set' },
    { name: 'typed array', script: 'new Uint8Array([1, 2])', want: [1, 2], type: 'typed_array' },
    { name: 'BigInt typed array', script: 'new BigInt64Array([1n])', want: ['1'], type: 'typed_array' },
    { name: 'shared reference is not a cycle', script: 'const o = {v: 1}; return [o, o, {o}]', want: [{ v: 1 }, { v: 1 }, { o: { v: 1 } }] },
    { name: 'class instance', script: 'class P { constructor() { this.x = 1 } }; return new P()', want: { x: 1 } },
    { name: '__proto__ key', script: 'JSON.parse(\'{"__proto__": {"a": 1}}\')', want: JSON.parse('{"__proto__": {"a": 1}}') },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const { v, result } = await value(c.script);
      assert.deepEqual(v, c.want);
      assert.equal(result.type, c.type);
    });
  }
  await t.test('Error value', async () => {
    const { v, result } = await value('new RangeError("bad")');
    assert.equal(result.type, 'error');
    assert.equal(v.name, 'RangeError');
    assert.equal(v.message, 'bad');
    assert.match(v.stack, /^RangeError: bad\n/);
  });
});

test('non-serialisable values are clear errors', async (t) => {
  const cases = [
    { name: 'cycle', script: 'const a = {}; a.self = a; return a', want: /\$\.self refers back to \$ \(a cycle\)/ },
    { name: 'nested cycle', script: 'const a = {b: {}}; a.b.up = a; return [a]', want: /\$\[0\]\.b\.up refers back to \$\[0\]/ },
    { name: 'BigInt', script: '10n', want: /\$ is a BigInt \(10n\)/ },
    { name: 'nested BigInt', script: '({n: 1n})', want: /\$\.n is a BigInt/ },
    { name: 'function', script: '() => 1', want: /\$ is a function/ },
    { name: 'nested function', script: '({f() {}})', want: /\$\.f is a function/ },
    { name: 'symbol', script: 'Symbol("s")', want: /\$ is a Symbol/ },
    { name: 'nested promise', script: '({p: Promise.resolve(1)})', want: /\$\.p is a Promise; await it/ },
    { name: 'throwing getter', script: '({get g() { throw new Error("nope") }})', want: /reading \$\.g threw Error: nope/ },
    { name: 'throwing toJSON', script: '({toJSON() { throw new TypeError("tj") }})', want: /\$\.toJSON\(\) threw TypeError: tj/ },
    { name: 'too deep', script: 'let o = {}; const root = o; for (let i = 0; i < 200; i++) { o.n = {}; o = o.n } return root', want: /nested more than 90 levels/ },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const { r, error } = await run(c.script);
      assert.equal(r.kind, 'not_serialisable');
      assert.match(error, c.want);
      assert.match(error, /not JSON-serialisable/);
    });
  }
});

test('thrown errors and rejections', async (t) => {
  const cases = [
    { name: 'throw in body', script: 'throw new TypeError("boom")', want: /^Uncaught TypeError: boom/ },
    { name: 'runtime error in expression', script: 'undefinedFunction()', want: /^Uncaught ReferenceError: undefinedFunction is not defined/ },
    { name: 'rejected promise', script: 'Promise.reject(new Error("rejected"))', want: /^Uncaught Error: rejected/ },
    { name: 'awaited rejection', script: 'await new Promise((_, rej) => setTimeout(() => rej(new SyntaxError("late")), 5))', want: /^Uncaught SyntaxError: late/ },
    { name: 'non-Error value', script: 'throw "plain string"', want: /^Uncaught non-Error value: "plain string"$/ },
    { name: 'error-shaped object', script: 'throw {name: "Custom", message: "shaped"}', want: /^Uncaught Custom: shaped$/ },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const { r, error } = await run(c.script);
      assert.equal(r.kind, 'thrown');
      assert.match(error, c.want);
      assert.doesNotMatch(error, /pageRun/, 'stack frames of pageRun itself are cut');
    });
  }
  await t.test('stack lines of the script are kept', async () => {
    const { error } = await run('function inner() { throw new Error("deep") }\ninner()');
    assert.match(error, /^Uncaught Error: deep\n\s+at inner \(script:1:26\)\n\s+at eval \(script:2:1\)$/);
    const expr = await run('1 +\n  missing');
    assert.match(expr.error, /^Uncaught ReferenceError: missing is not defined\n\s+at eval \(script:2:3\)$/);
  });
});

test('syntax errors', async () => {
  const { r, error } = await run('return (');
  assert.equal(r.kind, 'compile');
  assert.equal(r.cls, 'syntax');
  assert.match(error, /^the script does not compile: SyntaxError: /);
});

test('results over the size limit', async () => {
  const { r, error } = await run('"x".repeat(100)', 50);
  assert.equal(r.kind, 'too_large');
  assert.match(error, /over 50 characters of JSON/);
  const big = await run('Array.from({length: 1e6}, () => "abcdefgh")', 1000);
  assert.equal(big.r.kind, 'too_large', 'the walk stops at the limit');
  assert.ok(big.r.chars < 2000, `walked ${big.r.chars} characters past a limit of 1000`);
});

test('answers have no prototype a page could hook', async () => {
  const r = await raw('({a: [1, {b: 2}]})');
  assert.equal(Object.getPrototypeOf(r), null);
  assert.equal(Object.getPrototypeOf(r.value), null);
  assert.equal(Object.getPrototypeOf(r.value.a[1]), null);
  assert.ok(Array.isArray(r.value.a));
});

test('without pristine.js\'s port the relay asks for it', async () => {
  assert.equal(globalThis.gasolinePristineRelay, undefined);
  assert.deepEqual(await runInPristine(PAGE_RUN_SOURCE, '1', '1', 100), { ok: false, kind: 'no_pristine' });
});

test('the document\'s capture is flushed in the same injection, once the script has settled', async (t) => {
  const steps = [];
  let finish;
  globalThis.gasolinePristineRelay = { run: () => new Promise((resolve) => {
    steps.push('run');
    finish = () => resolve({ ok: true, value: 2 });
  }) };
  globalThis.gasolineRelay = async (polls) => {
    steps.push(['flush', polls]);
    return { ok: true, events: [{ kind: 'log' }], timers: 0 };
  };
  t.after(() => {
    delete globalThis.gasolinePristineRelay;
    delete globalThis.gasolineRelay;
  });
  const polls = [{ method: 'GET', url: 'http://page.test/poll' }];
  const answer = runInPristine(PAGE_RUN_SOURCE, '1 + 1', '1 + 1', 100, polls);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(steps, ['run'], 'nothing is flushed while the script runs');
  finish();
  assert.deepEqual(await answer, { ok: true, value: 2, flushed: { ok: true, events: [{ kind: 'log' }], timers: 0 } });
  assert.deepEqual(steps, ['run', ['flush', polls]]);

  // A flush that fails leaves the answer as it was: the worker flushes the document itself.
  globalThis.gasolineRelay = async () => {
    throw new Error('gone');
  };
  const plain = runInPristine(PAGE_RUN_SOURCE, '1', '1', 100);
  finish();
  assert.deepEqual(await plain, { ok: true, value: 2 });
  // No port: no flush either.
  globalThis.gasolinePristineRelay = { run: () => ({ ok: false, kind: 'no_pristine' }) };
  assert.deepEqual(await runInPristine(PAGE_RUN_SOURCE, '1', '1', 100), { ok: false, kind: 'no_pristine' });
});

test('a CSP that forbids eval is reported as such', () => {
  // --disallow-code-generation-from-strings makes new Function throw EvalError, as a page CSP without 'unsafe-eval' does.
  const helper = fileURLToPath(new URL('./pagerun.js', import.meta.url));
  const prog = `import(${JSON.stringify(helper)}).then(async (m) => console.log(JSON.stringify(await m.run('1 + 1'))))`;
  const out = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', prog], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  const { r, error } = JSON.parse(out.stdout);
  assert.equal(r.kind, 'compile');
  assert.match(error, /Content-Security-Policy blocks eval, so execute_js cannot run scripts on http:\/\/page\.test\//);
});
