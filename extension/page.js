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

/**
 * runInPristine runs in the ISOLATED world of the tab's document (injected
 * by chrome.scripting, so self-contained): it hands pageRun's source and
 * the script to pristine.js through the relay and resolves to pageRun's
 * answer, or to {ok: false, kind: "no_pristine"} when pristine.js's port
 * never reached this document's relay (a document loaded before the
 * extension started). Once the script has settled it flushes this
 * document's capture in the same injection (capture/relay.js
 * gasolineRelay; polls: the long polls the worker knows of its origin):
 * the answer's "flushed" is that flush's answer, which the worker stores
 * (capture/worker.js flushAfter) instead of asking the document again.
 */
export async function runInPristine(runner, body, expr, maxChars, polls) {
  const relay = globalThis.gasolinePristineRelay;
  if (!relay) return { ok: false, kind: 'no_pristine' };
  const r = await relay.run(runner, body, expr, maxChars);
  const flush = globalThis.gasolineRelay;
  if (typeof flush !== 'function' || !r || typeof r !== 'object' || r.kind === 'no_pristine') return r;
  let flushed = null;
  try {
    flushed = await flush(polls);
  } catch {
    // no answer: the worker flushes this document as any other
  }
  return flushed ? { ...r, flushed } : r;
}

/**
 * markPristineLate runs in the ISOLATED world after the worker brought
 * pristine.js into a document late: its answers then say their built-ins
 * are the page's.
 */
export function markPristineLate() {
  globalThis.gasolinePristineRelay?.markLate();
}


// --- pageRun and its parts ----------------------------------------------------
// Every function below is a part of pageRun's source (PAGE_RUN_PARTS): each
// is self-contained under the rules of this file's header, taking the saved
// built-ins B (or the run's state W, which holds B) and all else as
// parameters, and naming no identifier but its own, the other parts' and
// undefined, NaN and Infinity (test/pagerun-parts.test.js checks it).
// PAGE_RUN_SOURCE declares them all inside one strict function, so the page
// gets one self-contained function as before.

/** slice is String.prototype.slice, saved: s sliced from a to b. */
function slice(B, s, a, b) {
  return B.apply(B.slice, s, [a, b]);
}

/** str converts page data x to a string ('?' when its own toString throws). */
function str(x) {
  if (typeof x === 'string') return x;
  try {
    return '' + x; // page data: its own toString may run
  } catch {
    return '?';
  }
}

/** oneLine collapses blank runs of s to one space, trims, and cuts to n characters. */
function oneLine(B, s, n) {
  if (s.length > 4 * n) s = slice(B, s, 0, 4 * n);
  let out = '';
  let gap = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f' || c === '\v' || c === '\u00a0') {
      gap = out !== '';
      continue;
    }
    if (gap) out += ' ';
    gap = false;
    out += c;
  }
  return out.length > n ? slice(B, out, 0, n - 1) + '…' : out;
}

/** quote writes s as a JSON string. */
function quote(B, s) {
  const HEX = '0123456789abcdef';
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '"' || c === '\\') out += '\\' + c;
    else if (c === '\n') out += '\\n';
    else if (c === '\r') out += '\\r';
    else if (c === '\t') out += '\\t';
    else if (c < ' ') {
      const code = B.apply(B.charCodeAt, c, [0]);
      out += '\\u00' + HEX[code >> 4] + HEX[code & 15];
    } else out += c;
  }
  return out + '"';
}

/** put writes o[k] = x without passing through a setter the page may have defined. */
function put(B, o, k, x) {
  B.defineProperty(o, k, { __proto__: null, value: x, writable: true, enumerable: true, configurable: true });
}

/** brand reports whether the saved built-in fn accepts v as its receiver: a brand check a page cannot fake. */
function brand(B, fn, v) {
  if (!fn) return false;
  try {
    B.apply(fn, v, []);
    return true;
  } catch {
    return false;
  }
}

/** noop does nothing: the rejection handler isPromise subscribes. */
function noop() {}

/**
 * isPromise is a brand check: the saved then throws for anything but a
 * native promise (and, on one, adds a reaction that does nothing).
 */
function isPromise(B, v) {
  try {
    B.apply(B.then, v, [undefined, noop]);
    return true;
  } catch {
    return false;
  }
}

/**
 * inherited reports whether key is found on v (own or through its
 * prototypes) other than on Object.prototype, where only a page would put
 * then or toJSON.
 */
