// Serialisation of the page's values for log and error records (pure,
// unit-tested under node): console arguments as one line of JSON-like text,
// DOM nodes as short selectors, errors as "Name: message".
import {
  toTag, nodeTypeOf, strLower, StringCtor, cssEscape, MathMin, MathTrunc, stringify, strSlice, strIndexOf, strCharAt,
  strSplit, strStartsWith, symToString, fnToString, arrIndexOf, arrPush, hasDOM, G, dateToISO, regexpToString,
  isArray, mapForEach, mapSize, setForEach, setSize, keys, getProto, objProto,
} from './builtins.js';
import { LIMITS, SCRIPT_NAME } from './limits.js';
import { clip, oneLine } from './text.js';

/** isElement reports whether v is a DOM element (by its saved nodeType getter; never throws). */
export function isElement(v) {
  try {
    return v !== null && typeof v === 'object' && nodeTypeOf(v) === 1;
  } catch {
    return false;
  }
}

/** isNodeLike reports whether v looks like a DOM node (a number nodeType and a string nodeName). */
function isNodeLike(v) {
  try {
    return typeof v.nodeType === 'number' && typeof v.nodeName === 'string';
  } catch {
    return false;
  }
}

/** isErrorLike reports whether v is an Error or a DOMException (by its tag). */
export function isErrorLike(v) {
  const t = toTag(v);
  return t === '[object Error]' || t === '[object DOMException]';
}

/** shortNode describes a DOM node briefly: "button#save.primary", "#text \"hi\"", "#document". */
export function shortNode(n) {
  const type = n.nodeType;
  if (type === 1) {
    let s = strLower(StringCtor(n.localName || n.nodeName));
    const id = n.id;
    if (id) s += '#' + cssEscape(id);
    const cls = n.classList;
    if (cls) {
      const max = MathMin(cls.length, 2);
      for (let i = 0; i < max; i++) s += '.' + cssEscape(cls[i]);
    }
    return s;
  }
  if (type === 3) return '#text ' + stringify(oneLine(StringCtor(n.data), 40));
  if (type === 9) return '#document';
  return StringCtor(n.nodeName);
}

/** errorText is error e as "Name: message" ("Error" when reading it throws). */
export function errorText(e) {
  let name;
  let msg;
  try {
    name = StringCtor(e.name || 'Error');
    msg = StringCtor(e.message ?? '');
  } catch {
    return 'Error';
  }
  return msg ? name + ': ' + msg : name;
}

