// The DOM runtime's classic scripts (dom/engine.js, actions/core.js,
// actions/changed.js): small functions, as the style asks of the extension.
// Each file is one (() => { ... })() wrapper (a classic script declares
// nothing at its top level), which is not counted; every function inside it
// is, nested ones too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';

/** MAX_LINES is the most lines a function (from its first line to its closing brace) may take. */
const MAX_LINES = 80;

const FILES = [];

// A function opens on a line of its own ending in "{" (a declaration, an
// arrow assigned to a const or let, a method) and closes with a "}" at the
// same indentation: the files are formatted so.
const OPENS = /^(\s*)(?:(?:async )?function\b.*\{$|(?:const|let) [\w$]+ = (?:async )?(?:\(.*\)|[\w$]+) => \{$|(?:async )?[\w$]+\(.*\) \{$|\(\(\) => \{$)/;

/** functions lists the functions of src as {line (1-based), lines, head}; it throws on one that does not close. */
function functions(src) {
  const lines = src.split('\n');
  const open = [];
  const out = [];
  lines.forEach((l, i) => {
    const m = OPENS.exec(l);
    if (m) open.push({ indent: m[1].length, at: i });
    const c = /^(\s*)\}/.exec(l);
    if (c && open.length && open[open.length - 1].indent === c[1].length) {
      const { at } = open.pop();
      out.push({ line: at + 1, lines: i - at + 1, head: lines[at].trim() });
    }
  });
  if (open.length) throw new Error(`a function at line ${open[open.length - 1].at + 1} does not close at its own indentation`);
  return out;
}

test('functions finds a long function, a nested one and an arrow', () => {
  const body = Array.from({ length: MAX_LINES - 1 }, () => '    x++;').join('\n');
  const src = `(() => {\n  function long() {\n${body}\n  }\n  const f = (a) => {\n    function g() {\n    }\n  };\n})();\n`;
  const got = functions(src).map((f) => `${f.head} ${f.lines}`);
  assert.deepEqual(got, [`function long() { ${MAX_LINES + 1}`, 'function g() { 2', 'const f = (a) => { 4', `(() => { ${MAX_LINES + 7}`]);
});

test('no function of the DOM runtime scripts is over MAX_LINES lines (the file wrapper aside)', () => {
  for (const f of FILES) {
    const src = fs.readFileSync(new URL(`../${f}`, import.meta.url), 'utf8');
    const fns = functions(src);
    assert.ok(fns.length > 10, `${f}: only ${fns.length} functions found: has its formatting changed?`);
    const wrapper = fns.filter((fn) => fn.head === '(() => {' && fn.line === src.split('\n').indexOf('(() => {') + 1);
    assert.equal(wrapper.length, 1, `${f} is not one (() => { ... })() wrapper`);
    for (const fn of fns) {
      if (fn === wrapper[0]) continue;
      assert.ok(fn.lines <= MAX_LINES, `${f}:${fn.line} ${fn.head} is ${fn.lines} lines: split it`);
    }
  }
});