function inherited(B, v, key) {
  for (let o = v, i = 0; o !== null && i < 64; o = B.getPrototypeOf(o), i++) {
    if (B.hasOwn(o, key)) return o !== B.objectProto;
  }
  return false;
}

/** isErrorLike reports whether v, whose prototype is proto, is an error. */
function isErrorLike(B, v, proto) {
  if (B.isError) return B.isError(v);
  for (let p = proto, i = 0; p !== null && i < 64; p = B.getPrototypeOf(p), i++) {
    if (p === B.errorProto) return true;
  }
  return false;
}

/**
 * errorField reads key (name, message, stack) of an error without calling
 * a getter found on a built-in prototype, where only a page would put one
 * (it would receive the error), and reads no stack while the page formats
 * stacks (Error.prepareStackTrace: it would receive the error and its
 * call sites). undefined when it does not read.
 */
function errorField(B, e, key) {
  if (key === 'stack') {
    const p = B.getOwnPropertyDescriptor(B.Error, 'prepareStackTrace');
    if (p && (!B.hasOwn(p, 'value') || p.value !== B.prepareStackTrace)) return undefined;
  }
  for (let o = e, i = 0; o !== null && i < 64; o = B.getPrototypeOf(o), i++) {
    const d = B.getOwnPropertyDescriptor(o, key);
    if (!d) continue;
    if (B.hasOwn(d, 'value')) return d.value;
    if (!d.get) return undefined;
    for (let j = 0; j < B.builtinProtos.length; j++) if (B.builtinProtos[j] === o) return undefined;
    return B.apply(d.get, e, []);
  }
  return undefined;
}

/**
 * classify tells what the object v is, by its prototype and brand checks:
 * "object", "array", "window", "dom_node", "node_list", "date", "map",
 * "set", "typed_array", "promise" or "error".
 */
function classify(B, v) {
  let proto;
  try {
    proto = B.getPrototypeOf(v);
  } catch {
    return 'object'; // a revoked proxy, say; reading it fails below with a path
  }
  if (proto === B.objectProto || proto === null) return 'object';
  if (proto === B.arrayProto && B.isArray(v)) return 'array';
  if (v === B.global) return 'window';
  if (brand(B, B.nodeType, v)) return 'dom_node';
  if (brand(B, B.nodeListLength, v) || brand(B, B.collectionLength, v)) return 'node_list';
  if (brand(B, B.dateGetTime, v)) return 'date';
  if (brand(B, B.mapSize, v)) return 'map';
  if (brand(B, B.setSize, v)) return 'set';
  if (brand(B, B.typedArrayLength, v)) return 'typed_array';
  if (isPromise(B, v)) return 'promise';
  if (B.isArray(v)) return 'array';
  if (isErrorLike(B, v, proto)) return 'error';
  return 'object';
}

/** describeNode is a short description of the DOM node n: its start tag and text, say. */
function describeNode(B, n) {
  const apply = B.apply;
  const type = apply(B.nodeType, n, []);
  if (type === 1 && B.localName) {
    let s = '<' + apply(B.localName, n, []);
    const id = oneLine(B, str(apply(B.elementId, n, [])), 40);
    if (id) s += ' id="' + id + '"';
    const cls = oneLine(B, str(apply(B.className, n, [])), 60);
    if (cls) s += ' class="' + cls + '"';
    const attrs = ['name', 'type', 'href', 'src'];
    for (let i = 0; i < attrs.length; i++) {
      const v = apply(B.getAttribute, n, [attrs[i]]);
      if (v) s += ' ' + attrs[i] + '="' + oneLine(B, v, 80) + '"';
    }
    s += '>';
    const text = oneLine(B, str(apply(B.textContent, n, []) ?? ''), 60);
    return text ? s + ' ' + quote(B, text) : s;
  }
  if (type === 3) return '#text ' + quote(B, oneLine(B, apply(B.characterData, n, []), 60));
  if (type === 8) return '<!-- ' + oneLine(B, apply(B.characterData, n, []), 60) + ' -->';
  if (type === 9) {
    const url = apply(B.documentURL, n, []);
    return url ? '#document ' + url : '#document';
  }
  return str(apply(B.nodeName, n, []));
}

