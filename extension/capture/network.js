// The browser's view of every request of every tab, from chrome.webRequest
// (observational listeners only: nothing is blocked or changed). It sees what
// the page's JavaScript does not: documents, scripts, images, CORS failures,
// net::ERR_* errors. Pure: the listeners pass Chrome's details objects in;
// tested under node with recorded details.

/** RESOURCE_TYPES maps chrome.webRequest's ResourceType to the event's resource_type. */
export const RESOURCE_TYPES = Object.freeze({
  main_frame: 'document',
  sub_frame: 'document',
  script: 'script',
  stylesheet: 'stylesheet',
  image: 'image',
  imageset: 'image',
  font: 'font',
  media: 'media',
  websocket: 'websocket',
  xmlhttprequest: 'xhr',
});

const MAX_PENDING = 2000; // requests in flight remembered
const MAX_DOCUMENTS = 1000; // (tab, frame) -> document URL entries

/**
 * NetworkObserver turns webRequest events into "network" capture events
 * with source "browser", one per response (a redirect is its own event, with
 * request_id "<id>.r<n>") or failure. emit(event) receives each one; the
 * caller stamps nothing: tab_id and frame_id come from Chrome's details.
 *
 * It also remembers each frame's document URL (page_url), learned from
 * document requests, from content-script messages (noteDocument) and from
 * tab updates; a request whose frame it has not seen gets its initiator.
 *
 * Requests outside tabs (tabId -1: the extension's own calls to the daemon,
 * other extensions, the browser) and requests made by the extension's own
 * pages (initiator ownOrigin, e.g. the popup opened as a tab) are ignored.
 */
export class NetworkObserver {
  constructor({ emit, ownOrigin = '', maxPending = MAX_PENDING, polls = null }) {
    this.emit = emit;
    this.ownOrigin = ownOrigin;
    this.maxPending = maxPending;
    this.polls = polls; // LongPolls (polls.js), told how long each page fetch/XHR waited for its answer
    this.pending = new Map(); // requestId -> {start, requestHeaders, redirects, tabId, url, method, stream?, xhr?, initiator?, answered?}
    this.documents = new Map(); // "tab:frame" -> url
    this.watchers = new Set(); // {tabId, fn}
    this.hushed = new Map(); // "tab url" -> count: the extension's own re-reads (har/bodies.js)
  }

  /**
   * hush leaves out of the capture the fetches of urls in tabId (type
   * xmlhttprequest) until the returned function is called: the extension's
   * own re-reads of a page's bodies for a HAR. A page's own fetch of one of
   * those URLs in that window is left out too.
   */
  hush(tabId, urls) {
    const keys = urls.map((u) => `${tabId} ${u}`);
    for (const k of keys) this.hushed.set(k, (this.hushed.get(k) ?? 0) + 1);
    return () => {
      for (const k of keys) {
        const n = (this.hushed.get(k) ?? 1) - 1;
        if (n > 0) this.hushed.set(k, n);
        else this.hushed.delete(k);
      }
    };
  }

  /**
   * watch calls fn(phase, info) for each request of tabId from now on:
   * phase "start" with {id, method, url, type, stream?}, phase "stream"
   * with {id, method, url, stream} when its headers (Accept, or the
   * answer's Content-Type) show it is an event stream, phase "end" with {id, method, url, status, error?} (the final
   * response or failure). stream is "websocket" or "sse". It returns the
   * function that stops watching.
   */
  watch(tabId, fn) {
    const w = { tabId, fn };
    this.watchers.add(w);
    return () => this.watchers.delete(w);
  }

  /**
   * inflight returns the requests of tabId not yet finished that began less
   * than maxAgeMs ago (older ones are streams or polls): [{id, method, url, start}].
   */
  inflight(tabId, maxAgeMs = 30000, now = Date.now()) {
    const out = [];
    for (const [id, p] of this.pending) {
      if (p.tabId === tabId && !(p.start < now - maxAgeMs)) out.push({ id, method: p.method, url: p.url, start: p.start, ...(p.stream ? { stream: p.stream } : {}) });
    }
    return out;
  }

  /** streams returns the requests of tabId in flight that are streams by their kind (streamKind): [{id, method, url, kind}]. */
  streams(tabId) {
    const out = [];
    for (const [id, p] of this.pending) if (p.tabId === tabId && p.stream) out.push({ id, method: p.method, url: p.url, kind: p.stream });
    return out;
  }

