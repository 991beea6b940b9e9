// The page's XMLHttpRequest, wrapped: a request is recorded when the
// object reaches DONE (readystatechange, before load/error/abort/loadend),
// or when the page opens it again first (from its own DONE handler).
import {
  apply, dom, keys, now, PromiseCtor, StringCtor, stringify, strIndexOf, strSlice, strSplit, strTrim, strUpper, uncurry,
  WeakMapCtor, wmGet, wmSet,
} from './builtins.js';
import { on, settings } from './channel.js';
import { LIMITS } from './limits.js';
import { absolute, failure, finish, nextId, readRequest, record } from './network.js';
import { addListener, perfNow, win } from './page.js';
import { cappedText, clip, isTextMime, round } from './text.js';
import { ended, started, touch } from './work.js';

const XHR = win.XMLHttpRequest;
const X = XHR && XHR.prototype;
const xhrStatus = X && dom(XHR, 'status', true);
const xhrGetAllHeaders = X && uncurry(X.getAllResponseHeaders);
const xhrGetHeader = X && uncurry(X.getResponseHeader);
const xhrReadyState = X && dom(XHR, 'readyState', true);
const xhrResponseType = dom(XHR, 'responseType', true);
const xhrResponseText = dom(XHR, 'responseText', true);
const xhrResponse = dom(XHR, 'response', true);
const xhrs = new WeakMapCtor(); // xhr -> the request it is sending (replaced at each open)
const listening = new WeakMapCtor(); // xhr -> true once our listener is on it

/** hookXHR wraps XMLHttpRequest.prototype's open, abort, setRequestHeader and send. */
export function hookXHR() {
  if (!X) return;
  const xOpen = X.open;
  const xAbort = X.abort;
  const xSetHeader = X.setRequestHeader;
  X.open = {
    open(method, url) {
      try {
        recordDone(this);
        const prev = wmGet(xhrs, this);
        if (prev && !prev.done) ended(prev); // opened again before it finished: abandoned
        wmSet(xhrs, this, { method: strUpper(StringCtor(method)), url: absolute(url) });
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
  hookSend();
}

/** hookSend wraps send: the request starts (counted, its body read at work) and our one listener is on the object. */
function hookSend() {
  const xSend = X.send;
  X.send = {
    send(body) {
      try {
        const info = wmGet(xhrs, this);
        if (info && on('network')) {
          if (!info.counted) started(info);
          info.id = nextId('x');
          info.ts = now();
          info.t0 = perfNow();
          info.cap = settings.bodyCap;
          info.rb = body;
          if (!import.meta.lean) readRequest(info, 1);
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
}

/** recordDone records the request xhr is sending once it is DONE, once. */
function recordDone(xhr) {
  const cur = wmGet(xhrs, xhr);
  if (!cur || !cur.id || cur.done || xhrReadyState(xhr) !== 4) return;
  cur.done = true;
  try {
    xhrDone(xhr, cur);
  } catch {
    // ignore
  }
}

/** parseRawHeaders is getAllResponseHeaders' text as an object, capped. */
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

/** xhrDone records the request info xhr sent, DONE. */
function xhrDone(xhr, info) {
  const rec = record(info, 'xhr');
  rec.duration_ms = round(perfNow() - info.t0);
  rec.status = xhrStatus(xhr);
  let resp = {};
  if (rec.status === 0) {
    rec.error = info.aborted ? 'aborted' : failure(null, info.url);
  } else {
    const mime = xhrGetHeader(xhr, 'content-type');
    if (mime) rec.mime_type = clip(mime, 200);
    rec.response_headers = parseRawHeaders(xhrGetAllHeaders(xhr));
    const rt = xhrResponseType(xhr);
    if ((!import.meta.lean || rec.status >= 400) && info.cap > 0 && isTextMime(mime || 'text/plain')) {
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
  finish(rec, info, PromiseCtor.resolve(resp));
}