/** describeNodes describes each node of a NodeList or HTMLCollection. */
function describeNodes(B, list) {
  const byLength = brand(B, B.nodeListLength, list);
  const len = B.apply(byLength ? B.nodeListLength : B.collectionLength, list, []);
  const out = [];
  for (let i = 0; i < len; i++) put(B, out, i, describeNode(B, B.apply(byLength ? B.nodeListItem : B.collectionItem, list, [i])));
  return out;
}

/** windowText describes the window: "[Window <its URL>]". */
function windowText(B) {
  const href = B.locationHref ? str(B.apply(B.locationHref, B.location, [])) : '';
  return href ? '[Window ' + href + ']' : '[Window]';
}

/** errorSummary is "Name: message" of a thrown value, for a failure's message. */
function errorSummary(e) {
  try {
    if (e !== null && typeof e === 'object') return str(e.name) + ': ' + str(e.message);
    return str(e);
  } catch {
    return 'an unreadable error';
  }
}

/** firstLines is s up to its nth line break. */
function firstLines(B, s, n) {
  for (let i = 0, seen = 0; i < s.length; i++) {
    if (s[i] === '\n' && ++seen === n) return slice(B, s, 0, i);
  }
  return s;
}

/** fail records message as why the value is not serialisable and returns the sentinel plain throws. */
function fail(W, message) {
  W.failure = message;
  return W.notSerialisable;
}

/** grow counts n more characters of JSON, throwing W.tooLarge past W.maxChars. */
function grow(W, n) {
  W.size += n;
  if (W.size > W.maxChars) throw W.tooLarge;
}

/**
 * plain converts v, found at path (such as $.a[2]) depth levels down, to
 * plain data: a primitive, a description of a built-in (node, window,
 * date), or, after a then/toJSON check, a container converted item by item.
 * It throws W.notSerialisable (with W.failure) or W.tooLarge. Shared
 * references are fine; only a reference back to an ancestor is a cycle.
 */
function plain(W, v, path, depth) {
  if (typeof v !== 'object' || v === null) return plainPrimitive(W, v, path);
  if (depth > W.maxDepth) throw fail(W, path + ' is nested more than ' + W.maxDepth + ' levels deep');
  for (let i = 0; i < W.depthNow; i++) {
    if (W.ancestors[i] === v) throw fail(W, path + ' refers back to ' + W.ancestorPaths[i] + ' (a cycle)');
  }
  const kind = classify(W.B, v);
  switch (kind) {
    case 'dom_node':
    case 'node_list':
    case 'window':
    case 'date':
      return plainBuiltin(W, v, kind);
    case 'promise':
      throw fail(W, path + ' is a Promise; await it before returning');
    case 'object': {
      const j = jsonOf(W, v, path);
      if (j !== v) return plain(W, j, path, depth);
    }
  }
  W.ancestors[W.depthNow] = v;
  W.ancestorPaths[W.depthNow] = path;
  W.depthNow++;
  try {
    switch (kind) {
      case 'array':
        return plainArray(W, v, path, depth);
      case 'typed_array':
        return plainTypedArray(W, v);
      case 'map':
        return plainMap(W, v, path, depth);
      case 'set':
        return plainSet(W, v, path, depth);
      case 'error':
        return plainError(W, v, path, depth);
      default:
        return plainObject(W, v, path, depth);
    }
  } finally {
    W.depthNow--;
  }
}

/** plainPrimitive converts a value that is not an object; NaN and ±Infinity become strings. */
function plainPrimitive(W, v, path) {
  switch (typeof v) {
    case 'undefined':
      return undefined;
    case 'string':
      grow(W, v.length + 3);
      return v;
    case 'boolean':
      grow(W, 6);
      return v;
    case 'number':
      if (v !== v) return grow(W, 5), 'NaN';
      if (v === Infinity) return grow(W, 10), 'Infinity';
      if (v === -Infinity) return grow(W, 11), '-Infinity';
      grow(W, ('' + v).length + 1);
      return v;
    case 'bigint':
      throw fail(W, path + ' is a BigInt (' + v + 'n); convert it with String() or Number()');
    case 'symbol':
      throw fail(W, path + ' is a Symbol');
    case 'function':
      throw fail(W, path + ' is a function');
  }
  grow(W, 5); // null
  return null;
}

