// Saves, before any page script runs, the built-ins execute_js reads a result
// with, so a page that later replaces JSON.stringify, Map, Object.keys, the
// AsyncFunction constructor or Promise.prototype.then cannot change what the
// agent is told about its script, and runs the agent's scripts with them.
//
// A MAIN-world content script at document_start (registered by the worker,
// capture/declared.js), working in the top document only (in an iframe,
// which gets it while an agent works, it returns at once: execute_js never
// runs there); a classic script, so no imports. It leaves nothing on the page's
// global: the built-ins stay in this closure, and the only way in is a
// private MessageChannel port handed to the ISOLATED-world relay
// (pristine-relay.js), which Chrome runs first (registration order).
//
// Handshake: this script creates the channel and dispatches one synchronous,
// cancelable MessageEvent "gasoline:pristine-port" carrying port2 on window;
// the relay takes the first port it is given, cancels the event (read here
// as "accepted") and stops listening. Both happen before the page has run a
// line, so the page can neither see the event nor reach the port. When no
// relay took it (none in this world), the port is dropped and nothing is
// left behind.
//
// Requests (relay -> here): [id, runner, body, expr, maxChars, late], where
// runner is the source of page.js's pageRun. It is compiled here with the
// saved Function constructor (once per source) and called with the saved
// built-ins; the answer goes back as [id, answer]. Data is read with saved
// getters and sent with the saved postMessage, so a page that hooks
// MessageEvent.prototype.data, MessagePort.prototype.postMessage,
// addEventListener or Object.defineProperty sees neither the script nor its
// result.
//
// In a document that was loaded before the extension started, the worker
// injects the relay and this file late and tells the relay so (markLate):
// the built-ins are then the page's own at that moment, and execute_js
// results say so.
//
// In the USER_SCRIPT world (userscripts/execute.js), which the page cannot
// script, the code run before this file defines gasolineUserWorld on that
// world's global; the built-ins are saved there (the first time only) for
// the code run after it, and no port is made. Under node (no document) the
// built-ins and the request handler are exposed as gasolinePristineKit for
// the unit tests; a page cannot reach that branch because window.document
// is unforgeable.
(function gasolinePristine(g) {
  'use strict';
  const O = Object;
  // execute_js runs in the top document only: an iframe saves nothing.
  if (typeof document !== 'undefined' && g.top && g.top !== g && !O.getOwnPropertyDescriptor(g, 'gasolineUserWorld')) return;
  const proto = O.getPrototypeOf;
  const apply = Reflect.apply;
  const getter = (ctor, name) => {
    const d = ctor && ctor.prototype && O.getOwnPropertyDescriptor(ctor.prototype, name);
    return (d && d.get) || null;
  };
  const method = (ctor, name) => (ctor && ctor.prototype && ctor.prototype[name]) || null;
  const mapEntries = Map.prototype.entries;
  const setValues = Set.prototype.values;

  const B = {
    __proto__: null,
    global: g,
    apply,
    defineProperty: Reflect.defineProperty,
    keys: O.keys,
    hasOwn: O.hasOwn,
    getOwnPropertyDescriptor: O.getOwnPropertyDescriptor,
    getPrototypeOf: proto,
    isArray: Array.isArray,
    objectProto: O.prototype,
    arrayProto: Array.prototype,
    AsyncFunction: proto(async function () {}).constructor,
    Promise,
    then: Promise.prototype.then,
    errorProto: Error.prototype,
    Error,
    prepareStackTrace: O.getOwnPropertyDescriptor(Error, 'prepareStackTrace')?.value, // the runtime's own (node has one), not a page's
    // prototypes where only a page would put a getter for an error's name,
    // message or stack
    builtinProtos: O.freeze([O.prototype, Error.prototype, TypeError.prototype, RangeError.prototype, SyntaxError.prototype,
      ReferenceError.prototype, EvalError.prototype, URIError.prototype]),
    syntaxErrorProto: SyntaxError.prototype,
    evalErrorProto: EvalError.prototype,
    isError: typeof Error.isError === 'function' ? Error.isError : null,
    slice: String.prototype.slice,
    charCodeAt: String.prototype.charCodeAt,
    mapSize: getter(Map, 'size'),
    mapEntries,
    mapIterNext: proto(apply(mapEntries, new Map(), [])).next,
    setSize: getter(Set, 'size'),
    setValues,
    setIterNext: proto(apply(setValues, new Set(), [])).next,
    typedArrayLength: getter(proto(Uint8Array), 'length'),
    dateGetTime: Date.prototype.getTime,
    dateToISOString: Date.prototype.toISOString,
    // DOM (absent outside a page).
    nodeType: getter(g.Node, 'nodeType'),
    nodeName: getter(g.Node, 'nodeName'),
    textContent: getter(g.Node, 'textContent'),
    localName: getter(g.Element, 'localName'),
    elementId: getter(g.Element, 'id'),
    className: getter(g.Element, 'className'),
    getAttribute: method(g.Element, 'getAttribute'),
    characterData: getter(g.CharacterData, 'data'),
    documentURL: getter(g.Document, 'URL'),
    nodeListLength: getter(g.NodeList, 'length'),
    nodeListItem: method(g.NodeList, 'item'),
    collectionLength: getter(g.HTMLCollection, 'length'),
    collectionItem: method(g.HTMLCollection, 'item'),
    locationHref: g.location ? O.getOwnPropertyDescriptor(g.location, 'href')?.get ?? null : null,
    location: g.location ?? null,
  };
  O.freeze(B);

  // --- running a request -------------------------------------------------------
  const Fn = Function;
  const isArray = Array.isArray;
  const hasOwn = O.hasOwn;
  const then = Promise.prototype.then;
  let runnerSource = null;
  let runner = null;
  // compile returns the function runner is the source of, compiled once.
  const compile = (source) => {
    if (source !== runnerSource) {
      runner = apply(new Fn('"use strict"; return (' + source + '\n);'), undefined, []);
      runnerSource = source;
    }
    return runner;
  };
  // refused is the answer when the runner itself cannot be compiled: the
  // page's CSP or Trusted Types forbid eval (the worker then runs the
  // script in the USER_SCRIPT world).
  const refused = (err, late) => {
    let message = '';
    try {
      message = err !== null && typeof err === 'object' && hasOwn(err, 'message') ? '' + err.message : '' + err;
    } catch {
      message = 'an unreadable error';
    }
    let p = null;
    try {
      p = proto(err);
    } catch {
      p = null;
    }
    const cls = p === B.evalErrorProto ? 'eval' : 'other';
    return { __proto__: null, ok: false, kind: 'compile', cls, name: cls === 'eval' ? 'EvalError' : 'Error', message, builtins: late ? 'page' : 'pristine' };
  };
  // handle runs one request, d, and calls answer with the result once.
  const handle = (d, answer) => {
    if (!isArray(d) || d.length !== 6 || typeof d[1] !== 'string') return;
    const late = d[5] === true;
    let out;
    try {
      out = apply(compile(d[1]), undefined, [B, d[2], d[3], d[4], late]);
    } catch (err) {
      return answer(refused(err, late));
    }
    let native = false;
    try {
      apply(then, out, [answer, () => answer(null)]); // a native promise (a brand check that also subscribes)
      native = true;
    } catch {
      native = false;
    }
    if (!native) answer(out);
  };

  const user = O.getOwnPropertyDescriptor(g, 'gasolineUserWorld');
  if (user && user.value !== null && typeof user.value === 'object') {
    if (!hasOwn(user.value, 'builtins')) Reflect.defineProperty(user.value, 'builtins', { value: B });
    return;
  }
  if (typeof document === 'undefined') {
    g.gasolinePristineKit = { builtins: B, handle }; // node unit tests only
    return;
  }

  // --- the private channel -------------------------------------------------------
  const data = getter(g.MessageEvent, 'data');
  const post = method(g.MessagePort, 'postMessage');
  const dispatch = method(g.EventTarget, 'dispatchEvent');
  const ch = new g.MessageChannel();
  const port = ch.port1;
  const send = (id, result) => {
    try {
      apply(post, port, [[id, result]]);
    } catch {
      apply(post, port, [[id, { __proto__: null, ok: false, kind: 'not_serialisable', message: 'the result could not be copied out of the page', builtins: 'pristine' }]]);
    }
  };
  port.onmessage = (e) => {
    const d = apply(data, e, []);
    if (isArray(d) && d.length === 6) handle(d, (result) => send(d[0], result));
  };
  const accepted = !apply(dispatch, g, [new g.MessageEvent('gasoline:pristine-port', { __proto__: null, ports: [ch.port2], cancelable: true })]);
  if (!accepted) port.onmessage = null;
})(globalThis);
