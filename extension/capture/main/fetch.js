// The page's fetch, wrapped: each request is recorded with its capped
// bodies (network.js), the response's read from a clone.
import { apply, now, PromiseCtor, promiseThen, StringCtor, strIndexOf, strLower, strUpper, uncurry, dom } from './builtins.js';
import { cloneRequest, responseBody } from './bodies.js';
import { on, settings } from './channel.js';
import { absolute, failure, finish, headerObject, nextId, plainHeaders, readRequest, record } from './network.js';
import { perfNow, win } from './page.js';
import { clip, isTextMime, round } from './text.js';
import { started, touch } from './work.js';

const RequestCtor = win.Request;
const resHeaders = win.Response && dom(win.Response, 'headers', true);
const resStatus = win.Response && dom(win.Response, 'status', true);
const resType = win.Response && dom(win.Response, 'type', true);
const headersGet = win.Headers && uncurry(win.Headers.prototype.get);

/** hookFetch wraps fetch; bodies are read from clones. */
export function hookFetch() {
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
}

/** fetchInfo is the network record's start of a fetch of input with init. */
function fetchInfo(input, init) {
  const isReq = RequestCtor && input instanceof RequestCtor;
  const method = strUpper(StringCtor((init && init.method) || (isReq ? input.method : 'GET')));
  const url = absolute(isReq ? input.url : input);
  const info = { id: nextId('f'), method, url, ts: now(), t0: perfNow(), cap: settings.bodyCap };
  info.headers = plainHeaders(init && init.headers) || (isReq ? headerObject(input.headers) : undefined);
  if (init && init.body != null) info.rb = init.body;
  else if (isReq && input.body) info.rq = cloneRequest(input); // fetch consumes the page's request: a clone made first
  if (!import.meta.lean) readRequest(info, 1);
  return info;
}

/** fetchDone records the response res, reading its body from a clone. */
function fetchDone(res, info) {
  const rec = record(info, 'fetch');
  rec.duration_ms = round(perfNow() - info.t0);
  let mime;
  try {
    rec.status = resStatus(res);
    const h = resHeaders(res);
    mime = headersGet(h, 'content-type') || undefined;
    if (mime) rec.mime_type = clip(mime, 200);
    rec.response_headers = headerObject(h);
    if (resType(res) === 'opaque') rec.status = 0;
  } catch {
    // ignore
  }
  let read = PromiseCtor.resolve({});
  let reading = false;
  touch(info, true, typeof mime === 'string' && strIndexOf(strLower(mime), 'text/event-stream') >= 0);
  if ((!import.meta.lean || rec.status >= 400) && isTextMime(mime) && info.cap > 0) {
    try {
      read = responseBody(res, info.cap, () => touch(info, true));
      reading = true;
    } catch {
      read = PromiseCtor.resolve({});
    }
  }
  finish(rec, info, read, reading);
}

/** fetchFailed records a fetch that got no response. */
function fetchFailed(e, info) {
  const rec = record(info, 'fetch');
  rec.status = 0;
  rec.error = failure(e, info.url);
  rec.duration_ms = round(perfNow() - info.t0);
  finish(rec, info, PromiseCtor.resolve({}));
}
