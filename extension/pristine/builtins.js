// The built-ins pristine.js saves before any page script runs (see
// pristine.js): what execute_js reads a result with.

/** getter is the getter of ctor.prototype's property name, or null. */
export const getter = (ctor, name) => {
  const d = ctor && ctor.prototype && Object.getOwnPropertyDescriptor(ctor.prototype, name);
  return (d && d.get) || null;
};

/** method is ctor.prototype's method name, or null. */
export const method = (ctor, name) => (ctor && ctor.prototype && ctor.prototype[name]) || null;

/** saveBuiltins returns the built-ins of global g, frozen and without a prototype. */
export function saveBuiltins(g) {
  const O = Object;
  const proto = O.getPrototypeOf;
  const apply = Reflect.apply;
  const mapEntries = Map.prototype.entries;
  const setValues = Set.prototype.values;
  return O.freeze({
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
  });
}
