// The JavaScript built-ins the MAIN-world capture calls, saved when the
// bundle starts (document_start, before any page script): a page that
// replaces console, fetch, JSON, Array methods or addEventListener later
// changes nothing for the capture. Names of the bundle's one scope, not an
// object's properties, which minifying would keep (900 bytes each page
// paid). Under node (the unit tests) the DOM ones are the tests' fakes
// (extension/test/capture-dom.js), read through the same accessors.

export const FP = Function.prototype;
export const uncurry = FP.bind.bind(FP.call); // uncurry(f)(self, ...args) === f.call(self, ...args)
export const apply = Reflect.apply;
const O = Object;
export const keys = O.keys;
export const getProto = O.getPrototypeOf;
export const getOwnDesc = O.getOwnPropertyDescriptor;
export const objProto = O.prototype;
export const toTag = uncurry(objProto.toString);
export const hasOwn = O.hasOwn;
export const isArray = Array.isArray;
export const stringify = JSON.stringify;
export const parseJSON = JSON.parse;
export const now = Date.now;
export const MathMax = Math.max;
export const MathMin = Math.min;
export const MathRandom = Math.random;
export const MathRound = Math.round;
export const MathTrunc = Math.trunc;
export const StringCtor = String;
export const NumberIsFinite = Number.isFinite;
export const strSlice = uncurry(String.prototype.slice);
export const strIndexOf = uncurry(String.prototype.indexOf);
export const strLower = uncurry(String.prototype.toLowerCase);
export const strUpper = uncurry(String.prototype.toUpperCase);
export const strTrim = uncurry(String.prototype.trim);
export const strReplace = uncurry(String.prototype.replace);
export const strSplit = uncurry(String.prototype.split);
export const strCharAt = uncurry(String.prototype.charAt);
export const strStartsWith = uncurry(String.prototype.startsWith);
export const strReplaceAll = uncurry(String.prototype.replaceAll);
export const charCodeAt = uncurry(String.prototype.charCodeAt);
export const arrJoin = uncurry(Array.prototype.join);
export const arrPush = uncurry(Array.prototype.push);
export const arrShift = uncurry(Array.prototype.shift);
export const arrIndexOf = uncurry(Array.prototype.indexOf);
export const arrSplice = uncurry(Array.prototype.splice);
export const ErrorCtor = Error;
export const WeakMapCtor = WeakMap;
export const wmGet = uncurry(WeakMap.prototype.get);
export const wmSet = uncurry(WeakMap.prototype.set);
export const mapSet = uncurry(Map.prototype.set);
export const mapDelete = uncurry(Map.prototype.delete);
export const mapSize = uncurry(getOwnDesc(Map.prototype, 'size').get);
export const setSize = uncurry(getOwnDesc(Set.prototype, 'size').get);
export const mapForEach = uncurry(Map.prototype.forEach);
export const setForEach = uncurry(Set.prototype.forEach);
export const dateToISO = uncurry(Date.prototype.toISOString);
export const regexpToString = uncurry(RegExp.prototype.toString);
export const symToString = uncurry(Symbol.prototype.toString);
export const fnToString = uncurry(FP.toString);
export const promiseThen = uncurry(Promise.prototype.then);
export const PromiseCtor = Promise;
export const ProxyCtor = Proxy;
export const construct = Reflect.construct;

export const G = globalThis;
export const hasDOM = typeof document !== 'undefined' && typeof window !== 'undefined';

/**
 * dom returns C.prototype's method name uncurried, or with getter its
 * accessor's getter (found up the prototype chain), or null when C or the
 * member is absent (under node, where the tests pass fakes).
 */
export const dom = (C, name, getter) => {
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
export const getAttr = dom(G.Element, 'getAttribute') || ((el, n) => el.getAttribute(n));
export const localNameOf = dom(G.Element, 'localName', true) || ((el) => el.localName);
export const nodeTypeOf = dom(G.Node, 'nodeType', true) || ((n) => n.nodeType);
export const cssEscape = (G.CSS && G.CSS.escape) || ((s) => strReplace(StringCtor(s), /[^\w-]/g, (c) => '\\' + c));
