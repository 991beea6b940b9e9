// Unit tests of pageRun, the function execute_js injects into pages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pageRun } from '../page.js';

const value = (r) => {
  assert.equal(r.ok, true, `not ok: ${r.kind}: ${r.message}`);
  return JSON.parse(r.json);
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
      const r = await pageRun(c.script);
      assert.deepEqual(value(r), c.want);
      assert.equal(r.compiled_as, c.as);
    });
  }
});

test('undefined becomes null with type "undefined"', async () => {
  const r = await pageRun('undefined');
  assert.equal(r.json, 'null');
  assert.equal(r.type, 'undefined');
  const body = await pageRun('let x = 1; x++');
  assert.equal(body.type, 'undefined');
  assert.match(body.hint, /return/);
});

test('plain JSON conversions', async (t) => {
  const cases = [
    { name: 'NaN and Infinity as strings', script: '[NaN, Infinity, -Infinity]', want: ['NaN', 'Infinity', '-Infinity'] },
    { name: 'undefined in arrays and objects', script: '({a: undefined, b: [undefined, 1]})', want: { b: [null, 1] } },
    { name: 'Date via toJSON', script: 'new Date(0)', want: '1970-01-01T00:00:00.000Z' },
    { name: 'Map with string keys', script: 'new Map([["a", 1], ["b", 2]])', want: { a: 1, b: 2 }, type: 'map' },
    { name: 'Map with object keys', script: 'new Map([[{k: 1}, "v"]])', want: [[{ k: 1 }, 'v']], type: 'map' },
    { name: 'Set', script: 'new Set([1, "x"])', want: [1, 'x'], type: 'set' },
    { name: 'typed array', script: 'new Uint8Array([1, 2])', want: [1, 2], type: 'typed_array' },
    { name: 'shared reference is not a cycle', script: 'const o = {v: 1}; return [o, o, {o}]', want: [{ v: 1 }, { v: 1 }, { o: { v: 1 } }] },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const r = await pageRun(c.script);
      assert.deepEqual(value(r), c.want);
      assert.equal(r.type, c.type);
    });
  }
  await t.test('Error value', async () => {
    const r = await pageRun('new RangeError("bad")');
    const v = value(r);
    assert.equal(r.type, 'error');
    assert.equal(v.name, 'RangeError');
    assert.equal(v.message, 'bad');
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
    { name: 'too deep', script: 'let o = {}; const root = o; for (let i = 0; i < 200; i++) { o.n = {}; o = o.n } return root', want: /nested more than 100 levels/ },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const r = await pageRun(c.script);
      assert.equal(r.ok, false);
      assert.equal(r.kind, 'not_serialisable');
      assert.match(r.message, c.want);
    });
  }
});

test('thrown errors and rejections', async (t) => {
  const cases = [
    { name: 'throw in body', script: 'throw new TypeError("boom")', want: /^TypeError: boom/ },
    { name: 'runtime error in expression', script: 'undefinedFunction()', want: /^ReferenceError: undefinedFunction is not defined/ },
    { name: 'rejected promise', script: 'Promise.reject(new Error("rejected"))', want: /^Error: rejected/ },
    { name: 'awaited rejection', script: 'await new Promise((_, rej) => setTimeout(() => rej(new SyntaxError("late")), 5))', want: /^SyntaxError: late/ },
    { name: 'non-Error value', script: 'throw "plain string"', want: /"plain string"/ },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const r = await pageRun(c.script);
      assert.equal(r.ok, false);
      assert.equal(r.kind, 'thrown');
      assert.match(r.message, c.want);
      assert.doesNotMatch(r.message, /pageRun/, 'stack frames of pageRun itself are cut');
    });
  }
  await t.test('stack lines of the script are kept', async () => {
    const r = await pageRun('function inner() { throw new Error("deep") }\ninner()');
    assert.match(r.message, /^Error: deep\n\s+at inner \(script:1:26\)\n\s+at eval \(script:2:1\)$/);
    const expr = await pageRun('1 +\n  missing');
    assert.match(expr.message, /^ReferenceError: missing is not defined\n\s+at eval \(script:2:3\)$/);
  });
});

test('syntax errors', async () => {
  const r = await pageRun('return (');
  assert.equal(r.ok, false);
  assert.equal(r.kind, 'syntax');
  assert.match(r.message, /^SyntaxError: /);
});

test('results over the size limit', async () => {
  const r = await pageRun('"x".repeat(100)', 50);
  assert.equal(r.ok, false);
  assert.equal(r.kind, 'too_large');
});

test('a CSP that forbids eval is reported as such', () => {
  // --disallow-code-generation-from-strings makes new Function throw EvalError, as a page CSP without 'unsafe-eval' does.
  const page = fileURLToPath(new URL('../page.js', import.meta.url));
  const prog = `import(${JSON.stringify(page)}).then(async (m) => console.log(JSON.stringify(await m.pageRun('1 + 1'))))`;
  const out = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--input-type=module', '-e', prog], { encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  const r = JSON.parse(out.stdout);
  assert.equal(r.ok, false);
  assert.equal(r.kind, 'csp');
});