/** plainBuiltin describes a DOM node, a node list, the window or a date. */
function plainBuiltin(W, v, kind) {
  switch (kind) {
    case 'dom_node': {
      const d = describeNode(W.B, v);
      grow(W, d.length + 3);
      return d;
    }
    case 'node_list': {
      const list = describeNodes(W.B, v);
      for (let i = 0; i < list.length; i++) grow(W, list[i].length + 3);
      return list;
    }
    case 'window':
      return windowText(W.B);
    default: {
      const t = W.B.apply(W.B.dateGetTime, v, []);
      return t !== t ? null : W.B.apply(W.B.dateToISOString, v, []);
    }
  }
}

/**
 * jsonOf returns what JSON would encode for the plain object v: v itself,
 * or what its toJSON() returns; a thenable is refused as a promise.
 */
function jsonOf(W, v, path) {
  let then;
  try {
    then = inherited(W.B, v, 'then') ? v.then : undefined;
  } catch (e) {
    throw fail(W, 'reading ' + path + '.then threw ' + errorSummary(e));
  }
  if (typeof then === 'function') throw fail(W, path + ' is a Promise; await it before returning');
  let toJSON;
  try {
    toJSON = inherited(W.B, v, 'toJSON') ? v.toJSON : undefined;
  } catch (e) {
    throw fail(W, 'reading ' + path + '.toJSON threw ' + errorSummary(e));
  }
  if (typeof toJSON !== 'function') return v;
  try {
    return W.B.apply(toJSON, v, ['']);
  } catch (e) {
    throw fail(W, path + '.toJSON() threw ' + errorSummary(e));
  }
}

/** readKey reads v[key], turning a throwing getter into a failure with its path. */
function readKey(W, v, path, key) {
  try {
    return v[key];
  } catch (e) {
    throw fail(W, 'reading ' + path + '.' + key + ' threw ' + errorSummary(e));
  }
}

/** plainArray converts an array item by item, undefined becoming null. */
function plainArray(W, v, path, depth) {
  const out = [];
  const len = v.length;
  grow(W, 2);
  for (let i = 0; i < len; i++) {
    const p = plain(W, readKey(W, v, path, i), path + '[' + i + ']', depth + 1);
    put(W.B, out, i, p === undefined ? null : p);
    grow(W, 1);
  }
  return out;
}

/** plainTypedArray lists a typed array's numbers (a BigInt one's as strings). */
function plainTypedArray(W, v) {
  const out = [];
  const len = W.B.apply(W.B.typedArrayLength, v, []);
  for (let i = 0; i < len; i++) {
    const x = v[i];
    put(W.B, out, i, typeof x === 'bigint' ? '' + x : x);
    grow(W, typeof x === 'bigint' ? ('' + x).length + 3 : ('' + x).length + 1);
  }
  return out;
}

/**
 * plainMap makes an object of a map whose keys are all strings or
 * numbers, and a list of [key, value] pairs of any other.
 */
function plainMap(W, v, path, depth) {
  const B = W.B;
  const keys = [];
  const vals = [];
  const it = B.apply(B.mapEntries, v, []);
  let allNamed = true;
  for (let r = B.apply(B.mapIterNext, it, []), i = 0; !r.done; r = B.apply(B.mapIterNext, it, []), i++) {
    const k = r.value[0];
    if (typeof k !== 'string' && typeof k !== 'number') allNamed = false;
    put(B, keys, i, k);
    put(B, vals, i, r.value[1]);
  }
  if (allNamed) {
    const out = { __proto__: null };
    for (let i = 0; i < keys.length; i++) {
      const k = '' + keys[i];
      const p = plain(W, vals[i], path + '.get(' + (typeof keys[i] === 'string' ? quote(B, k) : k) + ')', depth + 1);
      if (p !== undefined) {
        grow(W, k.length + 4);
        out[k] = p;
      }
    }
    return out;
  }
  const out = [];
  for (let i = 0; i < keys.length; i++) {
    const k = plain(W, keys[i], path + ' key #' + i, depth + 2);
    const x = plain(W, vals[i], path + ' value #' + i, depth + 2);
    const pair = [];
    put(B, pair, 0, k === undefined ? null : k);
    put(B, pair, 1, x === undefined ? null : x);
    put(B, out, i, pair);
  }
  return out;
}

/** plainSet lists a set's items. */
function plainSet(W, v, path, depth) {
  const B = W.B;
  const out = [];
  const it = B.apply(B.setValues, v, []);
  for (let r = B.apply(B.setIterNext, it, []), i = 0; !r.done; r = B.apply(B.setIterNext, it, []), i++) {
    const p = plain(W, r.value, path + ' item #' + i, depth + 1);
    put(B, out, i, p === undefined ? null : p);
  }
  return out;
}

