// Small functions, as the style asks of the extension (issue 30): no
// function of any extension source is over MAX_LINES lines, counting every
// function: nested ones, methods, and a classic script's whole-file
// (() => { ... })() wrapper. The sources are scanned with a small
// tokenizer (comments, strings, template literals and regular expressions
// skipped; braces matched) rather than parsed: the repository has no
// JavaScript parser without npm, and the extension's code is plain enough
// for this to find every function whose body is a block. An arrow whose
// body is an expression is not counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

/** MAX_LINES is the most lines a function (from its first line to its closing brace) may take. */
const MAX_LINES = 80;

const ROOT = new URL('..', import.meta.url).pathname;

// SKIP are the directories not scanned: the bundles are generated from the
// sources scanned here, and the tests are not the extension.
const SKIP_DIRS = new Set(['dist', 'test', 'node_modules']);

// VENDORED are third-party files, as their project ships them (axe-core's
// minified build, make axe). Generated files (contract.js, capture/fields.js,
// capture/secrets.js: go generate) are skipped by their Go-style header
// (GENERATED), which names what to edit instead.
const VENDORED = new Set(['audit/axe.min.js']);
const GENERATED = /^\/\/ Code generated .*(?:\n\/\/.*)*DO NOT EDIT\./;


// CONTROL are the keywords a "(...) {" follows that is not a function.
const CONTROL = new Set(['if', 'for', 'while', 'switch', 'catch', 'with']);

// REGEX_AFTER are the keywords after which a "/" starts a regular expression.
const REGEX_AFTER = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'instanceof', 'yield', 'await']);

/**
 * tokens splits src into its significant tokens, {t, line, kind} (kind:
 * "name", "num", "str", "punct"), skipping comments and white space; a
 * template literal is one "str" token per piece, its ${...} expressions
 * scanned as code.
 */
function tokens(src) {
  const out = [];
  const braces = []; // per open "{": true when it opened a template's ${
  let line = 1;
  let i = 0;
  const push = (t, kind, at) => out.push({ t, kind, line: at });
  const prevAllowsRegex = () => {
    const p = out[out.length - 1];
    if (!p) return true;
    if (p.kind === 'name') return REGEX_AFTER.has(p.t);
    if (p.kind === 'num' || p.kind === 'str') return false;
    return !(p.t === ')' || p.t === ']' || p.t === '}');
  };
  const template = () => {
    // Scans a template literal's text from i (after "`" or "}") to its end
    // ("`") or its next "${" (then pushes a template brace).
    const at = line;
    while (i < src.length) {
      const c = src[i];
      if (c === '\\') { i += 2; continue; }
      if (c === '\n') line++;
      if (c === '`') { i++; push('`', 'str', at); return; }
      if (c === '$' && src[i + 1] === '{') { i += 2; braces.push(true); push('`${', 'str', at); return; }
      i++;
    }
    throw new Error(`line ${at}: a template literal does not end`);
  };
  while (i < src.length) {
    const c = src[i];
    if (c === '\n') { line++; i++; continue; }
    if (/\s/.test(c)) { i++; continue; }
    if (c === '/' && src[i + 1] === '/') { while (i < src.length && src[i] !== '\n') i++; continue; }
    if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      if (end < 0) throw new Error(`line ${line}: a comment does not end`);
      line += src.slice(i, end).split('\n').length - 1;
      i = end + 2;
      continue;
    }
    if (c === '"' || c === "'") {
      const at = line;
      i++;
      while (i < src.length && src[i] !== c) {
        if (src[i] === '\\') i++;
        if (src[i] === '\n') line++;
        i++;
      }
      i++;
      push('str', 'str', at);
      continue;
    }
    if (c === '`') { i++; template(); continue; }
    if (c === '/' && prevAllowsRegex()) {
      const at = line;
      let cls = false;
      i++;
      while (i < src.length && (cls || src[i] !== '/')) {
        if (src[i] === '\n') throw new Error(`line ${at}: a regular expression does not end on its line`);
        if (src[i] === '\\') i++;
        else if (src[i] === '[') cls = true;
        else if (src[i] === ']') cls = false;
        i++;
      }
      i++;
      while (/[a-z]/.test(src[i] ?? '')) i++;
      push('re', 'str', at);
      continue;
    }
    const word = /^[\w$]+/.exec(src.slice(i, i + 200));
    if (word) {
      push(word[0], /^\d/.test(word[0]) ? 'num' : 'name', line);
      i += word[0].length;
      continue;
    }
    if (c === '=' && src[i + 1] === '>') { push('=>', 'punct', line); i += 2; continue; }
    if (c === '{') { braces.push(false); push('{', 'punct', line); i++; continue; }
    if (c === '}') {
      if (braces.pop()) { i++; template(); continue; }
      push('}', 'punct', line);
      i++;
      continue;
    }
    push(c, 'punct', line);
    i++;
  }
  return out;
}

