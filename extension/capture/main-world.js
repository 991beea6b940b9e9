// MAIN-world capture: runs at document_start in the frames capture/declared.js
// registers, before any of the page's own scripts, in the page's JavaScript world
// ("world": "MAIN"). It records what the page does (console, errors, fetch and
// XHR, SPA navigations, web vitals; user actions are capture/record.js's)
// and hands the records to the ISOLATED-world relay (relay.js) over a
// private MessageChannel.
//
// It is a classic script: one self-contained function, nothing left on the
// page's global object. Everything it calls later is saved here first, so a
// page that replaces console, fetch, JSON, Array methods or addEventListener
// after this point changes nothing for it. The page never waits on it: hooks
// record and return, bodies are read from clones after the page got its
// response, and the buffer drops its oldest records (counted) when full.
//
// Handshake (see relay.js and extension/README.md): this script creates the
// channel and dispatches a synchronous, cancelable MessageEvent
// "gasoline:capture-port" carrying port2 on window; the relay, which Chrome
// runs first (registration order), takes the first port it is given, cancels the
// event and stops listening. Both happen at document_start, before the page
// has run a line, so the page can neither see nor replace the port. Whatever
// comes through the port is data to the relay and the worker: the worker
// stamps tab, frame and URL from Chrome's sender, so a page can at most add
// records to its own frame's stream, as its own console.log could.
//
// Under node (no document) it installs nothing and exposes its pure helpers
// as globalThis.gasolineCaptureKit for the unit tests; a page cannot reach
// that branch because window.document is unforgeable (and the bundles leave
// it out).
//
// The sourceURL comment at the end names this script "gasoline-capture.js"
// in stack traces. It matters for speed: Chrome captures a full stack trace
// and sends it to the browser process for every console message whose
// calling frame is an extension script (for chrome://extensions' error
// list), which made each hooked console.log about twice as costly; under a
// plain name the console call costs what the page's own would.
//
// Lean: registered while no agent is at work (capture/declared.js), this
// script is the bundle dist/start-main-idle.js, built with GASOLINE_LEAN
// defined true (scripts/bundle), so LEAN is true there and the minifier
// drops what it leaves out: WebSocket frames, the bodies of requests that
// succeeded and web vitals, which serve an agent only. Everything else
// (console with the stacks of warnings and errors, errors, requests, the
// request and response bodies of those that failed: status 400 or more, or
// no response; history, secret fields, the work count that settles an
// action) stays: the user reproduces a bug before asking an agent, and an
// agent may act later in a page the user opened before it came. A lean
// document says so: its load record and each request record carry lean:
// true (the daemon reads a failed one's bodies as kept). The at-work bundle
// defines it false; under node it is undefined, and the tests see the full
// script.
(function gasolineCapture(global) {
  'use strict';
  const LEAN = typeof GASOLINE_LEAN !== 'undefined' && GASOLINE_LEAN === true;

  // --- built-ins, saved before page code runs ---------------------------------
  const FP = Function.prototype;
  const uncurry = FP.bind.bind(FP.call); // uncurry(f)(self, ...args) === f.call(self, ...args)
  const apply = Reflect.apply;
  const O = Object;
  const keys = O.keys;
  const getProto = O.getPrototypeOf;
  const getOwnDesc = O.getOwnPropertyDescriptor;
  const objProto = O.prototype;
  const toTag = uncurry(objProto.toString);
  const hasOwn = O.hasOwn;
  const isArray = Array.isArray;
  const stringify = JSON.stringify;
  const parseJSON = JSON.parse;
  const now = Date.now;
  const MathMax = Math.max;
  const MathMin = Math.min;
  const MathRandom = Math.random;
  const MathRound = Math.round;
  const MathTrunc = Math.trunc;
  const StringCtor = String;
  const NumberIsFinite = Number.isFinite;
  const strSlice = uncurry(String.prototype.slice);
  const strIndexOf = uncurry(String.prototype.indexOf);
  const strLower = uncurry(String.prototype.toLowerCase);
  const strUpper = uncurry(String.prototype.toUpperCase);
  const strTrim = uncurry(String.prototype.trim);
  const strReplace = uncurry(String.prototype.replace);
  const strSplit = uncurry(String.prototype.split);
  const strCharAt = uncurry(String.prototype.charAt);
  const strStartsWith = uncurry(String.prototype.startsWith);
  const strReplaceAll = uncurry(String.prototype.replaceAll);
  const arrJoin = uncurry(Array.prototype.join);
  const arrPush = uncurry(Array.prototype.push);
  const arrShift = uncurry(Array.prototype.shift);
  const arrIndexOf = uncurry(Array.prototype.indexOf);
  const arrSplice = uncurry(Array.prototype.splice);
  const WS = /\s+/g;
  const ErrorCtor = Error;
  const WeakMapCtor = WeakMap;
  const wmGet = uncurry(WeakMap.prototype.get);
  const wmSet = uncurry(WeakMap.prototype.set);
  const mapSize = uncurry(getOwnDesc(Map.prototype, 'size').get);
  const setSize = uncurry(getOwnDesc(Set.prototype, 'size').get);
  const mapForEach = uncurry(Map.prototype.forEach);
  const setForEach = uncurry(Set.prototype.forEach);
  const dateToISO = uncurry(Date.prototype.toISOString);
  const regexpToString = uncurry(RegExp.prototype.toString);
  const symToString = uncurry(Symbol.prototype.toString);
  const fnToString = uncurry(FP.toString);
  const promiseThen = uncurry(Promise.prototype.then);
  const PromiseCtor = Promise;
  const ProxyCtor = Proxy;
  const construct = Reflect.construct;

  const hasDOM = typeof document !== 'undefined' && typeof window !== 'undefined';

  // DOM built-ins; absent under node, where the tests pass fakes through the
  // same accessors (see extension/test/capture-dom.js).
  const dom = (C, name, getter) => {
    const p = C && C.prototype;
    if (!p) return null;
    if (getter) {
      for (let o = p; o; o = getProto(o)) {
        const d = getOwnDesc(o, name);
        if (d && d.get) return uncurry(d.get);
      }
      return null;
    }
    return typeof p[name] === 'function' ? uncurry(p[name]) : null;
  };
  const G = global;
  const E = G.Element;
  const N = G.Node;
  const getAttr = dom(E, 'getAttribute') || ((el, n) => el.getAttribute(n));
  const localNameOf = dom(E, 'localName', true) || ((el) => el.localName);
  const nodeTypeOf = dom(N, 'nodeType', true) || ((n) => n.nodeType);
  const cssEscape = (G.CSS && G.CSS.escape) || ((s) => strReplace(StringCtor(s), /[^\w-]/g, (c) => '\\' + c));

  // --- limits -----------------------------------------------------------------
  const LIMITS = {
    message: 8000, // a log or error message after serialisation
    stack: 4000,
    nested: 300, // a string inside a serialised object
    depth: 3, // object nesting shown before "[Object]"
    entries: 20, // keys or items shown per object, array, map or set
    url: 2048,
    headers: 64,
    buffer: 1000, // records held while the relay is not connected
    flushCount: 100, // records per port message
    flushMs: 20,
  };
  const DEFAULT_BODY_CAP = 262144;
  const SCRIPT_NAME = 'gasoline-capture.js'; // this script's name in stack traces (see the header)

  // --- pure helpers (unit-tested under node) -----------------------------------

  /** clip shortens s to at most n characters, marking the cut with "…". */
  function clip(s, n) {
    return s.length > n ? strSlice(s, 0, n - 1) + '…' : s;
  }

  const charCodeAt = uncurry(String.prototype.charCodeAt);

  /** utf8Length is the size of s in UTF-8 bytes (its length past 4M characters, to stay cheap). */
  function utf8Length(s) {
    if (s.length > 4194304) return s.length;
    let n = s.length;
    for (let i = 0; i < s.length; i++) {
      const c = charCodeAt(s, i);
      if (c < 0x80) continue;
      n += c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 1 : 2; // a surrogate pair: 4 bytes for 2 units
    }
    return n;
  }

  function oneLine(s, n) {
    return clip(strTrim(strReplace(s, WS, ' ')), n);
  }

  function isElement(v) {
    try {
      return v !== null && typeof v === 'object' && nodeTypeOf(v) === 1;
    } catch {
      return false;
    }
  }

  function isNodeLike(v) {
    try {
      return typeof v.nodeType === 'number' && typeof v.nodeName === 'string';
    } catch {
      return false;
    }
  }

  function isErrorLike(v) {
    const t = toTag(v);
    return t === '[object Error]' || t === '[object DOMException]';
  }

  /** shortNode describes a DOM node briefly: "button#save.primary", "#text \"hi\"", "#document". */
  function shortNode(n) {
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

  function errorText(e) {
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

  function errorStack(e) {
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
  function fmt(v, depth, path, budget) {
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
      } finally {
        path.length--;
      }
    } catch {
      return '[Unserialisable]';
    }
  }

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
  function formatArgs(args) {
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

  const SECRET_AUTOCOMPLETE = /(^|\s)(cc-[a-z-]+|current-password|new-password|one-time-code)(\s|$)/i;

  /**
   * isSecretField says whether a form control's value must never be
   * recorded: password fields and fields whose autocomplete names a card
   * field ("cc-*"), a password or a one-time code.
   */
  function isSecretField(el) {
    if (!isElement(el)) return false;
    const type = strLower(getAttr(el, 'type') || '');
    if (type === 'password') return true;
    try {
      if (el.type === 'password') return true;
    } catch {
      // not a form control
    }
    const ac = getAttr(el, 'autocomplete');
    return !!ac && SECRET_AUTOCOMPLETE.test(ac);
  }

  const TEXT_MIME = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|ecmascript|x-www-form-urlencoded|graphql|x-ndjson)\b)/i;

  /** isTextMime says whether a body of this content type is text worth keeping. */
  function isTextMime(mime) {
    return typeof mime === 'string' && TEXT_MIME.test(mime) && !/event-stream/i.test(mime);
  }

  /**
   * scrub replaces every occurrence of each secret in s with "[redacted]":
   * as typed, URL-encoded (encodeURIComponent), form-encoded (URLSearchParams,
   * FormData posted as a form) and JSON-escaped. Secrets shorter than 3
   * characters are left alone: they would match everywhere.
   */
  function scrub(s, secrets) {
    if (typeof s !== 'string' || !secrets.length) return s;
    for (let i = 0; i < secrets.length; i++) {
      const v = secrets[i];
      if (typeof v !== 'string' || v.length < 3) continue;
      const forms = [v];
      try {
        const enc = encodeURIComponent(v);
        const plus = strReplaceAll(enc, '%20', '+'); // jQuery.param and friends
        arrPush(forms, enc);
        arrPush(forms, plus);
        arrPush(forms, strReplace(plus, /[!'()~]/g, (c) => '%' + strUpper(c.charCodeAt(0).toString(16))));
      } catch {
        // a lone surrogate: only the raw form
      }
      arrPush(forms, strSlice(stringify(v), 1, -1));
      for (let j = 0; j < forms.length; j++) {
        if (strIndexOf(s, forms[j]) >= 0) s = strReplaceAll(s, forms[j], '[redacted]');
      }
    }
    return s;
  }

  /**
   * Buffer holds records until they are posted: at most `limit`, dropping
   * the oldest and counting drops per kind. Pure; the page side wraps it.
   */
  function Buffer(limit) {
    this.limit = limit;
    this.items = [];
    this.dropped = {};
    this.droppedAny = false;
  }
  Buffer.prototype.push = function push(rec) {
    const items = this.items;
    if (items.length >= this.limit) {
      const old = arrShift(items);
      this.dropped[old.kind] = (this.dropped[old.kind] || 0) + 1;
      this.droppedAny = true;
    }
    items[items.length] = rec;
    return items.length;
  };
  /** take removes up to n records and the drop counts: {events, dropped?}. */
  Buffer.prototype.take = function take(n) {
    const events = arrSplice(this.items, 0, n);
    const msg = { events };
    if (this.droppedAny) {
      msg.dropped = this.dropped;
      this.dropped = {};
      this.droppedAny = false;
    }
    return msg;
  };

  /**
   * hookWebSockets records what the page's WebSockets do as "websocket"
   * records through emit: "connect" (url), "open", each frame as "message"
   * (direction, size; text cut at cap(), binary frames as size only),
   * "close" (code, reason, frames_dropped) and "error". The constructor is
   * wrapped in a Proxy (same prototype, statics, name and instanceof), send
   * is wrapped on the prototype; our listeners only read. A connection keeps
   * at most WSL.frames frames and WSL.bytes of kept text, all of them WSL.all
   * frames and WSL.allBytes; frames past a bound are counted in frames_dropped. on()
   * says whether network capture is on.
   */
  const hookWebSockets = LEAN ? null : function hookWebSockets(win, emit, on, cap, addListener) {
    const C = win.WebSocket;
    if (typeof C !== 'function' || !C.prototype) return;
    const P = C.prototype;
    const origSend = P.send;
    const get = (K, name) => dom(K, name, true) || ((o) => o[name]); // saved getters: a page may replace them
    const urlOf = get(C, 'url');
    const dataOf = get(win.MessageEvent, 'data');
    const codeOf = get(win.CloseEvent, 'code');
    const reasonOf = get(win.CloseEvent, 'reason');
    const socks = new WeakMapCtor(); // socket -> its connection
    const ALL = { frames: 0, bytes: 0 };
    const rid = strSlice(StringCtor(MathRandom()), 2, 10);
    let n = 0;
    const sizeOf = (d) => {
      try {
        if (typeof d === 'string') return utf8Length(d);
        const s = d.byteLength ?? d.size;
        return typeof s === 'number' ? s : 0;
      } catch {
        return 0;
      }
    };
    const rec = (c, type, extra) => {
      const r = { kind: 'websocket', ts: now(), conn_id: c.id, type };
      if (extra) {
        const ks = keys(extra);
        for (let i = 0; i < ks.length; i++) r[ks[i]] = extra[ks[i]];
      }
      emit(r);
    };
    const frame = (c, direction, d) => {
      if (!on()) return;
      const text = typeof d === 'string';
      const max = cap();
      const len = text ? MathMin(d.length, max) : 0; // the text kept
      if (c.frames >= WSL.frames || ALL.frames >= WSL.all || c.bytes + len > WSL.bytes || ALL.bytes + len > WSL.allBytes) {
        c.dropped++;
        return;
      }
      c.frames++;
      ALL.frames++;
      c.bytes += len;
      ALL.bytes += len;
      const r = { direction, size: sizeOf(d) };
      if (!text) r.binary = true;
      else {
        r.text = d.length > max ? strSlice(d, 0, max) : d;
        if (d.length > max) r.body_truncated = true;
      }
      rec(c, 'message', r);
    };
    const track = (ws, url) => {
      const c = { id: 'w' + rid + '-' + ++n, frames: 0, bytes: 0, dropped: 0 };
      wmSet(socks, ws, c);
      rec(c, 'connect', { url: clip(StringCtor(url), LIMITS.url) });
      addListener(ws, 'open', () => on() && rec(c, 'open'));
      addListener(ws, 'message', (e) => {
        try {
          frame(c, 'received', dataOf(e));
        } catch {
          // ignore
        }
      });
      addListener(ws, 'error', () => on() && rec(c, 'error'));
      addListener(ws, 'close', (e) => {
        try {
          if (on()) rec(c, 'close', { code: codeOf(e), reason: clip(StringCtor(reasonOf(e)), 200), frames_dropped: c.dropped });
        } catch {
          // ignore
        }
      });
    };
    const hooked = new ProxyCtor(C, {
      construct(target, args, newTarget) {
        const ws = construct(target, args, newTarget);
        try {
          if (on()) track(ws, urlOf(ws));
        } catch {
          // capture must never break the page
        }
        return ws;
      },
    });
    win.WebSocket = hooked;
    if (P.constructor === C) P.constructor = hooked; // WebSocket.prototype.constructor === WebSocket, as before
    if (typeof origSend === 'function') {
      P.send = {
        send(data) {
          const r = apply(origSend, this, arguments);
          try {
            const c = wmGet(socks, this);
            if (c) frame(c, 'sent', data);
          } catch {
            // ignore
          }
          return r;
        },
      }.send;
    }
  };
  const WSL = LEAN ? null : { frames: 500, bytes: 1048576, all: 5000, allBytes: 4194304 }; // websocket bounds (hookWebSockets)

  // NO_VITALS stands in for captureVitals' answer in an iframe and in a lean document.
  const NO_VITALS = { finalizeLCP() {}, sendPendingVitals() {} };

  // Node unit tests only (see the header). A bundle (scripts/bundle defines
  // GASOLINE_LEAN) runs in pages only: the minifier drops the kit there.
  if (typeof GASOLINE_LEAN === 'undefined' && !hasDOM) {
    global.gasolineCaptureKit = {
      LIMITS, clip, utf8Length, fmt, formatArgs, isSecretField, isTextMime, scrub, shortNode, Buffer, hookWebSockets, WSL,
    };
    return;
  }

  // --- the page side ------------------------------------------------------------

  /**
   * install hooks the page (its built-ins saved first, below), in this order:
   * the count of what an agent's action started, the port to the relay,
   * then console, errors, fetch and XHR, WebSockets, history, web vitals and the
   * user's input. Each part records through relay.emit.
   *
   * Web vitals are the page's, measured in its top document only (as the
   * web-vitals library does): their PerformanceObservers were most of what
   * each frame paid, about 6 of the 10 ms of main-thread time an iframe cost
   * (make bench-pages, 20 iframes).
   */
  function install() {
    const work = trackWork();
    const relay = connectRelay(work);
    captureConsole(relay);
    captureErrors(relay);
    captureNetwork(relay, work);
    if (!LEAN) captureWebSockets(relay);
    captureHistory(relay);
    const vitals = !LEAN && isTop(win) ? captureVitals(relay) : NO_VITALS;
    watchInput(relay, vitals);
    flushOnLeave(relay, vitals);
  }

  /** isTop reports whether win is the tab's top window (a window without a readable top counts as one). */
  function isTop(win) {
    try {
      return !win.top || win.top === win;
    } catch {
      return true;
    }
  }

  // The page's built-ins the hooks call later, saved before any page script
  // can replace them: names of this script's scope that every part below reads
  // (not an object's properties, which minifying keeps: 900 bytes each page paid).
  // What only the parts LEAN leaves out read is not saved there (!LEAN && ...).
  const win = global;
  const doc = document;
  const loc = location;
  const ET = EventTarget.prototype;
  const addListener = uncurry(ET.addEventListener);
  const removeListener = uncurry(ET.removeEventListener);
  const dispatch = uncurry(ET.dispatchEvent);
  const setTimeout_ = win.setTimeout.bind(win);
  const clearTimeout_ = win.clearTimeout.bind(win);
  const perf = win.performance;
  const perfNow = perf && perf.now ? perf.now.bind(perf) : now;
  const MessageChannelCtor = win.MessageChannel;
  const MessageEventCtor = win.MessageEvent;
  const portPost = uncurry(MessagePort.prototype.postMessage);
  const messageData = dom(win.MessageEvent, 'data', true); // a page may hook MessageEvent.prototype.data to read the port's messages
  const locHref = dom(win.Location, 'href', true) || (() => StringCtor(loc.href));
  const URLCtor = win.URL;
  const ErrorEventCtor = win.ErrorEvent;
  const Observer = !LEAN && win.PerformanceObserver;
  const ResponseP = win.Response && win.Response.prototype;
  const resHeaders = ResponseP && dom(win.Response, 'headers', true);
  const resStatus = ResponseP && dom(win.Response, 'status', true);
  const resType = ResponseP && dom(win.Response, 'type', true);
  const RequestCtor = win.Request;
  const headersGet = win.Headers && uncurry(win.Headers.prototype.get);
  const headersForEach = win.Headers && uncurry(win.Headers.prototype.forEach);
  const HeadersCtor = win.Headers;
  const X = win.XMLHttpRequest && win.XMLHttpRequest.prototype;
  const xhrStatus = X && dom(win.XMLHttpRequest, 'status', true);
  const xhrGetAllHeaders = X && uncurry(X.getAllResponseHeaders);
  const xhrGetHeader = X && uncurry(X.getResponseHeader);
  const xhrReadyState = X && dom(win.XMLHttpRequest, 'readyState', true);
  const H = win.History && win.History.prototype;
  const isTrusted = dom(win.Event, 'isTrusted', true) || ((e) => e.isTrusted);
  const eventTarget = dom(win.Event, 'target', true) || ((e) => e.target);

  /** trackWork counts the short timers and the requests an agent's action, or the page's load, started (relay flush answers). */
  function trackWork() {
    // While an agent's action runs (the runtime's "acting" signal, below),
    // while the document loads (until just after its load event), inside
    // the callbacks of the timers tracked then, and while a request counted
    // then is in flight or for GRACE_MS after it was read (its .then
    // handlers run), setTimeout
    // calls of at most TRACK_MS are counted until they run or are cleared,
    // so the worker can wait for "a click whose handler throws 200 ms later"
    // or "a page that redirects 50 ms after load" instead of a fixed delay.
    // An action's start forgets what the load started: a page that polls
    // forever holds up its navigate, not every click after it. Otherwise
    // the hook only checks flags.
    const TRACK_MS = 1000;
    const GRACE_MS = 20;
    const LOAD = 1;
    const ACT = 2;
    let arming = false;
    let loading = doc.readyState !== 'complete';
    let loadOver = false; // an action began: what the load started no longer counts
    let ctx = 0; // the origin (LOAD or ACT) of the tracked timer callback running now
    let graceUntil = 0;
    let graceOrigin = 0;
    let adopted = false; // origin() answered from a request: its timer's callback does not count what it sets
    const live = (o) => o === ACT || (o === LOAD && !loadOver);
    const origin = () => {
      adopted = false;
      if (arming) return ACT;
      if (ctx && live(ctx)) return ctx;
      if (loading && !loadOver) return LOAD;
      adopted = true; // a clock ticking meanwhile is counted once, not adopted for good
      if (netBy[ACT] && netBy[ACT] > streamsOf(ACT)) return ACT;
      if (netBy[LOAD] && !loadOver && netBy[LOAD] > streamsOf(LOAD)) return LOAD;
      if (graceUntil && now() < graceUntil && live(graceOrigin)) return graceOrigin;
      adopted = false;
      return 0;
    };
    if (loading) {
      addListener(win, 'load', (e) => {
        if (!isTrusted(e)) return; // the page's own dispatchEvent does not end the load
        setTimeout_(() => {
          loading = false;
        }, 0); // after the page's own load handlers
      }, true);
    }
    // fetch/XHR the page started whose record (with bodies) is not out yet,
    // and those of them an action or the load started (as for timers, above)
    let netInflight = 0;
    const netBy = [0, 0, 0]; // by origin
    // Long-lived requests do not count as work (report, origin): a
    // response of type text/event-stream, a body being read that has had
    // no bytes for STALL_MS, and one still waiting for its answer after
    // WAIT_MS that the action did not start (a long poll the page or its
    // load opened). STALL_MS is the 500 ms of "network idle" in
    // puppeteer and playwright: the chunks of an ordinary body come within
    // milliseconds of each other, a stream's heartbeat seconds apart.
    // WAIT_MS is longer: an API call the load started that answers (or
    // fails) late, after 800 ms say, is what the agent must see, where a
    // long poll waits for tens of seconds. An action's own request waiting
    // for its answer is work until the settle cap: it is what the agent
    // asked for. A request the action did not start to a long poll the
    // worker learned for this origin (capture/polls.js: "METHOD url"
    // without its query, sent with each flush) is a long poll at once.
    const STALL_MS = 500;
    const WAIT_MS = 1200;
    const MAX_STREAMS = 5;
    const netLive = new Map(); // counted info -> its origin
    const started = (info) => {
      info.counted = true;
      info.origin = origin();
      info.last = now();
      mapSet(netLive, info, info.origin);
      netInflight++;
      if (info.origin) netBy[info.origin]++;
    };
    // touch notes bytes of a counted request: its answer began (read), a
    // body chunk came, or it is an event stream (sse).
    const touch = (info, read, sse) => {
      if (!info || !info.counted) return;
      info.last = now();
      if (read) info.read = true;
      if (sse) info.sse = true;
    };
    // (report.polls: the worker's list, set by the relay's flush; no
    // variable of its own, so that the lean build keeps none of it)
    const streaming = (info, t) => info.sse || (info.read ? t - info.last >= STALL_MS : info.origin !== ACT
      && (LEAN || !isArray(report.polls) || arrIndexOf(report.polls, info.method + ' ' + strSlice(info.url, 0, strIndexOf(info.url + '?', '?'))) < 0 ? t - info.last >= WAIT_MS : true));
    // how many of origin o's requests in flight (all: o < 0) are streams
    const streamsOf = (o) => {
      const t = now();
      let k = 0;
      mapForEach(netLive, (oo, info) => {
        if ((o < 0 || oo === o) && streaming(info, t)) k++;
      });
      return k;
    };
    // up to MAX_STREAMS of them, named
    const named = () => {
      const t = now();
      const out = [];
      mapForEach(netLive, (o, info) => {
        if (out.length < MAX_STREAMS && streaming(info, t)) {
          arrPush(out, { method: info.method, url: clip(StringCtor(info.url), 300), kind: info.sse ? 'sse' : info.read ? 'stream' : 'long poll' });
        }
      });
      return out;
    };
    const ended = (info) => {
      if (!info.counted) return;
      info.counted = false;
      mapDelete(netLive, info);
      netInflight = MathMax(0, netInflight - 1);
      const o = info.origin;
      if (!o) return;
      // Counted a moment longer: what the page does with the answer may set a timer.
      graceUntil = now() + GRACE_MS;
      graceOrigin = o;
      setTimeout_(() => {
        netBy[o] = MathMax(0, netBy[o] - 1);
      }, GRACE_MS);
    };
    const tracked = { ids: new Map(), n: 0, due: 0 }; // timer id -> origin; n = ids.size
    const origSetTimeout = win.setTimeout;
    const origClearTimeout = win.clearTimeout;
    const mapSet = uncurry(Map.prototype.set);
    const mapDelete = uncurry(Map.prototype.delete);
    const mapForEach = uncurry(Map.prototype.forEach);
    const untrack = (id) => {
      if (mapDelete(tracked.ids, id)) tracked.n--;
    };
    const forgetLoad = () => {
      if (loadOver) return;
      loadOver = true;
      netBy[LOAD] = 0;
      // Deleting while Map.prototype.forEach walks is safe; an array here
      // would go through the page's Array.prototype setters.
      mapForEach(tracked.ids, (o, id) => {
        if (o === LOAD) untrack(id);
      });
    };
    if (typeof origSetTimeout === 'function') {
      win.setTimeout = {
        setTimeout(fn, ms) {
          const o = typeof fn === 'function' ? origin() : 0;
          if (!o) return apply(origSetTimeout, this, arguments);
          const delay = +ms || 0;
          if (!(delay <= TRACK_MS)) return apply(origSetTimeout, this, arguments);
          const chain = !adopted;
          let id = 0;
          const args = arguments;
          args[0] = function () {
            untrack(id);
            const prev = ctx;
            if (chain) ctx = o;
            try {
              return apply(fn, this, arguments);
            } finally {
              ctx = prev;
            }
          };
          id = apply(origSetTimeout, this, args);
          mapSet(tracked.ids, id, o);
          tracked.n++;
          tracked.due = MathMax(tracked.n > 1 ? tracked.due : 0, now() + delay);
          return id;
        },
      }.setTimeout;
      win.clearTimeout = {
        clearTimeout(id) {
          if (tracked.n) untrack(id);
          return apply(origClearTimeout, this, arguments);
        },
      }.clearTimeout;
    }
    // The runtime's "acting" on/off goes through dialogs.js's private
    // channel: a detached element it offers on window at document_start,
    // before any page script (actions/dialogs.js). This script watches the
    // first offer without taking it and listens on that element, so the
    // signal arrives synchronously, before the action's handlers run, and
    // no page listener hears it.
    const onActing = (e) => {
      try {
        const d = parseJSON(e.detail);
        arming = Boolean(d && d.on);
        if (arming) forgetLoad();
      } catch {
        arming = false;
      }
    };
    const onChannel = (e) => {
      const node = e.relatedTarget;
      if (!node || typeof node.addEventListener !== 'function') return;
      removeListener(win, CHANNEL_EVENT, onChannel, true);
      addListener(node, 'acting', onActing);
    };
    const CHANNEL_EVENT = 'gasoline:channel';
    addListener(win, CHANNEL_EVENT, onChannel, true);

    /** report is the answer to the relay's flush number n: what is still to come. */
    function report(n) {
      const out = { flushed: n, timers: tracked.n, due_ms: tracked.n ? MathMax(0, tracked.due - now()) : 0,
        requests: MathMax(0, netInflight - streamsOf(-1)),
        action_requests: MathMax(0, netBy[ACT] - streamsOf(ACT)) + (loadOver ? 0 : MathMax(0, netBy[LOAD] - streamsOf(LOAD))) };
      const list = netInflight ? named() : [];
      if (list.length) out.streams = list;
      return out;
    }
    return { started, ended, touch, report };
  }

  /** connectRelay buffers records and hands them to the relay over a private port; it applies the settings the relay sends back. */
  function connectRelay(work) {
    // settings the worker sends back through the relay (apitype.CaptureConfig)
    const settings = {
      bodyCap: DEFAULT_BODY_CAP,
      kinds: { log: true, error: true, network: true, action: true, nav: true, vital: true },
    };
    const on = (kind) => settings.kinds[kind] !== false;

    const buffer = new Buffer(LIMITS.buffer);
    let port = null;
    let timer = 0;
    const secretFields = []; // elements whose values must not appear in any record
    const held = []; // the last 40 values they held, which a form's reset leaves secret

    /** hold remembers v, a secret field's value (one typed on grows in place); it throws on no string. */
    function hold(v) {
      const n = held.length - 1;
      if (v.length < 3 || arrIndexOf(held, v) >= 0 || (n >= 0 && strStartsWith(held[n], v))) return;
      if (n >= 0 && strStartsWith(v, held[n])) held[n] = v;
      else if (arrPush(held, v) > 40) arrShift(held);
    }

    function scrubRecord(rec) {
      for (let i = 0; i < secretFields.length; i++) {
        try {
          hold(secretFields[i].value);
        } catch {
          // detached or odd element
        }
      }
      const ks = keys(rec);
      for (let i = 0; i < ks.length; i++) {
        const v = rec[ks[i]];
        if (typeof v === 'string') rec[ks[i]] = scrub(v, held);
      }
    }

    /** emit queues one record; it never throws and never blocks the page. */
    function emit(rec, urgent) {
      try {
        if (secretFields.length) scrubRecord(rec);
        const n = buffer.push(rec);
        if (!port) return;
        if (urgent || n >= LIMITS.flushCount) flush();
        else if (!timer) timer = setTimeout_(flush, LIMITS.flushMs);
      } catch {
        // capture must never break the page
      }
    }

    function flush() {
      if (timer) {
        clearTimeout_(timer);
        timer = 0;
      }
      if (!port) return;
      while (buffer.items.length || buffer.droppedAny) {
        const msg = buffer.take(LIMITS.flushCount);
        try {
          portPost(port, msg);
        } catch {
          // a record that cannot be cloned: drop the message, count it
          for (let i = 0; i < msg.events.length; i++) {
            const k = msg.events[i].kind;
            buffer.dropped[k] = (buffer.dropped[k] || 0) + 1;
            buffer.droppedAny = true;
          }
          if (!msg.events.length) break;
        }
      }
    }

    function onPortMessage(e) {
      const d = messageData(e);
      if (d && typeof d === 'object' && typeof d.flush === 'number') {
        // The relay asks for everything recorded so far (an action's result
        // is about to be reported): send it, then say so and how many short
        // timers an action scheduled are still to run (timers below).
        flush();
        try {
          if (!LEAN) work.report.polls = d.polls;
          portPost(port, work.report(d.flush));
        } catch {
          // the relay is gone
        }
        return;
      }
      if (!d || typeof d !== 'object' || !d.config || typeof d.config !== 'object') return;
      const c = d.config;
      if (typeof c.body_cap === 'number' && NumberIsFinite(c.body_cap) && c.body_cap >= 0) settings.bodyCap = c.body_cap;
      if (c.kinds && typeof c.kinds === 'object') {
        const ks = keys(settings.kinds);
        for (let i = 0; i < ks.length; i++) {
          if (typeof c.kinds[ks[i]] === 'boolean') settings.kinds[ks[i]] = c.kinds[ks[i]];
        }
      }
    }

    function connect() {
      const ch = new MessageChannelCtor();
      const accepted = !dispatch(win, new MessageEventCtor(PORT_EVENT, { ports: [ch.port2], cancelable: true }));
      if (!accepted) return false;
      port = ch.port1;
      port.onmessage = onPortMessage;
      flush();
      return true;
    }

    const PORT_EVENT = 'gasoline:capture-port';
    const HELLO_EVENT = 'gasoline:capture-hello';
    if (!connect()) {
      // The relay has not run yet (Chrome ran this script first): it says
      // hello when it starts, and we answer once.
      const onHello = (e) => {
        if (port) return;
        try {
          e.stopImmediatePropagation();
        } catch {
          // ignore
        }
        if (connect()) removeListener(win, HELLO_EVENT, onHello, true);
      };
      addListener(win, HELLO_EVENT, onHello, true);
    }
    /** remember makes el a secret field (the last 20) and holds its value. */
    function remember(el) {
      hold(el.value);
      if (arrIndexOf(secretFields, el) >= 0) return;
      if (secretFields.length >= 20) arrShift(secretFields);
      arrPush(secretFields, el);
    }

    return { emit, flush, on, settings, remember };
  }

  // callerSource is the first frame of stack that is not this file: "url:line:col".
  function callerSource(stack) {
    const lines = strSplit(stack, '\n');
    for (let i = 1; i < lines.length; i++) {
      const l = lines[i];
      if (strIndexOf(l, SCRIPT_NAME) >= 0) continue;
      const m = /\(?((?:[a-z-]+:\/\/|\/)[^\s()]*?:\d+:\d+)\)?\s*$/i.exec(l);
      if (m) return clip(m[1], LIMITS.url);
    }
    return undefined;
  }

  /** captureConsole records the console's calls (and still makes them). */
  function captureConsole(relay) {
    const { emit, on } = relay;
    const con = win.console;
    let busy = false; // a page getter that logs while we serialise must not recurse

    function hookConsole(method, level) {
      const orig = con[method];
      if (typeof orig !== 'function') return;
      const wantStack = level === 'warn' || level === 'error' || method === 'trace';
      const hooked = {
        [method](...args) {
          if (!busy && on('log')) {
            busy = true;
            try {
              let a = args;
              if (method === 'assert') {
                if (args[0]) a = null;
                else {
                  a = ['Assertion failed:'];
                  for (let i = 1; i < args.length; i++) a[i] = args[i];
                }
              }
              if (a) {
                const f = formatArgs(a);
                const rec = { kind: 'log', ts: now(), level, message: f.message };
                if (wantStack) {
                  const st = new ErrorCtor().stack;
                  if (typeof st === 'string') {
                    const src = callerSource(st);
                    if (src) rec.source = src;
                    if (!f.stack) f.stack = clip(strReplace(st, /^Error\n/, ''), LIMITS.stack);
                  }
                }
                if (f.stack) rec.stack = f.stack;
                emit(rec);
              }
            } catch {
              // never let capture break a console call
            } finally {
              busy = false;
            }
          }
          return apply(orig, this, args);
        },
      }[method];
      try {
        con[method] = hooked;
      } catch {
        // a frozen console
      }
    }
    hookConsole('debug', 'debug');
    hookConsole('info', 'info');
    hookConsole('log', 'log');
    hookConsole('warn', 'warn');
    hookConsole('error', 'error');
    hookConsole('trace', 'log');
    hookConsole('assert', 'error');
    hookConsole('dir', 'log');
    hookConsole('table', 'log');
  }

  /** captureErrors records uncaught errors, unhandled rejections and failed resource loads. */
  function captureErrors(relay) {
    const { emit, on } = relay;
    const RESOURCE_TAGS = { img: 'src', script: 'src', link: 'href', video: 'src', audio: 'src', source: 'src', iframe: 'src', embed: 'src', object: 'data', track: 'src', input: 'src' };
    addListener(win, 'error', (e) => {
      try {
        if (!on('error')) return;
        if (ErrorEventCtor && e instanceof ErrorEventCtor) {
          const rec = { kind: 'error', ts: now(), type: 'uncaught', message: clip(StringCtor(e.message || 'Uncaught error'), LIMITS.message) };
          const err = e.error;
          if (err && typeof err === 'object') {
            const st = errorStack(err);
            if (st) rec.stack = st;
          }
          if (e.filename) rec.source = clip(StringCtor(e.filename), LIMITS.url);
          if (e.lineno) rec.line = e.lineno;
          if (e.colno) rec.column = e.colno;
          emit(rec);
          return;
        }
        const t = eventTarget(e);
        if (!isElement(t)) return;
        const tag = strLower(localNameOf(t));
        const attr = RESOURCE_TAGS[tag];
        if (!attr || !hasOwn(RESOURCE_TAGS, tag)) return;
        let url = '';
        try {
          url = StringCtor(t.currentSrc || t[attr] || getAttr(t, attr) || '');
        } catch {
          url = '';
        }
        emit({
          kind: 'error', ts: now(), type: 'resource', element: tag, resource_url: clip(url, LIMITS.url),
          message: clip('failed to load <' + tag + '> ' + url, LIMITS.message),
        });
      } catch {
        // ignore
      }
    }, true);

    addListener(win, 'unhandledrejection', (e) => {
      try {
        if (!on('error')) return;
        const reason = e.reason;
        const rec = { kind: 'error', ts: now(), type: 'unhandled_rejection', message: '' };
        if (reason && typeof reason === 'object' && isErrorLike(reason)) {
          rec.message = clip(errorText(reason), LIMITS.message);
          const st = errorStack(reason);
          if (st) {
            rec.stack = st;
            const src = callerSource('\n' + st);
            if (src) rec.source = src;
          }
        } else {
          rec.message = clip(typeof reason === 'string' ? reason : formatArgs([reason]).message, LIMITS.message);
        }
        emit(rec);
      } catch {
        // ignore
      }
    }, true);
  }

  /** round is ms to a tenth, never negative. */
  function round(ms) {
    return MathMax(0, MathRound(ms * 10) / 10);
  }

  /** cappedText is a body's text cut to cap characters: {text, size, truncated?}, size in UTF-8 bytes. */
  function cappedText(s, cap) {
    return s.length > cap ? { text: strSlice(s, 0, cap), size: utf8Length(s), truncated: true } : { text: s, size: utf8Length(s) };
  }

  /**
   * captureNetwork records fetch and XHR requests with their capped bodies:
   * every request's at work; lean, a failed request's only (status 400 or
   * more, or no response), so what a bug report needs is kept from a page
   * the user loaded before an agent came, at the cost of a reference per
   * request (a Request's clone for a fetch of a Request with a body) and of
   * reading bodies only when a request failed.
   */
  function captureNetwork(relay, work) {
    const bodies = bodyReaders();
    const net = networkRecorder(relay, work, bodies);
    hookFetch(relay, work, net, bodies);
    hookXHR(relay, work, net);
  }

  /** networkRecorder is what the fetch and XHR hooks share: ids, URLs, headers, request bodies, records. */
  function networkRecorder(relay, work, bodies) {
    const { emit } = relay;
    const { ended } = work;
    const random = strSlice(StringCtor(MathRandom()), 2, 10);
    let seq = 0;

    function absolute(u) {
      try {
        return clip(new URLCtor(StringCtor(u), locHref(loc)).href, LIMITS.url);
      } catch {
        return clip(StringCtor(u), LIMITS.url);
      }
    }

    function crossOrigin(u) {
      try {
        return new URLCtor(u).origin !== loc.origin;
      } catch {
        return false;
      }
    }

    function nextId(prefix) {
      seq++;
      return prefix + random + '-' + seq;
    }

    function headerObject(h) {
      const out = {};
      let n = 0;
      try {
        headersForEach(h, (v, k) => {
          if (n++ < LIMITS.headers) out[k] = clip(StringCtor(v), 2000);
        });
      } catch {
        // not iterable
      }
      return n ? out : undefined;
    }

    function plainHeaders(h) {
      if (!h) return undefined;
      try {
        if (HeadersCtor && h instanceof HeadersCtor) return headerObject(h);
        if (isArray(h)) {
          const out = {};
          for (let i = 0; i < h.length && i < LIMITS.headers; i++) out[StringCtor(h[i][0])] = clip(StringCtor(h[i][1]), 2000);
          return out;
        }
        if (typeof h === 'object') {
          const out = {};
          const ks = keys(h);
          for (let i = 0; i < ks.length && i < LIMITS.headers; i++) out[ks[i]] = clip(StringCtor(h[ks[i]]), 2000);
          return out;
        }
      } catch {
        // ignore
      }
      return undefined;
    }

    function failure(e, url) {
      try {
        if (e && e.name === 'AbortError') return 'aborted';
      } catch {
        // ignore
      }
      return crossOrigin(url) ? 'cors' : 'net::ERR_FAILED';
    }

    function record(info, type) {
      const rec = { kind: 'network', ts: info.ts, request_id: info.id, source: 'page', method: info.method, url: info.url, status: 0, resource_type: type };
      if (LEAN) rec.lean = true; // bodies of failures only: the document loaded while no agent was at work
      if (info.headers) rec.request_headers = info.headers;
      return rec;
    }

    // readRequest reads, when read is true, the request body the page
    // passed (info.rb) or a clone of its Request (info.rq) into info.body
    // or info.bodyPromise, capped, and lets go of them (an XHR's info lives
    // as long as the object): at send at work; lean, once the request ended
    // (finish), read only if it failed, so a page's FormData changed in
    // between is read as it is then.
    function readRequest(info, read) {
      if (read) {
        if (info.rq) info.bodyPromise = bodies.requestText(info.rq, info.cap);
        else info.body = bodies.requestBody(info.rb, info.cap);
      }
      info.rq = info.rb = null;
    }

    // finish records a request. When a body is still being read (reading
    // is true: a fetch response's stream, a Request's body), the record goes
    // now with body_pending and a second one with body_update and the same
    // request_id brings the bodies; the daemon merges them.
    function finish(rec, info, responseBody, reading) {
      if (LEAN) readRequest(info, rec.error || rec.status >= 400);
      const req = info.bodyPromise || PromiseCtor.resolve(info.body || {});
      let out = rec;
      if (reading || info.bodyPromise) {
        out = {}; // the whole record again, with the bodies
        const ks = keys(rec);
        for (let i = 0; i < ks.length; i++) out[ks[i]] = rec[ks[i]];
        out.body_update = true;
        rec.body_pending = true;
        emit(rec);
      }
      const done = (q, r) => {
        if (q.text !== undefined) out.request_body = q.text;
        if (q.size !== undefined) out.request_body_size = q.size;
        if (r.text !== undefined) out.response_body = r.text;
        if (r.size !== undefined) out.response_body_size = r.size;
        if (q.truncated || r.truncated) out.body_truncated = true;
        ended(info);
        emit(out, out !== rec);
      };
      promiseThen(req, (q) => promiseThen(responseBody, (r) => done(q, r), () => done(q, {})), () => done({}, {}));
    }

    return { absolute, nextId, headerObject, plainHeaders, failure, record, readRequest, finish };
  }

  /**
   * bodyReaders reads request and response bodies, capped, with the
   * built-ins it saves when called (install, before any page script).
   */
  function bodyReaders() {
    const TextDecoderCtor = win.TextDecoder;
    const decode = TextDecoderCtor && uncurry(TextDecoderCtor.prototype.decode);
    const resClone = ResponseP && uncurry(ResponseP.clone);
    const resBody = dom(win.Response, 'body', true);
    const reqClone = RequestCtor && uncurry(RequestCtor.prototype.clone);
    const reqText = RequestCtor && uncurry(RequestCtor.prototype.text);
    const readerOf = win.ReadableStream && uncurry(win.ReadableStream.prototype.getReader);
    const ReaderP = win.ReadableStreamDefaultReader && win.ReadableStreamDefaultReader.prototype;
    const readerRead = ReaderP && uncurry(ReaderP.read);
    const readerCancel = ReaderP && uncurry(ReaderP.cancel);
    const URLSearchParamsCtor = win.URLSearchParams;
    const FormDataCtor = win.FormData;
    const BlobCtor = win.Blob;
    const fdForEach = FormDataCtor && uncurry(FormDataCtor.prototype.forEach);
    const uspToString = URLSearchParamsCtor && uncurry(URLSearchParamsCtor.prototype.toString);
    const blobSize = BlobCtor && dom(BlobCtor, 'size', true);

    /** requestBody returns {text?, size?, truncated?} for a request body the page passed. */
    function requestBody(body, cap) {
      try {
        if (body == null) return {};
        let s;
        if (typeof body === 'string') s = body;
        else if (URLSearchParamsCtor && body instanceof URLSearchParamsCtor) s = uspToString(body);
        else if (FormDataCtor && body instanceof FormDataCtor) {
          const parts = [];
          fdForEach(body, (v, k) => {
            arrPush(parts, encodeURIComponent(k) + '=' + (typeof v === 'string' ? encodeURIComponent(v) : '[File ' + encodeURIComponent(v.name) + ']'));
          });
          s = arrJoin(parts, '&');
        } else if (BlobCtor && body instanceof BlobCtor) return { size: blobSize(body) };
        else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return { size: body.byteLength };
        else return {};
        return cappedText(s, cap);
      } catch {
        return {};
      }
    }

    // responseBody reads at most cap characters of a clone of the response
    // res, calling chunk at each piece read, then cancels the clone; the
    // page's own response is untouched.
    function responseBody(res, cap, chunk) {
      const body = resBody(resClone(res));
      if (!body || !readerOf || !decode) return PromiseCtor.resolve({});
      const reader = readerOf(body);
      const dec = new TextDecoderCtor();
      let text = '';
      let bytes = 0;
      const step = () => promiseThen(readerRead(reader), (r) => {
        if (r.done) {
          text += decode(dec);
          return text.length > cap ? { text: strSlice(text, 0, cap), size: bytes, truncated: true } : { text, size: bytes };
        }
        bytes += r.value.byteLength;
        if (chunk) chunk();
        text += decode(dec, r.value, { stream: true });
        if (text.length > cap) {
          promiseThen(readerCancel(reader), undefined, () => {});
          return { text: strSlice(text, 0, cap), truncated: true };
        }
        return step();
      });
      return step();
    }

    return {
      requestBody, responseBody,
      cloneRequest: reqClone,
      /** requestText resolves to {text, size, truncated?} of a Request's body (a clone the fetch did not consume), or {}. */
      requestText: (req, cap) => promiseThen(reqText(req), (s) => cappedText(s, cap), () => ({})),
    };
  }

  /** hookFetch wraps fetch; bodies are read from clones. */
  function hookFetch(relay, work, net, bodies) {
    const { on, settings } = relay;
    const { started, touch } = work;
    const origFetch = win.fetch;
    if (typeof origFetch !== 'function') return;
    win.fetch = {
      fetch(input, init) {
        let info = null;
        if (on('network')) {
          try {
            info = fetchInfo(input, init);
            started(info);
          } catch {
            info = null;
          }
        }
        const p = apply(origFetch, this, arguments);
        if (!info) return p;
        // The page gets a promise that settles as p does, right after our
        // handler cloned the response; a failure the page does not catch
        // is still its unhandled rejection.
        return promiseThen(p, (res) => {
          try {
            fetchDone(res, info);
          } catch {
            // ignore
          }
          return res;
        }, (e) => {
          try {
            fetchFailed(e, info);
          } catch {
            // ignore
          }
          throw e;
        });
      },
    }.fetch;

    function fetchInfo(input, init) {
      const isReq = RequestCtor && input instanceof RequestCtor;
      const method = strUpper(StringCtor((init && init.method) || (isReq ? input.method : 'GET')));
      const url = net.absolute(isReq ? input.url : input);
      const info = { id: net.nextId('f'), method, url, ts: now(), t0: perfNow(), cap: settings.bodyCap };
      info.headers = net.plainHeaders(init && init.headers) || (isReq ? net.headerObject(input.headers) : undefined);
      if (init && init.body != null) info.rb = init.body;
      else if (isReq && input.body) info.rq = bodies.cloneRequest(input); // fetch consumes the page's request: a clone made first
      if (!LEAN) net.readRequest(info, 1);
      return info;
    }

    function fetchDone(res, info) {
      const rec = net.record(info, 'fetch');
      rec.duration_ms = round(perfNow() - info.t0);
      let mime;
      try {
        rec.status = resStatus(res);
        const h = resHeaders(res);
        mime = headersGet(h, 'content-type') || undefined;
        if (mime) rec.mime_type = clip(mime, 200);
        rec.response_headers = net.headerObject(h);
        if (resType(res) === 'opaque') rec.status = 0;
      } catch {
        // ignore
      }
      let read = PromiseCtor.resolve({});
      let reading = false;
      touch(info, true, typeof mime === 'string' && strIndexOf(strLower(mime), 'text/event-stream') >= 0);
      if ((!LEAN || rec.status >= 400) && isTextMime(mime) && info.cap > 0) {
        try {
          read = bodies.responseBody(res, info.cap, () => touch(info, true));
          reading = true;
        } catch {
          read = PromiseCtor.resolve({});
        }
      }
      net.finish(rec, info, read, reading);
    }

    function fetchFailed(e, info) {
      const rec = net.record(info, 'fetch');
      rec.status = 0;
      rec.error = net.failure(e, info.url);
      rec.duration_ms = round(perfNow() - info.t0);
      net.finish(rec, info, PromiseCtor.resolve({}));
    }
  }

  // hookXHR wraps XMLHttpRequest: a request is recorded when the object
  // reaches DONE (readystatechange, before load/error/abort/loadend), or
  // when the page opens it again first (from its own DONE handler).
  function hookXHR(relay, work, net) {
    const { on, settings } = relay;
    const { started, ended, touch } = work;
    if (!X) return;
    const xhrResponseType = dom(win.XMLHttpRequest, 'responseType', true);
    const xhrResponseText = dom(win.XMLHttpRequest, 'responseText', true);
    const xhrResponse = dom(win.XMLHttpRequest, 'response', true);
    const xhrs = new WeakMapCtor(); // xhr -> the request it is sending (replaced at each open)
    const listening = new WeakMapCtor(); // xhr -> true once our listener is on it
    const xOpen = X.open;
    const xSend = X.send;
    const xAbort = X.abort;
    const xSetHeader = X.setRequestHeader;
    const recordDone = (xhr) => {
      const cur = wmGet(xhrs, xhr);
      if (!cur || !cur.id || cur.done || xhrReadyState(xhr) !== 4) return;
      cur.done = true;
      try {
        xhrDone(xhr, cur);
      } catch {
        // ignore
      }
    };
    X.open = {
      open(method, url) {
        try {
          recordDone(this);
          const prev = wmGet(xhrs, this);
          if (prev && !prev.done) ended(prev); // opened again before it finished: abandoned
          wmSet(xhrs, this, { method: strUpper(StringCtor(method)), url: net.absolute(url) });
        } catch {
          // ignore
        }
        return apply(xOpen, this, arguments);
      },
    }.open;
    X.abort = {
      abort() {
        try {
          const cur = wmGet(xhrs, this);
          if (cur) cur.aborted = true;
        } catch {
          // ignore
        }
        return apply(xAbort, this, arguments);
      },
    }.abort;
    X.setRequestHeader = {
      setRequestHeader(name, value) {
        try {
          const info = wmGet(xhrs, this);
          if (info) {
            if (!info.headers) info.headers = {};
            if (keys(info.headers).length < LIMITS.headers) info.headers[StringCtor(name)] = clip(StringCtor(value), 2000);
          }
        } catch {
          // ignore
        }
        return apply(xSetHeader, this, arguments);
      },
    }.setRequestHeader;
    X.send = {
      send(body) {
        try {
          const info = wmGet(xhrs, this);
          if (info && on('network')) {
            if (!info.counted) started(info);
            info.id = net.nextId('x');
            info.ts = now();
            info.t0 = perfNow();
            info.cap = settings.bodyCap;
            info.rb = body;
            if (!LEAN) net.readRequest(info, 1);
            const xhr = this;
            if (!wmGet(listening, xhr)) {
              // One listener per object, however often it is reused: it
              // reads the request the object is sending now.
              wmSet(listening, xhr, true);
              addListener(xhr, 'readystatechange', () => {
                if (xhrReadyState(xhr) >= 2) touch(wmGet(xhrs, xhr), true, false); // an answer came, or more of its body
                recordDone(xhr);
              });
            }
          }
        } catch {
          // ignore
        }
        return apply(xSend, this, arguments);
      },
    }.send;

    function parseRawHeaders(raw) {
      if (!raw) return undefined;
      const out = {};
      const lines = strSplit(raw, '\r\n');
      let n = 0;
      for (let i = 0; i < lines.length && n < LIMITS.headers; i++) {
        const c = strIndexOf(lines[i], ':');
        if (c > 0) {
          out[strTrim(strSlice(lines[i], 0, c))] = clip(strTrim(strSlice(lines[i], c + 1)), 2000);
          n++;
        }
      }
      return n ? out : undefined;
    }

    function xhrDone(xhr, info) {
      const rec = net.record(info, 'xhr');
      rec.duration_ms = round(perfNow() - info.t0);
      rec.status = xhrStatus(xhr);
      let resp = {};
      if (rec.status === 0) {
        rec.error = info.aborted ? 'aborted' : net.failure(null, info.url);
      } else {
        const mime = xhrGetHeader(xhr, 'content-type');
        if (mime) rec.mime_type = clip(mime, 200);
        rec.response_headers = parseRawHeaders(xhrGetAllHeaders(xhr));
        const rt = xhrResponseType(xhr);
        if ((!LEAN || rec.status >= 400) && info.cap > 0 && isTextMime(mime || 'text/plain')) {
          let s;
          if (rt === '' || rt === 'text') s = xhrResponseText(xhr);
          else if (rt === 'json') {
            try {
              s = stringify(xhrResponse(xhr));
            } catch {
              s = undefined;
            }
          }
          if (typeof s === 'string') resp = cappedText(s, info.cap);
        }
      }
      net.finish(rec, info, PromiseCtor.resolve(resp));
    }
  }

  /** captureWebSockets records the page's WebSocket connections and frames (hookWebSockets). */
  const captureWebSockets = LEAN ? null : function captureWebSockets(relay) {
    const { emit, on, settings } = relay;
    hookWebSockets(win, emit, () => on('network'), () => settings.bodyCap, addListener);
  };

  /** captureHistory records the page load and same-document navigations. */
  function captureHistory(relay) {
    const { emit, on } = relay;
    let lastHref = locHref(loc);
    function navigated(type) {
      if (!on('nav')) {
        lastHref = locHref(loc);
        return;
      }
      const to = locHref(loc);
      const rec = { kind: 'nav', ts: now(), type, to: clip(to, LIMITS.url) };
      if (lastHref !== to || type === 'popstate') rec.from = clip(lastHref, LIMITS.url);
      lastHref = to;
      emit(rec);
    }
    if (H) {
      for (const name of ['pushState', 'replaceState']) {
        const orig = H[name];
        if (typeof orig !== 'function') continue;
        H[name] = {
          [name]() {
            const r = apply(orig, this, arguments);
            try {
              navigated(name);
            } catch {
              // ignore
            }
            return r;
          },
        }[name];
      }
    }
    addListener(win, 'popstate', () => navigated('popstate'), true);
    addListener(win, 'hashchange', () => navigated('hashchange'), true);
    // A web or file subframe's load is recorded by the worker from
    // webNavigation.onCommitted (capture/worker.js): sent from here it would
    // cost every such frame a message to the worker before it has anything
    // else to say. The top document's (with its referrer) and those of
    // frames without a URL of their own (about:blank, data:, blob:, which
    // webNavigation may not report) are sent from here.
    if (!isTop(win) && /^(https?|file):/i.test(lastHref)) return;
    {
      const rec = { kind: 'nav', ts: now(), type: 'load', to: clip(lastHref, LIMITS.url) };
      try {
        if (doc.referrer) rec.from = clip(doc.referrer, LIMITS.url);
      } catch {
        // ignore
      }
      if (LEAN) rec.lean = true;
      if (on('nav')) emit(rec);
    }
  }

  /** captureVitals records web vitals (LCP, CLS, INP, FCP, TTFB, long tasks). */
  const captureVitals = LEAN ? null : function captureVitals(relay) {
    const { emit, on } = relay;
    // A metric that keeps improving (LCP candidates, CLS, INP) is sent once
    // it has been stable for a second, and whatever is pending when the page
    // is hidden or left.
    const pendingVitals = {}; // name -> {value, unit, timer}
    function vital(name, value, unit, delay) {
      if (!NumberIsFinite(value) || !on('vital')) return;
      let p = pendingVitals[name];
      if (!p) p = pendingVitals[name] = { value, unit, timer: 0 };
      p.value = value;
      if (p.timer) clearTimeout_(p.timer);
      p.timer = delay ? setTimeout_(() => sendVital(name), delay) : 0;
      if (!delay) sendVital(name);
    }
    function sendVital(name) {
      const p = pendingVitals[name];
      if (!p) return;
      if (p.timer) clearTimeout_(p.timer);
      pendingVitals[name] = undefined;
      const value = p.unit === 'score' ? MathRound(p.value * 10000) / 10000 : round(p.value);
      emit({ kind: 'vital', ts: now(), name, value, unit: p.unit });
    }
    function sendPendingVitals() {
      const ks = keys(pendingVitals);
      for (let i = 0; i < ks.length; i++) sendVital(ks[i]);
    }
    function observe(type, cb, extra) {
      if (!Observer) return;
      try {
        const o = new Observer((list) => {
          try {
            const entries = list.getEntries();
            for (let i = 0; i < entries.length; i++) cb(entries[i]);
          } catch {
            // ignore
          }
        });
        const opts = { type, buffered: true };
        if (extra) {
          const ks = keys(extra);
          for (let i = 0; i < ks.length; i++) opts[ks[i]] = extra[ks[i]];
        }
        o.observe(opts);
      } catch {
        // entry type not supported here
      }
    }
    // LCP stops at the first user input (the web-vitals definition).
    let lcpFinal = false;
    function finalizeLCP() {
      if (lcpFinal) return;
      lcpFinal = true;
      sendVital('LCP');
    }
    let clsSession = 0;
    let clsSessionStart = 0;
    let clsLast = 0;
    let cls = 0;
    let inp = 0;
    observe('paint', (e) => {
      if (e.name === 'first-contentful-paint') vital('FCP', e.startTime, 'ms');
    });
    let ttfbSent = false; // Chrome reports the navigation entry again when the load ends
    observe('navigation', (e) => {
      if (e.responseStart > 0 && !ttfbSent) {
        ttfbSent = true;
        vital('TTFB', e.responseStart, 'ms');
      }
    });
    observe('largest-contentful-paint', (e) => {
      if (!lcpFinal) vital('LCP', e.renderTime || e.loadTime || e.startTime, 'ms', 1000);
    });
    observe('layout-shift', (e) => {
      if (e.hadRecentInput) return;
      // CLS is the largest session window: shifts < 1 s apart, window < 5 s.
      if (clsSession && e.startTime - clsLast < 1000 && e.startTime - clsSessionStart < 5000) {
        clsSession += e.value;
      } else {
        clsSession = e.value;
        clsSessionStart = e.startTime;
      }
      clsLast = e.startTime;
      if (clsSession > cls) {
        cls = clsSession;
        vital('CLS', cls, 'score', 1000);
      }
    });
    // INP here is the slowest interaction so far (exact for pages with
    // fewer than 50 interactions).
    observe('event', (e) => {
      if (e.interactionId && e.duration > inp) {
        inp = e.duration;
        vital('INP', inp, 'ms', 1000);
      }
    }, { durationThreshold: 40 });
    observe('longtask', (e) => {
      if (on('vital')) emit({ kind: 'vital', ts: now(), name: 'longtask', value: round(e.duration), unit: 'ms' });
    });
    return { finalizeLCP, sendPendingVitals };
  };

  /** watchInput remembers secret fields typed or set into, and their values, and ends LCP at the first input. */
  function watchInput(relay, vitals) {
    const { remember } = relay;
    const { finalizeLCP } = vitals;
    // capture/record.js records the user's actions (ISOLATED world); this
    // world only remembers the secret fields typed into (trusted or not:
    // the agent's fill) and every value they held, to cut them out of
    // console and network records, and ends LCP at the first input.
    const onInput = (type) => (e) => {
      try {
        if (type === 'input' || type === 'change') {
          const el = eventTarget(e);
          if (isSecretField(el)) remember(el);
          if (type === 'input') return;
        }
        if (!isTrusted(e)) return;
        if (type === 'keydown' && ((e.key !== 'Enter' && e.key !== 'Escape' && e.key !== 'Tab') || e.isComposing)) return;
        finalizeLCP();
      } catch {
        // ignore
      }
    };
    for (const type of ['click', 'dblclick', 'input', 'change', 'submit', 'keydown']) {
      addListener(win, type, onInput(type), { capture: true, passive: true });
    }
  }

  /** flushOnLeave sends what is pending when the page is hidden or left. */
  function flushOnLeave(relay, vitals) {
    const { flush } = relay;
    const { finalizeLCP, sendPendingVitals } = vitals;
    addListener(win, 'pagehide', () => {
      try {
        finalizeLCP();
        sendPendingVitals();
        flush();
      } catch {
        // ignore
      }
    }, true);
    addListener(doc, 'visibilitychange', () => {
      try {
        if (doc.visibilityState !== 'hidden') return;
        sendPendingVitals();
        flush();
      } catch {
        // ignore
      }
    }, true);
  }

  // Last: the parts LEAN leaves out are constants (null when lean), set only by now.
  install();
})(globalThis);
//# sourceURL=gasoline-capture.js
