// pageRun's parts (page.js PAGE_RUN_PARTS) and the one function
// PAGE_RUN_SOURCE assembles from them: no function of page.js is over 80
// lines, no part names an identifier from outside the parts (the module's
// scope, the page's globals), and the assembled source, compiled in a realm
// that has no globals at all, answers as pristine.js's answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { PAGE_RUN_PARTS, PAGE_RUN_SOURCE, MAX_RESULT_CHARS, scriptSources } from '../page.js';
import { raw } from './pagerun.js';

const MAX_LINES = 80;

// The names a part may use besides its own and the other parts': the
// language's keywords and literals, and the global values a page cannot
// redefine (non-writable, non-configurable).
const ALLOWED = new Set(['break', 'case', 'catch', 'const', 'continue', 'default', 'do', 'else', 'finally', 'for', 'function',
  'if', 'in', 'instanceof', 'let', 'new', 'of', 'return', 'switch', 'throw', 'try', 'typeof', 'var', 'void', 'while',
  'true', 'false', 'null', 'undefined', 'NaN', 'Infinity']);

// tokens splits JavaScript source into identifiers, punctuation and
// literals (strings and numbers as one token each), dropping comments. It
// knows no regular expression or template literal: the parts may use
// neither, and it throws on a backquote.
function tokens(src) {
  const out = [];
  for (let i = 0; i < src.length;) {
    const c = src[i];
    if (/\s/.test(c)) i++;
    else if (src.startsWith('//', i)) i = src.indexOf('\n', i) === -1 ? src.length : src.indexOf('\n', i);
    else if (src.startsWith('/*', i)) i = src.indexOf('*/', i) + 2;
    else if (c === '`') throw new Error(`a template literal at ${i}: ${src.slice(i, i + 40)}`);
    else if (c === '"' || c === "'") {
      let j = i + 1;
      while (src[j] !== c) j += src[j] === '\\' ? 2 : 1;
      out.push({ t: 'str' });
      i = j + 1;
    } else if (/[A-Za-z_$]/.test(c)) {
      const m = /^[\w$]+/.exec(src.slice(i));
      out.push({ t: 'id', v: m[0] });
      i += m[0].length;
    } else if (/[0-9]/.test(c)) {
      const m = /^[\w.]+/.exec(src.slice(i));
      out.push({ t: 'num' });
      i += m[0].length;
    } else if (src.startsWith('...', i) || src.startsWith('=>', i)) {
      const v = src.startsWith('...', i) ? '...' : '=>';
      out.push({ t: 'p', v });
      i += v.length;
    } else {
      out.push({ t: 'p', v: c });
      i++;
    }
  }
  return out;
}

// freeNames lists the identifiers the function source src uses without
// declaring them anywhere in it (a declaration anywhere in the source
// counts: scopes are not told apart). A name after "." is a property, and a
// name right after "{" or "," and before ":" inside braces an object key.
function freeNames(src) {
  const ts = tokens(src);
  const declared = new Set();
  const open = []; // the kind of each bracket open at a token
  let decl = -1; // the bracket depth of a const/let/var list being read, or -1
  let params = -1; // the bracket depth inside a function's parameter list, or -1
  for (let i = 0; i < ts.length; i++) {
    const { t, v } = ts[i];
    const prev = ts[i - 1]?.v;
    if (t === 'p' && '([{'.includes(v)) open.push(v);
    if (t === 'p' && ')]}'.includes(v)) {
      open.pop();
      if (open.length < decl) decl = -1;
      if (open.length < params) params = -1;
    }
    if (t === 'p' && v === ';' && open.length === decl) decl = -1;
    if (t === 'id' && ['const', 'let', 'var'].includes(v)) decl = open.length;
    if (t === 'id' && v === 'function' && ts[i + 1]?.t === 'id') declared.add(ts[i + 1].v);
    if (t === 'p' && v === '(' && (ts[i - 2]?.v === 'function' || prev === 'function' || prev === 'catch')) params = open.length;
    if (t === 'id' && params !== -1 && open.length === params) declared.add(v);
    if (t === 'id' && decl !== -1 && open.length === decl && ['const', 'let', 'var', ','].includes(prev)) declared.add(v);
    if (t === 'p' && v === '=>') {
      if (prev !== ')') declared.add(prev);
      else for (let j = i - 2, depth = 0; j >= 0 && !(ts[j].v === '(' && depth === 0); j--) {
        if (ts[j].v === ')') depth++;
        else if (ts[j].v === '(') depth--;
        else if (ts[j].t === 'id') declared.add(ts[j].v);
      }
    }
  }
  const used = new Set();
  const depth = [];
  for (let i = 0; i < ts.length; i++) {
    const { t, v } = ts[i];
    if (t === 'p' && '([{'.includes(v)) depth.push(v);
    if (t === 'p' && ')]}'.includes(v)) depth.pop();
    if (t !== 'id') continue;
    const prev = ts[i - 1]?.v;
    if (prev === '.') continue;
    if (ts[i + 1]?.v === ':' && (prev === '{' || prev === ',') && depth.at(-1) === '{') continue;
    used.add(v);
  }
  return [...used].filter((n) => !declared.has(n) && !ALLOWED.has(n));
}