/** plainErrorField reads key of the error v (errorField), a throwing getter becoming a failure. */
function plainErrorField(W, v, path, key) {
  try {
    return errorField(W.B, v, key);
  } catch (e) {
    throw fail(W, 'reading ' + path + '.' + key + ' threw ' + errorSummary(e));
  }
}

/** plainError is an error's name, message and the first lines of its stack. */
function plainError(W, v, path, depth) {
  const out = { __proto__: null };
  out.name = plain(W, plainErrorField(W, v, path, 'name'), path + '.name', depth + 1);
  out.message = plain(W, plainErrorField(W, v, path, 'message'), path + '.message', depth + 1);
  const stack = plainErrorField(W, v, path, 'stack');
  if (typeof stack === 'string' && stack) out.stack = firstLines(W.B, stack, 5);
  return out;
}

/** plainObject converts an object's own enumerable string keys, dropping undefined values. */
function plainObject(W, v, path, depth) {
  const out = { __proto__: null };
  let keys;
  try {
    keys = W.B.keys(v);
  } catch (e) {
    throw fail(W, 'listing the keys of ' + path + ' threw ' + errorSummary(e));
  }
  grow(W, 2);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const p = plain(W, readKey(W, v, path, key), path + '.' + key, depth + 1);
    if (p !== undefined) {
      grow(W, key.length + 4);
      out[key] = p;
    }
  }
  return out;
}

/** encode turns the script's value into the answer. */
function encode(W, value, compiledAs) {
  const builtins = W.builtins;
  try {
    const kind = value === undefined ? 'undefined' : value !== null && typeof value === 'object' ? classify(W.B, value) : '';
    const out = { __proto__: null, ok: true, value: plain(W, value, '$', 0), compiled_as: compiledAs, builtins };
    if (kind && kind !== 'object' && kind !== 'array' && kind !== 'date') out.type = kind;
    return out;
  } catch (e) {
    if (e === W.notSerialisable) return { __proto__: null, ok: false, kind: 'not_serialisable', message: W.failure, builtins };
    if (e === W.tooLarge) return { __proto__: null, ok: false, kind: 'too_large', chars: W.size, builtins };
    return { __proto__: null, ok: false, kind: 'not_serialisable', message: 'reading the result threw ' + errorSummary(e), builtins };
  }
}

/** thrown describes what the script threw; the worker formats it. */
function thrown(W, e, compiledAs) {
  const B = W.B;
  const out = { __proto__: null, ok: false, kind: 'thrown', compiled_as: compiledAs, builtins: W.builtins };
  let errorLike = false;
  if (e !== null && typeof e === 'object') {
    try {
      errorLike = isErrorLike(B, e, B.getPrototypeOf(e)) || ('message' in e && 'name' in e);
    } catch {
      errorLike = false;
    }
  }
  if (errorLike) {
    let name = '';
    let message = '';
    let stack = '';
    try {
      name = str(errorField(B, e, 'name'));
      message = str(errorField(B, e, 'message'));
      const s = errorField(B, e, 'stack');
      stack = typeof s === 'string' ? s : '';
    } catch {
      // a getter threw: keep what was read
    }
    out.error = { __proto__: null, name: slice(B, name, 0, 200), message: slice(B, message, 0, 10000), stack: slice(B, stack, 0, 10000) };
  } else {
    out.shown = slice(B, typeof e === 'string' ? quote(B, e) : str(e), 0, 1000);
  }
  return out;
}

/** compileFailure is the answer when the script does not compile (the page's CSP may forbid it). */
function compileFailure(W, e) {
  const B = W.B;
  let proto = null;
  try {
    proto = B.getPrototypeOf(e);
  } catch {
    proto = null;
  }
  const cls = proto === B.syntaxErrorProto ? 'syntax' : proto === B.evalErrorProto ? 'eval' : 'other';
  return { __proto__: null, ok: false, kind: 'compile', cls, name: slice(B, str(e?.name ?? 'Error'), 0, 200), message: slice(B, str(e?.message ?? e), 0, 2000), builtins: W.builtins };
}

/**
 * compileScript compiles the script as an expression, or, when that is a
 * syntax error, as a function body: {fn, compiledAs}, or {failure} (the
 * page's CSP may forbid it). The expression form hands its value to its
 * argument ($$gasolineHand) as soon as it is computed, so the value never
 * passes through the resolution of the async function's promise, where a
 * page that defines then on Object.prototype could swap it. The body form's
 * "return x" does pass through it: an object returned from a body is as
 * trustworthy as the page.
 */
