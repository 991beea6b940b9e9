// Request and response bodies, read capped for the network records (at
// work every request's; lean, a failed one's: network.js). The page's own
// request and response are untouched: a response is read from a clone.
import { arrJoin, arrPush, dom, PromiseCtor, promiseThen, strSlice, uncurry } from './builtins.js';
import { win } from './page.js';
import { cappedText } from './text.js';

const ResponseP = win.Response && win.Response.prototype;
const RequestCtor = win.Request;
const TextDecoderCtor = win.TextDecoder;
const decode = TextDecoderCtor && uncurry(TextDecoderCtor.prototype.decode);
const resClone = ResponseP && uncurry(ResponseP.clone);
const resBody = dom(win.Response, 'body', true);
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

/** cloneRequest is a clone of a Request (fetch consumes the page's). */
export const cloneRequest = RequestCtor && uncurry(RequestCtor.prototype.clone);

/** requestText resolves to {text, size, truncated?} of a Request's body (a clone the fetch did not consume), or {}. */
export const requestText = (req, cap) => promiseThen(reqText(req), (s) => cappedText(s, cap), () => ({}));

/** requestBody returns {text?, size?, truncated?} for a request body the page passed. */
export function requestBody(body, cap) {
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
export function responseBody(res, cap, chunk) {
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