test('no function of page.js is over 80 lines', () => {
  const lines = readFileSync(new URL('../page.js', import.meta.url), 'utf8').split('\n');
  let start = -1;
  let name = '';
  const long = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(?:export )?(?:async )?function\*? ?(\w+)|^(?:export )?const (\w+) = (?:async )?\(.*=> \{$/.exec(lines[i]);
    if (m) {
      start = i;
      name = m[1] || m[2];
    }
    if (start !== -1 && /^}/.test(lines[i])) {
      if (i - start + 1 > MAX_LINES) long.push(`${name}: ${i - start + 1} lines`);
      start = -1;
    }
  }
  assert.deepEqual(long, [], `split these functions into parts of at most ${MAX_LINES} lines`);
  for (const f of PAGE_RUN_PARTS) {
    const n = f.toString().split('\n').length;
    assert.ok(n <= MAX_LINES, `${f.name} is ${n} lines; split it into parts of at most ${MAX_LINES}`);
  }
});

test('the free-name check finds what a part must not name', () => {
  function bad(B, v) {
    const keys = Object.keys(v); // eslint-disable-line
    return keys.length > MAX_RESULT_CHARS ? JSON.stringify(v) : { ok: true, n: B.slice, m: keys ? v : window }; // eslint-disable-line
  }
  assert.deepEqual(freeNames(bad.toString()).sort(), ['JSON', 'MAX_RESULT_CHARS', 'Object', 'window']);
  assert.deepEqual(freeNames(`function g(B) { const f = (a, b) => a ? b : B; for (let i = 0, j = 1; i < j; i++) f(i, j); try { f() } catch (e) { return { e, x: f, y: e ? f : B } } }`), []);
});

test('every part names only its own, the other parts\' and allowed identifiers', () => {
  const parts = new Set(PAGE_RUN_PARTS.map((f) => f.name));
  assert.equal(parts.size, PAGE_RUN_PARTS.length, 'part names are unique');
  assert.ok(parts.has('pageRun'), 'pageRun is a part: PAGE_RUN_SOURCE calls it');
  for (const f of PAGE_RUN_PARTS) {
    const free = freeNames(f.toString()).filter((n) => !parts.has(n));
    assert.deepEqual(free, [], `${f.name} names ${free.join(', ')}: take it from B or as a parameter, or make it a part`);
  }
  // Every part the source calls is in PAGE_RUN_PARTS (the whole source has no free name either).
  const whole = freeNames(PAGE_RUN_SOURCE);
  assert.deepEqual(whole, [], `PAGE_RUN_SOURCE names ${whole.join(', ')}`);
});

