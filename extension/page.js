// The function execute_js runs in a page's MAIN world, and the worker's
// reading of what it returns.
//
// pageRun is sent as source to pristine.js, which compiles it in the page's
// MAIN world and calls it inside its own closure with the built-ins it saved
// before any page script ran (the worker reaches pristine.js through the
// ISOLATED-world relay, pristine-relay.js, with runInPristine). So pageRun
// must be self-contained: every helper lives inside it. It also runs
// unchanged under node for the unit tests (no DOM there), and in the
// USER_SCRIPT world (userscripts/execute.js).
//
// The page is hostile. Nothing of gasoline is on the page's global: the
// script, its source and its result travel over a private MessagePort that
// pristine.js and the relay exchanged at document_start. pageRun touches none
// of the page's globals: it takes every built-in from B, calls them with
// Reflect.apply, writes only to objects without a prototype (or with
// defineProperty), never awaits (a page can hook await through
// Promise.prototype.constructor and then), never uses a regular expression,
// an iterator or a string method it did not save, and does no formatting: it
// hands back plain data, which the port copies out of the page natively, and
// the worker encodes and formats it (readPageResult) with its own built-ins.
// It and the script are strict code, so a page hook the script calls reaches
// neither function object (.caller, CallSite.getFunction). What the script
// itself computes in the MAIN world is still the page's to influence (a page
// can redefine document.title's getter); results say "world": "MAIN" for
// that reason.

/**
 * MAX_RESULT_CHARS bounds the JSON of a value so its post stays under the
 * daemon's 16 MB result body; the daemon truncates outputs over 10 MB itself
 * and states it in the handle.
 */
export const MAX_RESULT_CHARS = 15 * 1024 * 1024;

/** MAX_DEPTH is the deepest nesting of a result; Chrome copies at most 100 levels out of a page. */
export const MAX_DEPTH = 90;

/**
 * scriptSources returns the two ways pageRun compiles a script: as an
 * expression (trailing semicolons and blanks dropped) and as a function body.
 */
export function scriptSources(script) {
  return { body: script, expr: script.replace(/[\s;]+$/, '') };
}

/** PAGE_RUN_SOURCE is the source of pageRun that runInPristine hands to pristine.js. */
export const PAGE_RUN_SOURCE = pageRun.toString();

/**
 * runInPristine runs in the ISOLATED world of the tab's document (injected
 * by chrome.scripting, so self-contained): it hands pageRun's source and
 * the script to pristine.js through the relay and resolves to pageRun's
 * answer, or to {ok: false, kind: "no_pristine"} when pristine.js's port
 * never reached this document's relay (a document loaded before the
 * extension started).
 */
export function runInPristine(runner, body, expr, maxChars) {
  const relay = globalThis.gasolinePristineRelay;
  return relay ? relay.run(runner, body, expr, maxChars) : { ok: false, kind: 'no_pristine' };
}

/**
 * markPristineLate runs in the ISOLATED world after the worker brought
 * pristine.js into a document late: its answers then say their built-ins
 * are the page's.
 */
export function markPristineLate() {
  globalThis.gasolinePristineRelay?.markLate();
}

/**
 * pageRun compiles a script, runs it, and converts its value to plain data.
 * The script is an expression ("document.title") or a function body
 * ("return document.title"); both may use await. It is first compiled as
 * `return (<expr>)` in an async function, and, if that is a syntax error,
 * as the body <body> of an async function.
 *
 * B is the built-ins pristine.js saved; late is true when they were saved
 * after the page's own scripts had run.
 *
 * It returns (or resolves to) an object without prototype, one of:
 *   {ok: true, value, type?, compiled_as, builtins}
 *   {ok: false, kind: "compile", cls: "syntax"|"eval"|"other", name, message, builtins}
 *   {ok: false, kind: "thrown", error?: {name, message, stack}, shown?, compiled_as, builtins}
 *   {ok: false, kind: "not_serialisable", message, builtins}
 *   {ok: false, kind: "too_large", chars, builtins}
 * value is plain data: strings, finite numbers, booleans, null, arrays and
 * objects; NaN and ±Infinity become strings, DOM nodes short descriptions.
 * type is set when the value was not plain data: "undefined", "dom_node",
 * "node_list", "window", "error", "map", "set", "typed_array".
 * builtins is "pristine", or "page" when late.
 */