/** functions lists the functions of src whose body is a block as {line (1-based), lines, head}. */
function functions(src) {
  const toks = tokens(src);
  const text = src.split('\n');
  const parens = []; // indexes of open "(" and "["
  const opener = new Map(); // index of ")" -> index of its "("
  const open = []; // per open "{": the function's first line, or null
  const out = [];
  toks.forEach((tok, k) => {
    if (tok.kind !== 'punct') return;
    if (tok.t === '(' || tok.t === '[') parens.push(k);
    else if (tok.t === ')' || tok.t === ']') opener.set(k, parens.pop());
    else if (tok.t === '{') open.push(startOf(toks, k, opener));
    else if (tok.t === '}') {
      const at = open.pop();
      if (at === undefined) throw new Error(`line ${tok.line}: "}" closes nothing`);
      if (at !== null) out.push({ line: at, lines: tok.line - at + 1, head: text[at - 1].trim() });
    }
  });
  if (open.length) throw new Error('a "{" does not close');
  return out;
}

/** startOf is the first line of the function whose body the "{" at toks[k] opens, or null when it opens none. */
function startOf(toks, k, opener) {
  const prev = toks[k - 1];
  if (!prev) return null;
  if (prev.t === '=>') {
    const p = toks[k - 2];
    return p.t === ')' ? toks[opener.get(k - 2)].line : p.line;
  }
  if (prev.t !== ')') return null;
  const before = toks[opener.get(k - 1) - 1];
  if (!before) return null;
  if (before.t === ']' || before.t === 'function' || before.t === '*') return before.line;
  if (before.kind === 'name' && !CONTROL.has(before.t)) return before.line;
  return null;
}

/** sources lists the extension's own sources, relative to ROOT. */
function sources(dir = '') {
  const out = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) out.push(...sources(rel));
    } else if (e.name.endsWith('.js') && !VENDORED.has(rel) && !GENERATED.test(fs.readFileSync(path.join(ROOT, rel), 'utf8').slice(0, 500))) {
      out.push(rel);
    }
  }
  return out;
}

test('functions finds a long function, a nested one, an arrow and a method, and skips what is not code', () => {
  const body = Array.from({ length: MAX_LINES - 1 }, () => '    x++;').join('\n');
  const src = `(() => {\n  function long() {\n${body}\n  }\n  const f = (a) => {\n    function g() {\n    }\n  };\n` +
    '  const o = { m(x) {\n    if (x) { return /}/.test(`${x}}`); }\n  } };\n  // }\n  /* { */\n})();\n';
  const got = functions(src).map((f) => `${f.head} ${f.lines}`);
  assert.deepEqual(got, [`function long() { ${MAX_LINES + 1}`, 'function g() { 2', 'const f = (a) => { 4', 'const o = { m(x) { 3', `(() => { ${MAX_LINES + 12}`]);
});

test('the scan covers every source but the generated and vendored ones, and the listed files exist', () => {
  const all = sources();
  assert.ok(all.length > 100, `only ${all.length} sources found`);
  for (const f of ['contract.js', 'capture/fields.js', 'capture/secrets.js', ...VENDORED]) assert.ok(!all.includes(f), `${f} is scanned`);
  for (const f of ['background.js', 'pristine.js', 'overlay/session.js', 'dom/engine.js', 'actions/core.js']) assert.ok(all.includes(f), `${f} is not scanned`);
  for (const f of VENDORED) assert.ok(fs.existsSync(path.join(ROOT, f)), `${f} is listed but gone: drop it from the list`);
});

test('no function of the extension is over MAX_LINES lines, a whole-file wrapper included', () => {
  const long = [];
  for (const f of sources()) {
    const src = fs.readFileSync(path.join(ROOT, f), 'utf8');
    let fns;
    try {
      fns = functions(src);
    } catch (e) {
      assert.fail(`${f}: ${e.message}`);
    }
    for (const fn of fns) if (fn.lines > MAX_LINES) long.push(`${f}:${fn.line} ${fn.head} is ${fn.lines} lines`);
  }
  assert.deepEqual(long, [], 'split these');
});