  #tell(tabId, phase, info) {
    for (const w of this.watchers) {
      if (w.tabId !== tabId) continue;
      try {
        w.fn(phase, info);
      } catch {
        // a watcher's failure is its own
      }
    }
  }

  /** noteDocument records the document URL of a frame. */
  noteDocument(tabId, frameId, url) {
    if (!Number.isInteger(tabId) || tabId < 0 || typeof url !== 'string' || !url) return;
    const key = `${tabId}:${frameId ?? 0}`;
    this.documents.delete(key);
    this.documents.set(key, url);
    if (this.documents.size > MAX_DOCUMENTS) this.documents.delete(this.documents.keys().next().value);
  }

  /** forgetTab drops what is remembered about a closed tab. */
  forgetTab(tabId) {
    for (const key of this.documents.keys()) {
      if (key.startsWith(`${tabId}:`)) this.documents.delete(key);
    }
  }

  /** documentOf returns the remembered URL of a tab's frame, or "". */
  documentOf(tabId, frameId = 0) {
    return this.documents.get(`${tabId}:${frameId}`) ?? '';
  }

  onBeforeRequest(d) {
    if (!this.#observed(d)) return;
    if (d.type === 'main_frame' || d.type === 'sub_frame') this.noteDocument(d.tabId, d.frameId, d.url);
    const stream = d.type === 'websocket' ? 'websocket' : undefined;
    this.pending.set(d.requestId, { start: d.timeStamp, requestHeaders: undefined, redirects: 0, tabId: d.tabId, url: d.url, method: d.method || 'GET', stream,
      xhr: d.type === 'xmlhttprequest', initiator: d.initiator });
    if (this.pending.size > this.maxPending) this.pending.delete(this.pending.keys().next().value);
    if (this.watchers.size) this.#tell(d.tabId, 'start', { id: d.requestId, method: d.method || 'GET', url: d.url, type: d.type, ...(stream ? { stream } : {}) });
  }

  onSendHeaders(d) {
    if (!this.#observed(d)) return;
    const p = this.pending.get(d.requestId);
    if (!p) return;
    p.requestHeaders = d.requestHeaders;
    if (!p.stream && streamKind(d.requestHeaders)) {
      p.stream = 'sse';
      if (this.watchers.size) this.#tell(d.tabId, 'stream', { id: d.requestId, method: p.method, url: p.url, stream: p.stream });
    }
  }

  /** onResponseStarted marks a request whose answer is an event stream (text/event-stream) as a stream. */
  onResponseStarted(d) {
    if (!this.#observed(d)) return;
    const p = this.pending.get(d.requestId);
    if (p && p.answered === undefined) p.answered = d.timeStamp;
    if (!p || p.stream || !Array.isArray(d.responseHeaders)) return;
    const ct = d.responseHeaders.find((h) => h?.name?.toLowerCase() === 'content-type');
    if (typeof ct?.value !== 'string' || !ct.value.toLowerCase().includes('text/event-stream')) return;
    p.stream = 'sse';
    if (this.watchers.size) this.#tell(d.tabId, 'stream', { id: d.requestId, method: p.method, url: p.url, stream: p.stream });
  }

  onBeforeRedirect(d) {
    if (!this.#observed(d)) return;
    const p = this.pending.get(d.requestId);
    const n = p ? ++p.redirects : 1;
    const e = this.#event(d, p, `${d.requestId}.r${n}`);
    e.status = d.statusCode ?? 0;
    this.#response(e, d);
    this.emit(e);
    if (p) {
      p.start = d.timeStamp;
      p.requestHeaders = undefined;
    }
  }

  onCompleted(d) {
    if (!this.#observed(d)) return;
    const p = this.pending.get(d.requestId);
    this.pending.delete(d.requestId);
    this.#waited(p, d);
    const e = this.#event(d, p, String(d.requestId));
    e.status = d.statusCode ?? 0;
    this.#response(e, d);
    this.emit(e);
    if (this.watchers.size) this.#tell(d.tabId, 'end', { id: d.requestId, method: e.method, url: e.url, type: d.type, status: e.status });
  }

  onErrorOccurred(d) {
    if (!this.#observed(d)) return;
    const p = this.pending.get(d.requestId);
    this.pending.delete(d.requestId);
    this.#waited(p, d);
    const e = this.#event(d, p, String(d.requestId));
    e.status = 0;
    e.error = typeof d.error === 'string' && d.error ? d.error : 'net::ERR_FAILED';
    this.emit(e);
    if (this.watchers.size) this.#tell(d.tabId, 'end', { id: d.requestId, method: e.method, url: e.url, type: d.type, status: 0, error: e.error });
  }

  // #waited tells polls how long a page's fetch/XHR that ended (d) waited
  // for its answer's headers: all its life when none came (failed, or
  // cancelled as its page went).
  #waited(p, d) {
    if (!this.polls || !p?.xhr || p.stream || !Number.isFinite(d.timeStamp)) return;
    this.polls.note(p.initiator, p.method, p.url, (p.answered ?? d.timeStamp) - p.start, p.answered !== undefined);
  }

  /**
   * longPolls returns the long polls known for pages of origin (polls.js
   * pollKey strings), after telling polls of the fetch/XHR still waiting
   * for an answer (a page open for a while has its long polls waiting).
   */
  longPolls(origin, now = Date.now()) {
    if (!this.polls || typeof origin !== 'string' || !origin) return [];
    for (const p of this.pending.values()) {
      if (p.xhr && !p.stream && p.answered === undefined && p.initiator === origin) this.polls.waiting(origin, p.method, p.url, now - p.start);
    }
    return this.polls.known(origin);
  }

  #observed(d) {
    if (this.hushed.size && d?.type === 'xmlhttprequest' && this.hushed.has(`${d.tabId} ${d.url}`)) return false;
    return inTab(d) && !(this.ownOrigin && d.initiator === this.ownOrigin);
  }

  #event(d, p, requestId) {
    const frameId = Number.isInteger(d.frameId) ? d.frameId : 0;
    // A document request belongs to the frame it loads; its page_url is its own URL.
    let pageUrl = d.type === 'main_frame' || d.type === 'sub_frame' ? d.url : this.documentOf(d.tabId, frameId);
    if (!pageUrl) pageUrl = typeof d.initiator === 'string' ? d.initiator : '';
    const e = {
      kind: 'network',
      ts: p?.start ?? d.timeStamp ?? Date.now(),
      tab_id: d.tabId,
      frame_id: frameId,
      page_url: pageUrl,
      request_id: requestId,
      source: 'browser',
      method: d.method || 'GET',
      url: d.url,
      status: 0,
      resource_type: RESOURCE_TYPES[d.type] ?? 'other',
    };
    if (p && Number.isFinite(d.timeStamp)) e.duration_ms = Math.max(0, Math.round((d.timeStamp - p.start) * 10) / 10);
    if (p?.requestHeaders) e.request_headers = p.requestHeaders;
    return e;
  }

  #response(e, d) {
    if (!Array.isArray(d.responseHeaders)) return;
    e.response_headers = d.responseHeaders;
    const ct = d.responseHeaders.find((h) => h?.name?.toLowerCase() === 'content-type');
    if (ct && typeof ct.value === 'string') e.mime_type = ct.value;
  }
}

/**
 * streamKind says whether a request's headers ask for an event stream
 * (Accept: text/event-stream, as EventSource and fetch-based SSE clients
 * send): such a request lasts as long as the page listens.
 */
export function streamKind(headers) {
  if (!Array.isArray(headers)) return false;
  return headers.some((h) => typeof h?.name === 'string' && h.name.toLowerCase() === 'accept' && typeof h.value === 'string' && h.value.toLowerCase().includes('text/event-stream'));
}

function inTab(d) {
  return d && Number.isInteger(d.tabId) && d.tabId >= 0;
}

/**
 * listen registers observer's listeners on chrome.webRequest for every URL
 * (non-blocking: Chrome never waits for them). Headers are read without
 * "extraHeaders", so Chrome leaves Cookie and Set-Cookie out entirely.
 */
export function listen(webRequest, observer) {
  const filter = { urls: ['<all_urls>'] };
  webRequest.onBeforeRequest.addListener((d) => observer.onBeforeRequest(d), filter);
  webRequest.onSendHeaders.addListener((d) => observer.onSendHeaders(d), filter, ['requestHeaders']);
  webRequest.onBeforeRedirect.addListener((d) => observer.onBeforeRedirect(d), filter, ['responseHeaders']);
  webRequest.onResponseStarted.addListener((d) => observer.onResponseStarted(d), filter, ['responseHeaders']);
  webRequest.onCompleted.addListener((d) => observer.onCompleted(d), filter, ['responseHeaders']);
  webRequest.onErrorOccurred.addListener((d) => observer.onErrorOccurred(d), filter);
}
