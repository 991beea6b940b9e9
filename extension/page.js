// The function execute_js injects into a page's MAIN world.
//
// pageRun is serialised by chrome.scripting.executeScript (func.toString()),
// so it must be self-contained: every helper lives inside it and it may use
// only the page's globals. It never throws and never returns a non-plain
// value; Chrome awaits the returned promise. It also runs unchanged under
// node for the unit tests (no DOM there).

/**
 * MAX_RESULT_CHARS bounds the JSON of a value so its post stays under the
 * daemon's 16 MB result body; the daemon truncates outputs over 10 MB itself
 * and states it in the handle.
 */
export const MAX_RESULT_CHARS = 15 * 1024 * 1024;

/**
 * pageRun compiles script, runs it, and encodes its value.
 *
 * The script is an expression ("document.title") or a function body
 * ("return document.title"); both may use await. It is first compiled as
 * `return (<script>)` in an async function, and, if that is a syntax error,
 * as the body of an async function.
 *
 * It resolves to one of:
 *   {ok: true,  json, type?, hint?, compiled_as, url}  json is the value as JSON text
 *   {ok: false, kind, message, url}  kind: "syntax" | "csp" | "compile" |
 *                                     "thrown" | "not_serialisable" | "too_large"
 * type is set when the value is not plain JSON data: "undefined", "dom_node",
 * "node_list", "window", "error", "map", "set", "typed_array".
 */
