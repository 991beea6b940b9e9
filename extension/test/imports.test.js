// The extension's modules form no import cycle: shared helpers live in the
// module that owns the concept (tab rules in tabs/), and the ACTIONS table
// (commands.js) imports the handlers, never the other way round.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** jsFiles lists the .js files under dir, relative to ROOT. */
function jsFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...jsFiles(rel));
    else if (e.name.endsWith('.js')) out.push(rel);
  }
  return out;
}

// Static imports and re-exports (import x from '…', import '…', export … from
// '…') and dynamic import('…') with a literal specifier.
const SPECIFIER = /(?:^|[;\s])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[;\s])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** importsOf returns the extension files that file imports (relative specifiers only). */
function importsOf(file, src) {
  const out = [];
  for (const m of src.matchAll(SPECIFIER)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (!spec.startsWith('.')) continue;
    out.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
  }
  return out;
}

/** cycles returns every import cycle of graph (file → files), each as a path that ends where it starts. */
function cycles(graph) {
  const found = [];
  const state = new Map(); // file → 'open' | 'done'
  const stack = [];
  const visit = (f) => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) || []) {
      if (state.get(g) === 'open') found.push([...stack.slice(stack.indexOf(g)), g]);
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f);
  return found;
}

test('importsOf reads every import form, relative to the importing file', () => {
  const src = "import a from './a.js';\nimport { b, c } from '../b.js';\nimport '../actions/core.js';\nexport { d } from './d.js';\nconst e = await import('./e.js');\nimport x from 'node:fs';\n// the word import in a comment\n";
  assert.deepEqual(importsOf('actions/dom.js', src), ['actions/a.js', 'b.js', 'actions/core.js', 'actions/d.js', 'actions/e.js']);
});

test('cycles finds a cycle and none in a tree', () => {
  assert.deepEqual(cycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']]])), [['a', 'b', 'c', 'a']]);
  assert.deepEqual(cycles(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]])), []);
});

test('the extension has no import cycle', () => {
  const graph = new Map();
  // Everything but the tests, which nothing imports (and whose fixtures hold import lines).
  for (const f of jsFiles('.').map((f) => path.posix.normalize(f)).filter((f) => !f.startsWith('test/'))) {
    const deps = importsOf(f, fs.readFileSync(path.join(ROOT, f), 'utf8'));
    for (const d of deps) assert.ok(fs.existsSync(path.join(ROOT, d)), `${f} imports ${d}, which does not exist`);
    graph.set(f, deps);
  }
  assert.ok(graph.size > 40, `read ${graph.size} files`);
  const found = cycles(graph);
  assert.deepEqual(found.map((c) => c.join(' → ')), [], 'import cycles (move the shared helper to the module that owns its concept)');
});