/** errorStack is error e's stack, clipped, or undefined. */
export function errorStack(e) {
  try {
    const s = e.stack;
    return typeof s === 'string' ? clip(s, LIMITS.stack) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * fmt renders any value as one line of JSON-like text for a log message:
 * strings quoted, objects and arrays as {"k":v} / [a,b] up to LIMITS.depth
 * and LIMITS.entries, DOM nodes as short selectors, errors as
 * "Name: message", repeated ancestors as "[Circular]". It runs page getters
 * and proxy traps, so every access is guarded; budget.left bounds the
 * output so a huge object costs little.
 */
export function fmt(v, depth, path, budget) {
  if (budget.left <= 0) return '…';
  let out;
  switch (typeof v) {
    case 'string':
      out = stringify(clip(v, depth === 0 ? budget.left : LIMITS.nested));
      break;
    case 'number':
      out = v === 0 && 1 / v < 0 ? '-0' : StringCtor(v);
      break;
    case 'boolean':
      out = v ? 'true' : 'false';
      break;
    case 'undefined':
      out = 'undefined';
      break;
    case 'bigint':
      out = StringCtor(v) + 'n';
      break;
    case 'symbol':
      out = symToString(v);
      break;
    case 'function':
      out = fnName(v);
      break;
    default:
      out = v === null ? 'null' : fmtObject(v, depth, path, budget);
  }
  budget.left -= out.length;
  return out;
}

/** fnName renders a function as [Function name] or [class Name]. */
function fnName(f) {
  let name = '';
  try {
    name = typeof f.name === 'string' ? f.name : '';
    if (strStartsWith(fnToString(f), 'class')) return '[class ' + (name || '(anonymous)') + ']';
  } catch {
    // a revoked proxy or a hostile toString
  }
  return '[Function' + (name ? ' ' + name : '') + ']';
}


/** fmtObject renders an object v for fmt: errors, nodes, dates and the like by kind, containers through fmtContainer; path holds its ancestors. */
function fmtObject(v, depth, path, budget) {
  try {
    if (arrIndexOf(path, v) >= 0) return '[Circular]';
    if (hasDOM && v === G) return '[Window]';
    if (isErrorLike(v)) return errorText(v);
    if (isNodeLike(v)) return shortNode(v);
    const tag = toTag(v);
    if (tag === '[object Date]') {
      try {
        return dateToISO(v);
      } catch {
        return 'Invalid Date';
      }
    }
    if (tag === '[object RegExp]') return regexpToString(v);
    if (tag === '[object Promise]') return 'Promise';
    if (tag === '[object Window]') return '[Window]';
    if (depth >= LIMITS.depth) return isArray(v) ? '[Array(' + v.length + ')]' : '[Object]';
    arrPush(path, v);
    try {
      return fmtContainer(v, tag, depth, path, budget);
    } finally {
      path.length--;
    }
  } catch {
    return '[Unserialisable]';
  }
}

/** fmtContainer renders an array, map, set, typed array or object v (its tag) whose entries fmt renders. */
function fmtContainer(v, tag, depth, path, budget) {
  if (isArray(v)) return fmtList(v, v.length, (i) => v[i], '[', ']', depth, path, budget);
  if (tag === '[object Map]') {
    const items = [];
    mapForEach(v, (val, k) => {
      if (items.length < LIMITS.entries) arrPush(items, [k, val]);
    });
    return 'Map(' + mapSize(v) + ') ' + fmtList(items, mapSize(v), (i) => items[i], '{', '}', depth, path, budget, true);
  }
  if (tag === '[object Set]') {
    const items = [];
    setForEach(v, (val) => {
      if (items.length < LIMITS.entries) arrPush(items, val);
    });
    return 'Set(' + setSize(v) + ') ' + fmtList(items, setSize(v), (i) => items[i], '[', ']', depth, path, budget);
  }
  if (ArrayBuffer.isView(v)) {
    const name = strSlice(tag, 8, -1);
    return name + '(' + v.length + ') ' + fmtList(v, v.length, (i) => v[i], '[', ']', depth, path, budget);
  }
  const ks = keys(v);
  let s = '';
  const proto = getProto(v);
  if (proto !== objProto && proto !== null) {
    const ctor = proto.constructor;
    const cname = ctor && typeof ctor.name === 'string' ? ctor.name : '';
    if (cname && cname !== 'Object') s = cname + ' ';
  }
  s += '{';
  const n = MathMin(ks.length, LIMITS.entries);
  for (let i = 0; i < n; i++) {
    if (budget.left <= 0) break;
    const k = ks[i];
    let val;
    try {
      val = v[k];
    } catch (e) {
      val = '[Thrown: ' + errorText(e) + ']';
    }
    const part = stringify(k) + ':' + fmt(val, depth + 1, path, budget);
    s += (i ? ',' : '') + part;
  }
  if (ks.length > n) s += ',…' + (ks.length - n) + ' more';
  return s + '}';
}

/** fmtList renders up to LIMITS.entries of total items (at(i), pairs as k=>v) between open and close, and how many more. */
function fmtList(list, total, at, open, close, depth, path, budget, pairs) {
  let s = open;
  const n = MathMin(total, LIMITS.entries, list.length);
  for (let i = 0; i < n; i++) {
    if (budget.left <= 0) break;
    const item = at(i);
    const part = pairs
      ? fmt(item[0], depth + 1, path, budget) + '=>' + fmt(item[1], depth + 1, path, budget)
      : fmt(item, depth + 1, path, budget);
    s += (i ? ',' : '') + part;
  }
  if (total > n) s += ',…' + (total - n) + ' more';
  return s + close;
}

/**
 * formatArgs turns console arguments into {message, stack?}: strings as
 * they are, other values through fmt, joined with spaces; "%s %d %i %f %o
 * %O %j %c" in a leading string are substituted (%c's CSS argument is
 * dropped). stack is the first Error argument's stack.
 */
export function formatArgs(args) {
  const budget = { left: LIMITS.message };
  let message = '';
  let stack;
  let i = 0;
  const n = args.length;
  if (n > 0 && typeof args[0] === 'string' && strIndexOf(args[0], '%') >= 0 && n > 1) {
    const f = args[0];
    i = 1;
    let s = '';
    let last = 0;
    for (let p = strIndexOf(f, '%'); p >= 0 && p < f.length - 1; p = strIndexOf(f, '%', p)) {
      const c = strCharAt(f, p + 1);
      if (c === '%') {
        s += strSlice(f, last, p) + '%';
        last = p += 2;
        continue;
      }
      if (strIndexOf('sdifoOjc', c) >= 0 && i < n) {
        const a = args[i++];
        let r;
        if (c === 'c') r = '';
        else if (c === 's') r = typeof a === 'string' ? a : fmt(a, 1, [], budget);
        else if (c === 'd' || c === 'i') r = typeof a === 'number' ? StringCtor(c === 'i' ? MathTrunc(a) : a) : 'NaN';
        else if (c === 'f') r = StringCtor(+a);
        else r = fmt(a, 0, [], budget);
        if (!stack && a && typeof a === 'object' && isErrorLike(a)) stack = errorStack(a);
        s += strSlice(f, last, p) + r;
        last = p += 2;
        continue;
      }
      p += 1;
    }
    message = s + strSlice(f, last);
  }
  for (; i < n; i++) {
    if (message.length >= LIMITS.message) break;
    const a = args[i];
    if (message.length || i > 0) message += ' ';
    message += typeof a === 'string' ? a : fmt(a, 0, [], budget);
    if (!stack && a && typeof a === 'object' && isErrorLike(a)) stack = errorStack(a);
  }
  return { message: clip(message, LIMITS.message), stack };
}

// callerSource is the first frame of stack that is not the capture's: "url:line:col".
export function callerSource(stack) {
  const lines = strSplit(stack, '\n');
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i];
    if (strIndexOf(l, SCRIPT_NAME) >= 0) continue;
    const m = /\(?((?:[a-z-]+:\/\/|\/)[^\s()]*?:\d+:\d+)\)?\s*$/i.exec(l);
    if (m) return clip(m[1], LIMITS.url);
  }
  return undefined;
}
