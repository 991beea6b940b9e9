// Saves, before any page script runs, the built-ins execute_js reads a result
// with, so a page that later replaces JSON.stringify, Map, Object.keys, the
// AsyncFunction constructor or Promise.prototype.then cannot change what the
// agent is told about its script.
//
// A MAIN-world content script at document_start (manifest.json), in every
// frame; a classic script, so no imports. It defines __gasolinePristine on
// the page's global as a frozen, non-writable, non-configurable property:
// page code, which runs after it, can read it (they are the page's own
// built-ins) but can neither replace it nor shadow it with a global let or
// const. pageRun (page.js) uses it.
//
// In a document that was loaded before the extension started, the worker
// injects this file late and calls markLate(): the built-ins are then the
// page's own at that moment, and execute_js results say so. A page can call
// markLate() too; that only makes its own results say they are not
// trustworthy.
(() => {
  'use strict';
  const g = globalThis;
  const O = Object;
  if (O.getOwnPropertyDescriptor(g, '__gasolinePristine')) return; // already here (or the name is taken)
  const proto = O.getPrototypeOf;
  const getter = (ctor, name) => {
    const d = ctor && ctor.prototype && O.getOwnPropertyDescriptor(ctor.prototype, name);
    return (d && d.get) || null;
  };
  const method = (ctor, name) => (ctor && ctor.prototype && ctor.prototype[name]) || null;
  const mapEntries = Map.prototype.entries;
  const setValues = Set.prototype.values;
  let late = false;

  const pristine = {
    __proto__: null,
    global: g,
    apply: Reflect.apply,
    defineProperty: Reflect.defineProperty,
    keys: O.keys,
    hasOwn: O.hasOwn,
    getPrototypeOf: proto,
    isArray: Array.isArray,
    objectProto: O.prototype,
    arrayProto: Array.prototype,
    AsyncFunction: proto(async function () {}).constructor,
    Promise,
    then: Promise.prototype.then,
    errorProto: Error.prototype,
    syntaxErrorProto: SyntaxError.prototype,
    evalErrorProto: EvalError.prototype,
    isError: typeof Error.isError === 'function' ? Error.isError : null,
    slice: String.prototype.slice,
    charCodeAt: String.prototype.charCodeAt,
    mapSize: getter(Map, 'size'),
    mapEntries,
    mapIterNext: proto(Reflect.apply(mapEntries, new Map(), [])).next,
    setSize: getter(Set, 'size'),
    setValues,
    setIterNext: proto(Reflect.apply(setValues, new Set(), [])).next,
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
    markLate() {
      late = true;
    },
    isLate() {
      return late;
    },
  };
  O.freeze(pristine);
  O.defineProperty(g, '__gasolinePristine', { value: pristine });
})();
