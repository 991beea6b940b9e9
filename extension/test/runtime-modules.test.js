// The DOM runtime's modules (actions/runtime.js, its entry, and runtime/):
// small functions with a doc comment each, as the style asks of the
// extension, every module used by the entry, every built-in verb a module
// of runtime/verbs/, and one injected file for all of them (dist/runtime.js,
// what scripts/bundle makes of the entry).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { h, fakeDocument, loadCore } from './fakedom.js';

const actions = new URL('../actions/', import.meta.url);
const read = (f) => fs.readFileSync(new URL(f, actions), 'utf8');
const inDir = (d) => fs.readdirSync(new URL(d, actions)).filter((f) => f.endsWith('.js')).map((f) => d + f);
const runtimeFiles = ['runtime.js', ...inDir('runtime/'), ...inDir('runtime/verbs/')];
/** checked are the files whose functions the length and doc rules hold for: the runtime's, the page verbs' and their injection's. */
const checked = [...runtimeFiles, ...inDir('verbs/'), 'inject.js', 'verb.js'];

/** MAX_LINES is the most lines a function (from its first line to its closing brace) may take. */
const MAX_LINES = 80;

/** OPENS matches the first line of a function written at a module's top level. */
const OPENS = /^(export )?(async )?function |^(export )?const \w+ = (\(.*\)|\w+) => \{$/;

test('no function of the DOM runtime is over MAX_LINES lines, and each has a doc comment', () => {
  for (const f of checked) {
    const lines = read(f).split('\n');
    // Functions are written at a module's top level: each opens in column
    // 0 and closes with a "}" there (the nested ones are inside).
    let open = -1;
    lines.forEach((l, i) => {
      if (open < 0 && OPENS.test(l)) {
        open = i;
        assert.match(lines[i - 1] ?? '', /\*\/$|^\/\//, `actions/${f}:${i + 1} ${l.trim()} has no doc comment above it`);
      } else if (open >= 0 && /^\}/.test(l)) {
        assert.ok(i - open + 1 <= MAX_LINES, `actions/${f}:${open + 1} ${lines[open].trim()} is ${i - open + 1} lines: split it`);
        open = -1;
      }
    });
    assert.equal(open, -1, `actions/${f}: a function at line ${open + 1} does not close in column 0`);
  }
});

test('the length rule sees an over-long function', () => {
  const long = ['function f() {', ...Array(MAX_LINES - 1).fill('  x();'), '}'];
  assert.ok(OPENS.test(long[0]) && long.length > MAX_LINES);
});

test('every module of runtime/ is imported: the entry brings what it needs', () => {
  const seen = new Set();
  const walk = (f) => {
    if (seen.has(f)) return;
    seen.add(f);
    const dir = f.slice(0, f.lastIndexOf('/') + 1);
    for (const [, dep] of read(f).matchAll(/^import (?:.* from )?'(\.{1,2}\/[\w/.-]+\.js)';$/gm)) {
      // What the runtime imports from outside actions/ (the DOM engine) is
      // not one of its modules.
      const path = new URL(dep, new URL(dir, 'file:///x/')).pathname;
      if (path.startsWith('/x/')) walk(path.slice(3));
    }
  };
  walk('runtime.js');
  for (const f of runtimeFiles) assert.ok(seen.has(f), `actions/${f} is imported by no module the entry (actions/runtime.js) brings`);
});

test('each built-in verb is a module of runtime/verbs/ that registers it', async () => {
  await loadCore();
  globalThis.chrome = { runtime: { id: 'gasoline', onMessage: { addListener() {} } } };
  globalThis.addEventListener ??= () => {};
  globalThis.document ??= fakeDocument(h('body', {}));
  await import('../actions/runtime.js');
  const verbs = globalThis.gasolineRuntime.verbs();
  const registered = new Set();
  for (const f of inDir('runtime/verbs/')) {
    for (const [, name] of read(f).matchAll(/^addAction\('(\w+)'/gm)) registered.add(name);
  }
  assert.deepEqual([...registered].sort(), [...verbs].sort());
  for (const v of ['click', 'hover', 'fill', 'type', 'select', 'check', 'uncheck', 'key_press', 'scroll_to', 'get_text', 'drag', 'fill_form']) {
    assert.ok(verbs.includes(v), `the runtime lacks ${v}`);
  }
});

test('the runtime is injected as its one bundle, no more files than before it was modules', async () => {
  const { RUNTIME_FILES } = await import('../actions/inject.js');
  const { PAGE_VERB_FILES } = await import('../contract.js');
  assert.ok(RUNTIME_FILES.includes('dist/runtime.js'), 'inject.js does not inject dist/runtime.js');
  for (const f of runtimeFiles) assert.ok(!RUNTIME_FILES.includes(`actions/${f}`), `inject.js injects the module actions/${f}: inject dist/runtime.js`);
  // dist/runtime.js holds the engine, core.js, changed.js and combobox.js
  // too, which were four files of their own before they were modules.
  assert.equal(RUNTIME_FILES.length, 2 + PAGE_VERB_FILES.length);
  for (const f of ['dom/engine.js', 'actions/core.js', 'actions/changed.js', 'actions/combobox.js']) {
    assert.ok(!RUNTIME_FILES.includes(f), `inject.js injects the module ${f}: dist/runtime.js holds it`);
  }
  const dist = fs.readFileSync(new URL('../dist/runtime.js', import.meta.url), 'utf8');
  assert.doesNotMatch(dist, /^\s*(import|export)\b/m, 'dist/runtime.js is a module: Chrome injects classic scripts');
});