// The assembled source compiled in a realm without a single global: any
// name it took from outside itself throws there. The script itself runs in
// this realm (B.AsyncFunction is this realm's), as the page's script runs in
// the page's.
test('the assembled source runs in a realm without globals, answering as pristine.js does', async (t) => {
  const ctx = vm.createContext({});
  vm.runInContext('const g = globalThis; for (const k of Reflect.ownKeys(g)) delete g[k];', ctx);
  assert.equal(vm.runInContext('typeof Object + typeof Reflect + typeof globalThis', ctx), 'undefinedundefinedundefined');
  const runner = vm.runInContext(`(${PAGE_RUN_SOURCE})`, ctx);
  const B = globalThis.gasolinePristineKit.builtins; // pristine.js, evaluated by pagerun.js

  // A DOM node and node list, read with getters that check their receiver, as the DOM's do.
  class N {
    constructor(type, props) {
      Object.assign(this, { type, ...props });
    }
  }
  class L {
    constructor(items) {
      this.items = items;
    }
  }
  const own = (C, f) => function () {
    if (!(this instanceof C)) throw new TypeError('Illegal invocation');
    return f(this);
  };
  globalThis.__N = N;
  globalThis.__L = L;
  const dom = {
    ...B, nodeType: own(N, (n) => n.type), nodeName: own(N, (n) => n.name), textContent: own(N, (n) => n.text),
    localName: own(N, (n) => n.name), elementId: own(N, (n) => n.id ?? ''), className: own(N, (n) => n.cls ?? ''),
    getAttribute: own(N, (n) => null), characterData: own(N, (n) => n.text), documentURL: own(N, (n) => n.url),
    nodeListLength: own(L, (l) => l.items.length), nodeListItem: function (i) { return this.items[i]; },
    locationHref: function () { return 'http://page.test/'; }, location: {},
  };
  const nodes = [
    ['new __N(1, {name: "a", id: "x", cls: "  b   c ", text: "Go\\n home"})', '<a id="x" class="b c"> "Go home"'],
    ['new __N(3, {text: "hi \\"there\\""})', '#text "hi \\"there\\""'],
    ['new __N(8, {text: "note"})', '<!-- note -->'],
    ['new __N(9, {url: "http://page.test/"})', '#document http://page.test/'],
    ['new __L([new __N(3, {text: "a"}), new __N(10, {name: "html"})])', ['#text "a"', 'html']],
    ['globalThis', '[Window http://page.test/]'],
  ];
  for (const [script, want] of nodes) {
    const { body, expr } = scriptSources(script);
    const r = await runner(dom, body, expr, MAX_RESULT_CHARS, false);
    assert.deepEqual(structuredClone(r.value), want, script);
  }

  const scripts = [
    '1 + 1', 'return {a: [1, "x", null, true, undefined], b: undefined}', 'NaN', '-Infinity', 'undefined', 'new Date(0)',
    'new Date(NaN)', 'new Map([["a", 1], [2, {b: 3}]])', 'new Map([[{}, 1]])', 'new Set([1, [2]])', 'new Uint8Array([1, 2])',
    'new BigInt64Array([1n])', 'new TypeError("t")', '({toJSON() { return 7 }})', '({then(r) { r(5) }})', 'Promise.resolve(3)',
    'return {p: Promise.resolve(1)}', 'return {get x() { throw new Error("g") }}', 'const o = {}; o.o = o; return o', '1n',
    'Symbol("s")', '() => 1', 'let o = {}; const root = o; for (let i = 0; i < 200; i++) { o.n = {}; o = o.n } return root',
    '"x".repeat(100)', 'throw new RangeError("boom")', 'throw "plain"', 'throw {name: "C", message: "m"}', 'return (',
    'Promise.reject(new Error("no"))', 'new Proxy({}, {ownKeys() { throw new Error("k") }})', 'new Map([["a\\n", 1n]])',
  ];
  // Stacks name where each realm compiled the source; all else is the same.
  const noStack = (r) => JSON.parse(JSON.stringify(r, (k, v) => (k === 'stack' ? undefined : v)));
  for (const script of scripts) {
    await t.test(script, async () => {
      const { body, expr } = scriptSources(script);
      const max = script.includes('repeat') ? 50 : MAX_RESULT_CHARS;
      let timer;
      const got = await Promise.race([
        Promise.resolve(runner(B, body, expr, max, false)),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('no answer in 5 s: a part threw where nothing catches (a free name?)')), 5000);
        }),
      ]).finally(() => clearTimeout(timer));
      const want = await raw(script, max);
      assert.deepEqual(noStack(got), noStack(want));
      assert.doesNotMatch(JSON.stringify(got), /is not defined/, 'a part named something the realm lacks');
    });
  }
});
