// What the fetch and XHR hooks (fetch.js, xhr.js) share: request ids, URLs,
// headers, request bodies and the records. They keep capped bodies:
// every request's at work; lean, a failed request's only (status 400 or
// more, or no response), so what a bug report needs is kept from a page the
// user loaded before an agent came, at the cost of a reference per request
// (a Request's clone for a fetch of a Request with a body) and of reading
// bodies only when a request failed.
import { isArray, keys, MathRandom, PromiseCtor, promiseThen, StringCtor, strSlice, uncurry } from './builtins.js';
import { requestBody, requestText } from './bodies.js';
import { emit } from './channel.js';
import { LIMITS } from './limits.js';
import { loc, locHref, win } from './page.js';
import { clip } from './text.js';
import { ended } from './work.js';

const URLCtor = win.URL;
const HeadersCtor = win.Headers;
const headersForEach = HeadersCtor && uncurry(HeadersCtor.prototype.forEach);
const random = strSlice(StringCtor(MathRandom()), 2, 10);
let seq = 0;

/** absolute is URL u resolved against the page's, clipped. */
export function absolute(u) {
  try {
    return clip(new URLCtor(StringCtor(u), locHref(loc)).href, LIMITS.url);
  } catch {
    return clip(StringCtor(u), LIMITS.url);
  }
}

/** crossOrigin reports whether absolute URL u is of another origin than the page's. */
function crossOrigin(u) {
  try {
    return new URLCtor(u).origin !== loc.origin;
  } catch {
    return false;
  }
}

/** nextId is a new request id: prefix (f: fetch, x: XHR), this document's random part and a count. */
export function nextId(prefix) {
  seq++;
  return prefix + random + '-' + seq;
}

/** headerObject is a Headers object's entries as a plain object (at most LIMITS.headers), or undefined. */
export function headerObject(h) {
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

/** plainHeaders is the headers a page passed to fetch (Headers, pairs or an object) as a plain object, or undefined. */
export function plainHeaders(h) {
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

/** failure names why a request to url got no response: aborted, cors or net::ERR_FAILED. */
export function failure(e, url) {
  try {
    if (e && e.name === 'AbortError') return 'aborted';
  } catch {
    // ignore
  }
  return crossOrigin(url) ? 'cors' : 'net::ERR_FAILED';
}

/** record is the network record of request info (type: fetch or xhr), without its outcome. */
export function record(info, type) {
  const rec = { kind: 'network', ts: info.ts, request_id: info.id, source: 'page', method: info.method, url: info.url, status: 0, resource_type: type };
  if (import.meta.lean) rec.lean = true; // bodies of failures only: the document loaded while no agent was at work
  if (info.headers) rec.request_headers = info.headers;
  return rec;
}

// readRequest reads, when read is true, the request body the page
// passed (info.rb) or a clone of its Request (info.rq) into info.body
// or info.bodyPromise, capped, and lets go of them (an XHR's info lives
// as long as the object): at send at work; lean, once the request ended
// (finish), read only if it failed, so a page's FormData changed in
// between is read as it is then.
export function readRequest(info, read) {
  if (read) {
    if (info.rq) info.bodyPromise = requestText(info.rq, info.cap);
    else info.body = requestBody(info.rb, info.cap);
  }
  info.rq = info.rb = null;
}

// finish records a request. When a body is still being read (reading
// is true: a fetch response's stream, a Request's body), the record goes
// now with body_pending and a second one with body_update and the same
// request_id brings the bodies; the daemon merges them.
export function finish(rec, info, responseBody, reading) {
  if (import.meta.lean) readRequest(info, rec.error || rec.status >= 400);
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