export async function pageRun(script, maxChars = 15 * 1024 * 1024) {
  const url = typeof location !== 'undefined' ? String(location.href) : '';
  const MAX_DEPTH = 100;
  const STACK_LINES = 4;

  class NotSerialisable extends Error {}

  // Lines the Function constructor (2) and the expression wrapper (1) put
  // before the script's first line.
  let lineOffset = 3;

  const oneLine = (s, n) => {
    const t = String(s).replace(/\s+/g, ' ').trim();
    return t.length > n ? t.slice(0, n - 1) + '…' : t;
  };

  // describeError renders a thrown value as "Name: message" plus the first
  // stack frames that belong to the user's script, not to pageRun.
  const describeError = (e) => {
    if (!(e instanceof Error) && !(e && typeof e === 'object' && 'message' in e && 'name' in e)) {
      let shown;
      try {
        shown = typeof e === 'string' ? JSON.stringify(e) : String(e);
      } catch {
        shown = Object.prototype.toString.call(e);
      }
      return `Uncaught non-Error value: ${oneLine(shown, 200)}`;
    }
    // A page can throw an error as large as itself; the daemon keeps 4 KB.
    const message = String(e.message);
    const head = `${e.name || 'Error'}: ${message.length > 2000 ? `${message.slice(0, 2000)}… (${message.length - 2000} more characters cut)` : message}`;
    const frames = [];
    for (const line of String(e.stack || '').split('\n')) {
      if (!/^\s+at /.test(line)) continue;
      if (/^\s+at (async )?pageRun\b/.test(line)) break;
      // "(eval at pageRun (...), <anonymous>:L:C)" → "(script:l:C)", l a line of the script.
      frames.push(line.trim().replace(/\(eval at .*, <anonymous>:(\d+):(\d+)\)$/,
        (_, l, c) => `(script:${Number(l) - lineOffset}:${c})`));
      if (frames.length === STACK_LINES) break;
    }
    return frames.length ? `${head}\n  ${frames.join('\n  ')}` : head;
  };

  // Nodes of other frames fail instanceof, hence the shape check.
  const isNode = (v) =>
    (typeof Node !== 'undefined' && v instanceof Node) ||
    (typeof v.nodeType === 'number' && typeof v.nodeName === 'string' && typeof v.cloneNode === 'function');
  const isWindow = (v) => v === globalThis || (typeof Window !== 'undefined' && v instanceof Window);
  const isNodeList = (v) =>
    (typeof NodeList !== 'undefined' && v instanceof NodeList) ||
    (typeof HTMLCollection !== 'undefined' && v instanceof HTMLCollection);

  // describeNode gives a short human description of a DOM node.
  const describeNode = (n) => {
    if (n.nodeType === 1) {
      let s = '<' + n.localName;
      if (n.id) s += ` id="${oneLine(n.id, 40)}"`;
      const cls = typeof n.className === 'string' ? n.className.trim() : '';
      if (cls) s += ` class="${oneLine(cls, 60)}"`;
      for (const attr of ['name', 'type', 'href', 'src']) {
        const v = n.getAttribute(attr);
        if (v) s += ` ${attr}="${oneLine(v, 80)}"`;
      }
      s += '>';
      const text = oneLine(n.textContent || '', 60);
      return text ? `${s} ${JSON.stringify(text)}` : s;
    }
    if (n.nodeType === 3) return `#text ${JSON.stringify(oneLine(n.data, 60))}`;
    if (n.nodeType === 8) return `<!-- ${oneLine(n.data, 60)} -->`;
    if (n.nodeType === 9) return `#document ${n.URL || ''}`.trim();
    return n.nodeName;
  };

  // plain converts v to plain JSON data, throwing NotSerialisable with the
  // path of the first value that has no faithful JSON form. Shared
  // references are fine; only a reference back to an ancestor is a cycle.
  const plain = (v, path, ancestors, depth) => {
    switch (typeof v) {
      case 'undefined':
        return undefined;
      case 'string':
      case 'boolean':
        return v;
      case 'number':
        return Number.isFinite(v) ? v : String(v); // NaN, Infinity, -Infinity as strings
      case 'bigint':
        throw new NotSerialisable(`${path} is a BigInt (${v}n); convert it with String() or Number()`);
      case 'symbol':
        throw new NotSerialisable(`${path} is a Symbol`);
      case 'function':
        throw new NotSerialisable(`${path} is a function`);
    }
    if (v === null) return null;
    if (depth > MAX_DEPTH) throw new NotSerialisable(`${path} is nested more than ${MAX_DEPTH} levels deep`);
    if (ancestors.has(v)) {
      throw new NotSerialisable(`${path} refers back to ${ancestors.get(v)} (a cycle)`);
    }
    if (isNode(v)) return describeNode(v);
    if (isWindow(v)) return `[Window ${url}]`.replace(' ]', ']');
    if (typeof v.then === 'function') {
      throw new NotSerialisable(`${path} is a Promise; await it before returning`);
    }
    if (typeof v.toJSON === 'function') {
      let j;
      try {
        j = v.toJSON();
      } catch (e) {
        throw new NotSerialisable(`${path}.toJSON() threw ${describeError(e)}`);
      }
      if (j !== v) return plain(j, path, ancestors, depth);
    }
    ancestors.set(v, path);
    try {
      if (isNodeList(v)) return Array.from(v, (n) => describeNode(n));
      if (Array.isArray(v)) {
        return v.map((x, i) => {
          const p = plain(x, `${path}[${i}]`, ancestors, depth + 1);
          return p === undefined ? null : p;
        });
      }
      if (v instanceof Error) {
        const out = { name: v.name, message: v.message };
        if (v.stack) out.stack = String(v.stack).split('\n').slice(0, STACK_LINES + 1).join('\n');
        return out;
      }
      if (v instanceof Map) {
        const keys = Array.from(v.keys());
        if (keys.every((k) => typeof k === 'string' || typeof k === 'number')) {
          const out = {};
          for (const [k, x] of v) {
            const p = plain(x, `${path}.get(${JSON.stringify(k)})`, ancestors, depth + 1);
            if (p !== undefined) out[k] = p;
          }
          return out;
        }
        return Array.from(v, ([k, x], i) => [
          plain(k, `${path} key #${i}`, ancestors, depth + 1) ?? null,
          plain(x, `${path} value #${i}`, ancestors, depth + 1) ?? null,
        ]);
      }
      if (v instanceof Set) {
        return Array.from(v, (x, i) => plain(x, `${path} item #${i}`, ancestors, depth + 1) ?? null);
      }
      if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
        return Array.from(v, (x) => (typeof x === 'bigint' ? String(x) : x));
      }
      const out = {};
      for (const key of Object.keys(v)) {
        let x;
        try {
          x = v[key];
        } catch (e) {
          throw new NotSerialisable(`reading ${path}.${key} threw ${describeError(e)}`);
        }
        const p = plain(x, `${path}.${key}`, ancestors, depth + 1);
        if (p !== undefined) out[key] = p;
      }
      return out;
    } finally {
      ancestors.delete(v);
    }
  };

  // typeOf names the kind of a top-level value that is not plain JSON data.
  const typeOf = (v) => {
    if (v === undefined) return 'undefined';
    if (v === null || typeof v !== 'object') return undefined;
    if (isNode(v)) return 'dom_node';
    if (isNodeList(v)) return 'node_list';
    if (isWindow(v)) return 'window';
    if (v instanceof Error) return 'error';
    if (v instanceof Map) return 'map';
    if (v instanceof Set) return 'set';
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return 'typed_array';
    return undefined;
  };

  // Compile: expression first (trailing semicolons dropped), then body.
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  let fn;
  let compiledAs = 'expression';
  // A compile error has no frames of the script: report its first line only.
  const compileFailure = (e) => {
    const message = `${e?.name || 'Error'}: ${String(e?.message ?? e).split('\n')[0].trim()}`;
    if (e instanceof SyntaxError) return { ok: false, kind: 'syntax', message, url };
    if (e instanceof EvalError || /unsafe-eval|Content Security Policy|TrustedScript/i.test(String(e?.message))) {
      return { ok: false, kind: 'csp', message, url };
    }
    return { ok: false, kind: 'compile', message, url };
  };
  const expr = String(script).replace(/[\s;]+$/, '');
  try {
    fn = new AsyncFunction(`return (\n${expr}\n);`);
  } catch (e) {
    if (!(e instanceof SyntaxError)) return compileFailure(e);
    try {
      fn = new AsyncFunction(String(script));
      compiledAs = 'body';
      lineOffset = 2;
    } catch (e2) {
      return compileFailure(e2);
    }
  }

  let value;
  try {
    value = await fn.call(globalThis);
  } catch (e) {
    return { ok: false, kind: 'thrown', message: describeError(e), url };
  }

  try {
    const type = typeOf(value);
    const data = plain(value, '$', new Map(), 0);
    const json = data === undefined ? 'null' : JSON.stringify(data);
    if (json.length > maxChars) {
      return {
        ok: false,
        kind: 'too_large',
        message: `the result is ${json.length} characters of JSON, over the limit of ${maxChars}`,
        url,
      };
    }
    const out = { ok: true, json, compiled_as: compiledAs, url };
    if (type) out.type = type;
    if (type === 'undefined' && compiledAs === 'body' && !/\breturn\b/.test(String(script))) {
      out.hint = 'the script ran as a function body without a return statement; add "return <value>" to get a value back';
    } else if (type === 'dom_node' || type === 'node_list') {
      out.hint = 'DOM nodes are returned as short descriptions; return the properties you need (e.g. el.textContent, el.href)';
    }
    return out;
  } catch (e) {
    if (e instanceof NotSerialisable) return { ok: false, kind: 'not_serialisable', message: e.message, url };
    return { ok: false, kind: 'thrown', message: `encoding the result: ${describeError(e)}`, url };
  }
}