export function pageRun(B, body, expr, maxChars, late) {
  'use strict'; // as is the script: a page's hook gets no function object of either (.caller, CallSite.getFunction, .arguments)
  const apply = B.apply;
  const builtins = late ? 'page' : 'pristine';
  const MAX_DEPTH = 90;

  // --- strings, with saved methods and the language only --------------------
  const slice = (s, a, b) => apply(B.slice, s, [a, b]);
  const str = (x) => {
    if (typeof x === 'string') return x;
    try {
      return '' + x; // page data: its own toString may run
    } catch {
      return '?';
    }
  };
  const isSpace = (c) => c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f' || c === '\v' || c === '\u00a0';
  // oneLine collapses blank runs to one space, trims, and cuts to n characters.
  const oneLine = (s, n) => {
    if (s.length > 4 * n) s = slice(s, 0, 4 * n);
    let out = '';
    let gap = false;
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (isSpace(c)) {
        gap = out !== '';
        continue;
      }
      if (gap) out += ' ';
      gap = false;
      out += c;
    }
    return out.length > n ? slice(out, 0, n - 1) + '…' : out;
  };
  const HEX = '0123456789abcdef';
  // quote writes s as a JSON string.
  const quote = (s) => {
    let out = '"';
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (c === '"' || c === '\\') out += '\\' + c;
      else if (c === '\n') out += '\\n';
      else if (c === '\r') out += '\\r';
      else if (c === '\t') out += '\\t';
      else if (c < ' ') {
        const code = apply(B.charCodeAt, c, [0]);
        out += '\\u00' + HEX[code >> 4] + HEX[code & 15];
      } else out += c;
    }
    return out + '"';
  };

  // --- writing results: never through a setter the page may have defined ---
  const put = (o, k, x) => {
    B.defineProperty(o, k, { __proto__: null, value: x, writable: true, enumerable: true, configurable: true });
  };

  // --- what a value is, by brand checks a page cannot fake -------------------
  const brand = (fn, v) => {
    if (!fn) return false;
    try {
      apply(fn, v, []);
      return true;
    } catch {
      return false;
    }
  };
  const noop = () => {};
  // isPromise is a brand check: the saved then throws for anything but a
  // native promise (and, on one, adds a reaction that does nothing).
  const isPromise = (v) => {
    try {
      apply(B.then, v, [undefined, noop]);
      return true;
    } catch {
      return false;
    }
  };
  // inherited reports whether key is found on v (own or through its
  // prototypes) other than on Object.prototype, where only a page would put
  // then or toJSON.
  const inherited = (v, key) => {
    for (let o = v, i = 0; o !== null && i < 64; o = B.getPrototypeOf(o), i++) {
      if (B.hasOwn(o, key)) return o !== B.objectProto;
    }
    return false;
  };
  const isErrorLike = (v, proto) => {
    if (B.isError) return B.isError(v);
    for (let p = proto, i = 0; p !== null && i < 64; p = B.getPrototypeOf(p), i++) {
      if (p === B.errorProto) return true;
    }
    return false;
  };
  // errorField reads key (name, message, stack) of an error without calling
  // a getter found on a built-in prototype, where only a page would put one
  // (it would receive the error), and reads no stack while the page formats
  // stacks (Error.prepareStackTrace: it would receive the error and its
  // call sites). undefined when it does not read.
  const builtinProto = (o) => {
    for (let i = 0; i < B.builtinProtos.length; i++) if (B.builtinProtos[i] === o) return true;
    return false;
  };
  const errorField = (e, key) => {
    if (key === 'stack') {
      const p = B.getOwnPropertyDescriptor(B.Error, 'prepareStackTrace');
      if (p && (!B.hasOwn(p, 'value') || p.value !== B.prepareStackTrace)) return undefined;
    }
    for (let o = e, i = 0; o !== null && i < 64; o = B.getPrototypeOf(o), i++) {
      const d = B.getOwnPropertyDescriptor(o, key);
      if (!d) continue;
      if (B.hasOwn(d, 'value')) return d.value;
      if (builtinProto(o) || !d.get) return undefined;
      return apply(d.get, e, []);
    }
    return undefined;
  };
  const classify = (v) => {
    let proto;
    try {
      proto = B.getPrototypeOf(v);
    } catch {
      return 'object'; // a revoked proxy, say; reading it fails below with a path
    }
    if (proto === B.objectProto || proto === null) return 'object';
    if (proto === B.arrayProto && B.isArray(v)) return 'array';
    if (v === B.global) return 'window';
    if (brand(B.nodeType, v)) return 'dom_node';
    if (brand(B.nodeListLength, v) || brand(B.collectionLength, v)) return 'node_list';
    if (brand(B.dateGetTime, v)) return 'date';
    if (brand(B.mapSize, v)) return 'map';
    if (brand(B.setSize, v)) return 'set';
    if (brand(B.typedArrayLength, v)) return 'typed_array';
    if (isPromise(v)) return 'promise';
    if (B.isArray(v)) return 'array';
    if (isErrorLike(v, proto)) return 'error';
    return 'object';
  };

  const describeNode = (n) => {
    const type = apply(B.nodeType, n, []);
    if (type === 1 && B.localName) {
      let s = '<' + apply(B.localName, n, []);
      const id = oneLine(str(apply(B.elementId, n, [])), 40);
      if (id) s += ' id="' + id + '"';
      const cls = oneLine(str(apply(B.className, n, [])), 60);
      if (cls) s += ' class="' + cls + '"';
      const attrs = ['name', 'type', 'href', 'src'];
      for (let i = 0; i < attrs.length; i++) {
        const v = apply(B.getAttribute, n, [attrs[i]]);
        if (v) s += ' ' + attrs[i] + '="' + oneLine(v, 80) + '"';
      }
      s += '>';
      const text = oneLine(str(apply(B.textContent, n, []) ?? ''), 60);
      return text ? s + ' ' + quote(text) : s;
    }
    if (type === 3) return '#text ' + quote(oneLine(apply(B.characterData, n, []), 60));
    if (type === 8) return '<!-- ' + oneLine(apply(B.characterData, n, []), 60) + ' -->';
    if (type === 9) {
      const url = apply(B.documentURL, n, []);
      return url ? '#document ' + url : '#document';
    }
    return str(apply(B.nodeName, n, []));
  };
  const describeNodes = (list) => {
    const byLength = brand(B.nodeListLength, list);
    const len = apply(byLength ? B.nodeListLength : B.collectionLength, list, []);
    const out = [];
    for (let i = 0; i < len; i++) put(out, i, describeNode(apply(byLength ? B.nodeListItem : B.collectionItem, list, [i])));
    return out;
  };
  const windowText = () => {
    const href = B.locationHref ? str(apply(B.locationHref, B.location, [])) : '';
    return href ? '[Window ' + href + ']' : '[Window]';
  };
  const errorSummary = (e) => {
    try {
      if (e !== null && typeof e === 'object') return str(e.name) + ': ' + str(e.message);
      return str(e);
    } catch {
      return 'an unreadable error';
    }
  };

  // --- plain converts v to plain data ----------------------------------------
  const NOT_SERIALISABLE = { __proto__: null };
  let failure = ''; // set when plain throws NOT_SERIALISABLE
  const fail = (message) => {
    failure = message;
    return NOT_SERIALISABLE;
  };
  const TOO_LARGE = { __proto__: null };
  let size = 0; // JSON characters so far, about
  const grow = (n) => {
    size += n;
    if (size > maxChars) throw TOO_LARGE;
  };
  // Shared references are fine; only a reference back to an ancestor is a cycle.
  const ancestors = { __proto__: null };
  const ancestorPaths = { __proto__: null };
  let depthNow = 0;

  // plain converts v, found at path (such as $.a[2]) depth levels down, to
  // plain data: a primitive, a description of a built-in (node, window,
  // date), or, after a then/toJSON check, a container converted item by item.
  function plain(v, path, depth) {
    if (typeof v !== 'object' || v === null) return plainPrimitive(v, path);
    if (depth > MAX_DEPTH) throw fail(path + ' is nested more than ' + MAX_DEPTH + ' levels deep');
    for (let i = 0; i < depthNow; i++) {
      if (ancestors[i] === v) throw fail(path + ' refers back to ' + ancestorPaths[i] + ' (a cycle)');
    }
    const kind = classify(v);
    switch (kind) {
      case 'dom_node':
      case 'node_list':
      case 'window':
      case 'date':
        return plainBuiltin(v, kind);
      case 'promise':
        throw fail(path + ' is a Promise; await it before returning');
      case 'object': {
        const j = jsonOf(v, path);
        if (j !== v) return plain(j, path, depth);
      }
    }
    ancestors[depthNow] = v;
    ancestorPaths[depthNow] = path;
    depthNow++;
    try {
      switch (kind) {
        case 'array':
          return plainArray(v, path, depth);
        case 'typed_array':
          return plainTypedArray(v);
        case 'map':
          return plainMap(v, path, depth);
        case 'set':
          return plainSet(v, path, depth);
        case 'error':
          return plainError(v, path, depth);
        default:
          return plainObject(v, path, depth);
      }
    } finally {
      depthNow--;
    }
  }
  function plainPrimitive(v, path) {
    switch (typeof v) {
      case 'undefined':
        return undefined;
      case 'string':
        grow(v.length + 3);
        return v;
      case 'boolean':
        grow(6);
        return v;
      case 'number':
        if (v !== v) return grow(5), 'NaN';
        if (v === Infinity) return grow(10), 'Infinity';
        if (v === -Infinity) return grow(11), '-Infinity';
        grow(('' + v).length + 1);
        return v;
      case 'bigint':
        throw fail(path + ' is a BigInt (' + v + 'n); convert it with String() or Number()');
      case 'symbol':
        throw fail(path + ' is a Symbol');
      case 'function':
        throw fail(path + ' is a function');
    }
    grow(5); // null
    return null;
  }
  // plainBuiltin describes a DOM node, a node list, the window or a date.
  function plainBuiltin(v, kind) {
    switch (kind) {
      case 'dom_node': {
        const d = describeNode(v);
        grow(d.length + 3);
        return d;
      }
      case 'node_list': {
        const list = describeNodes(v);
        for (let i = 0; i < list.length; i++) grow(list[i].length + 3);
        return list;
      }
      case 'window':
        return windowText();
      default: {
        const t = apply(B.dateGetTime, v, []);
        return t !== t ? null : apply(B.dateToISOString, v, []);
      }
    }
  }
  // jsonOf returns what JSON would encode for the plain object v: v itself,
  // or what its toJSON() returns; a thenable is refused as a promise.
  function jsonOf(v, path) {
    let then;
    try {
      then = inherited(v, 'then') ? v.then : undefined;
    } catch (e) {
      throw fail('reading ' + path + '.then threw ' + errorSummary(e));
    }
    if (typeof then === 'function') throw fail(path + ' is a Promise; await it before returning');
    let toJSON;
    try {
      toJSON = inherited(v, 'toJSON') ? v.toJSON : undefined;
    } catch (e) {
      throw fail('reading ' + path + '.toJSON threw ' + errorSummary(e));
    }
    if (typeof toJSON !== 'function') return v;
    try {
      return apply(toJSON, v, ['']);
    } catch (e) {
      throw fail(path + '.toJSON() threw ' + errorSummary(e));
    }
  }
  // readKey reads v[key], turning a throwing getter into a failure with its path.
  function readKey(v, path, key) {
    try {
      return v[key];
    } catch (e) {
      throw fail('reading ' + path + '.' + key + ' threw ' + errorSummary(e));
    }
  }
  function plainArray(v, path, depth) {
    const out = [];
    const len = v.length;
    grow(2);
    for (let i = 0; i < len; i++) {
      const p = plain(readKey(v, path, i), path + '[' + i + ']', depth + 1);
      put(out, i, p === undefined ? null : p);
      grow(1);
    }
    return out;
  }
  function plainTypedArray(v) {
    const out = [];
    const len = apply(B.typedArrayLength, v, []);
    for (let i = 0; i < len; i++) {
      const x = v[i];
      put(out, i, typeof x === 'bigint' ? '' + x : x);
      grow(typeof x === 'bigint' ? ('' + x).length + 3 : ('' + x).length + 1);
    }
    return out;
  }
  // plainMap makes an object of a map whose keys are all strings or
  // numbers, and a list of [key, value] pairs of any other.
  function plainMap(v, path, depth) {
    const keys = [];
    const vals = [];
    const it = apply(B.mapEntries, v, []);
    let allNamed = true;
    for (let r = apply(B.mapIterNext, it, []), i = 0; !r.done; r = apply(B.mapIterNext, it, []), i++) {
      const k = r.value[0];
      if (typeof k !== 'string' && typeof k !== 'number') allNamed = false;
      put(keys, i, k);
      put(vals, i, r.value[1]);
    }
    if (allNamed) {
      const out = { __proto__: null };
      for (let i = 0; i < keys.length; i++) {
        const k = '' + keys[i];
        const p = plain(vals[i], path + '.get(' + (typeof keys[i] === 'string' ? quote(k) : k) + ')', depth + 1);
        if (p !== undefined) {
          grow(k.length + 4);
          out[k] = p;
        }
      }
      return out;
    }
    const out = [];
    for (let i = 0; i < keys.length; i++) {
      const k = plain(keys[i], path + ' key #' + i, depth + 2);
      const x = plain(vals[i], path + ' value #' + i, depth + 2);
      const pair = [];
      put(pair, 0, k === undefined ? null : k);
      put(pair, 1, x === undefined ? null : x);
      put(out, i, pair);
    }
    return out;
  }
  function plainSet(v, path, depth) {
    const out = [];
    const it = apply(B.setValues, v, []);
    for (let r = apply(B.setIterNext, it, []), i = 0; !r.done; r = apply(B.setIterNext, it, []), i++) {
      const p = plain(r.value, path + ' item #' + i, depth + 1);
      put(out, i, p === undefined ? null : p);
    }
    return out;
  }
  function plainError(v, path, depth) {
    const out = { __proto__: null };
    const field = (key) => {
      try {
        return errorField(v, key);
      } catch (e) {
        throw fail('reading ' + path + '.' + key + ' threw ' + errorSummary(e));
      }
    };
    out.name = plain(field('name'), path + '.name', depth + 1);
    out.message = plain(field('message'), path + '.message', depth + 1);
    const stack = field('stack');
    if (typeof stack === 'string' && stack) out.stack = firstLines(stack, 5);
    return out;
  }
  function plainObject(v, path, depth) {
    const out = { __proto__: null };
    let keys;
    try {
      keys = B.keys(v);
    } catch (e) {
      throw fail('listing the keys of ' + path + ' threw ' + errorSummary(e));
    }
    grow(2);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const p = plain(readKey(v, path, key), path + '.' + key, depth + 1);
      if (p !== undefined) {
        grow(key.length + 4);
        out[key] = p;
      }
    }
    return out;
  }
  const firstLines = (s, n) => {
    for (let i = 0, seen = 0; i < s.length; i++) {
      if (s[i] === '\n' && ++seen === n) return slice(s, 0, i);
    }
    return s;
  };

  // encode turns the script's value into the answer.
  const encode = (value, compiledAs) => {
    try {
      const kind = value === undefined ? 'undefined' : value !== null && typeof value === 'object' ? classify(value) : '';
      const out = { __proto__: null, ok: true, value: plain(value, '$', 0), compiled_as: compiledAs, builtins };
      if (kind && kind !== 'object' && kind !== 'array' && kind !== 'date') out.type = kind;
      return out;
    } catch (e) {
      if (e === NOT_SERIALISABLE) return { __proto__: null, ok: false, kind: 'not_serialisable', message: failure, builtins };
      if (e === TOO_LARGE) return { __proto__: null, ok: false, kind: 'too_large', chars: size, builtins };
      return { __proto__: null, ok: false, kind: 'not_serialisable', message: 'reading the result threw ' + errorSummary(e), builtins };
    }
  };

  // thrown describes what the script threw; the worker formats it.
  const thrown = (e, compiledAs) => {
    const out = { __proto__: null, ok: false, kind: 'thrown', compiled_as: compiledAs, builtins };
    let errorLike = false;
    if (e !== null && typeof e === 'object') {
      try {
        errorLike = isErrorLike(e, B.getPrototypeOf(e)) || ('message' in e && 'name' in e);
      } catch {
        errorLike = false;
      }
    }
    if (errorLike) {
      let name = '';
      let message = '';
      let stack = '';
      try {
        name = str(errorField(e, 'name'));
        message = str(errorField(e, 'message'));
        const s = errorField(e, 'stack');
        stack = typeof s === 'string' ? s : '';
      } catch {
        // a getter threw: keep what was read
      }
      out.error = { __proto__: null, name: slice(name, 0, 200), message: slice(message, 0, 10000), stack: slice(stack, 0, 10000) };
    } else {
      out.shown = slice(typeof e === 'string' ? quote(e) : str(e), 0, 1000);
    }
    return out;
  };

  // Compile: expression first, then body. The page's CSP may forbid it.
  const compileFailure = (e) => {
    let proto = null;
    try {
      proto = B.getPrototypeOf(e);
    } catch {
      proto = null;
    }
    const cls = proto === B.syntaxErrorProto ? 'syntax' : proto === B.evalErrorProto ? 'eval' : 'other';
    return { __proto__: null, ok: false, kind: 'compile', cls, name: slice(str(e?.name ?? 'Error'), 0, 200), message: slice(str(e?.message ?? e), 0, 2000), builtins };
  };
  // The expression form hands its value to hand() as soon as it is
  // computed, so the value never passes through the resolution of the async
  // function's promise, where a page that defines then on Object.prototype
  // could swap it. The body form's "return x" does pass through it: an
  // object returned from a body is as trustworthy as the page.
  let handed = false;
  let handedValue;
  const hand = (v) => {
    handed = true;
    handedValue = v;
  };
  // compileScript compiles the script as an expression, or, when that is a
  // syntax error, as a function body: {fn, compiledAs}, or the failure
  // (the page's CSP may forbid it).
  function compileScript() {
    try {
      return { __proto__: null, fn: new B.AsyncFunction('$$gasolineHand', '"use strict"; return $$gasolineHand((\n' + expr + '\n));'), compiledAs: 'expression' };
    } catch (e) {
      if (B.getPrototypeOf(e) !== B.syntaxErrorProto) return { __proto__: null, failure: compileFailure(e) };
    }
    try {
      return { __proto__: null, fn: new B.AsyncFunction('$$gasolineHand', '"use strict";\n' + body), compiledAs: 'body' };
    } catch (e) {
      return { __proto__: null, failure: compileFailure(e) };
    }
  }

  // settle takes every settlement of the script's promise straight from it
  // with the saved then (never await, whose lookups of "constructor" and
  // "then" a page can hook) and resolves to the answer.
  function settle(settled, compiledAs) {
    return new B.Promise((resolve) => {
      const done = (v) => resolve(encode(v, compiledAs));
      const failed = (e) => resolve(thrown(e, compiledAs));
      const finish = (returned) => {
        if (!handed) return done(returned);
        const v = handedValue;
        if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return done(v);
        if (isPromise(v)) return apply(B.then, v, [done, failed]); // an expression that is a promise: its value
        let then;
        try {
          then = B.hasOwn(v, 'then') ? v.then : undefined;
        } catch (e) {
          return failed(e);
        }
        if (typeof then !== 'function') return done(v);
        try {
          apply(then, v, [done, failed]); // a thenable the script made
        } catch (e) {
          failed(e);
        }
      };
      apply(B.then, settled, [finish, failed]);
    });
  }

  // --- compile, run, answer -------------------------------------------------
  const compiled = compileScript();
  if (compiled.failure) return compiled.failure;
  let settled;
  try {
    settled = apply(compiled.fn, B.global, [hand]);
  } catch (e) {
    return thrown(e, compiled.compiledAs);
  }
  return settle(settled, compiled.compiledAs);
}