function compileScript(W, body, expr) {
  const B = W.B;
  try {
    return { __proto__: null, fn: new B.AsyncFunction('$$gasolineHand', '"use strict"; return $$gasolineHand((\n' + expr + '\n));'), compiledAs: 'expression' };
  } catch (e) {
    if (B.getPrototypeOf(e) !== B.syntaxErrorProto) return { __proto__: null, failure: compileFailure(W, e) };
  }
  try {
    return { __proto__: null, fn: new B.AsyncFunction('$$gasolineHand', '"use strict";\n' + body), compiledAs: 'body' };
  } catch (e) {
    return { __proto__: null, failure: compileFailure(W, e) };
  }
}

/**
 * settle takes every settlement of the script's promise straight from it
 * with the saved then (never await, whose lookups of "constructor" and
 * "then" a page can hook) and resolves to the answer: the value the
 * expression form handed over (W.handed), or the body form's.
 */
function settle(W, settled, compiledAs) {
  const B = W.B;
  return new B.Promise((resolve) => {
    const done = (v) => resolve(encode(W, v, compiledAs));
    const failed = (e) => resolve(thrown(W, e, compiledAs));
    const finish = (returned) => {
      if (!W.handed) return done(returned);
      const v = W.handedValue;
      if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return done(v);
      if (isPromise(B, v)) return B.apply(B.then, v, [done, failed]); // an expression that is a promise: its value
      let then;
      try {
        then = B.hasOwn(v, 'then') ? v.then : undefined;
      } catch (e) {
        return failed(e);
      }
      if (typeof then !== 'function') return done(v);
      try {
        B.apply(then, v, [done, failed]); // a thenable the script made
      } catch (e) {
        failed(e);
      }
    };
    B.apply(B.then, settled, [finish, failed]);
  });
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
 *
 * It calls the script itself: the worker cuts a thrown error's stack at
 * the first frame of pageRun (jsresult.js describeThrown).
 */
function pageRun(B, body, expr, maxChars, late) {
  // W is the run's state; it has no prototype, so no write to it reaches a page's setter.
  const W = {
    __proto__: null, B, maxChars, builtins: late ? 'page' : 'pristine', maxDepth: 90,
    size: 0, // JSON characters so far, about
    failure: '', // why the value is not serialisable, when plain throws notSerialisable
    notSerialisable: { __proto__: null },
    tooLarge: { __proto__: null },
    ancestors: { __proto__: null }, ancestorPaths: { __proto__: null }, depthNow: 0,
    handed: false, handedValue: undefined,
  };
  const hand = (v) => {
    W.handed = true;
    W.handedValue = v;
  };
  const compiled = compileScript(W, body, expr);
  if (compiled.failure) return compiled.failure;
  let settled;
  try {
    settled = B.apply(compiled.fn, B.global, [hand]);
  } catch (e) {
    return thrown(W, e, compiled.compiledAs);
  }
  return settle(W, settled, compiled.compiledAs);
}

/** PAGE_RUN_PARTS are the functions PAGE_RUN_SOURCE declares; pageRun is its entry. */
export const PAGE_RUN_PARTS = [slice, str, oneLine, quote, put, brand, noop, isPromise, inherited, isErrorLike, errorField, classify,
  describeNode, describeNodes, windowText, errorSummary, firstLines, fail, grow, plain, plainPrimitive, plainBuiltin, jsonOf, readKey,
  plainArray, plainTypedArray, plainMap, plainSet, plainErrorField, plainError, plainObject, encode, thrown, compileFailure,
  compileScript, settle, pageRun];

/**
 * PAGE_RUN_SOURCE is the source runInPristine hands to pristine.js (and
 * userscripts/execute.js runs): one strict function, called as pageRun is,
 * that declares every part and calls pageRun. All of it is strict code, so
 * a page's hook gets no function object of it (.caller, CallSite.getFunction).
 */
export const PAGE_RUN_SOURCE = 'function pageRunner(B, body, expr, maxChars, late) {\n' +
  "'use strict';\n" +
  PAGE_RUN_PARTS.map((f) => f.toString()).join('\n') +
  '\nreturn pageRun(B, body, expr, maxChars, late);\n}';
