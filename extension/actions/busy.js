// Whether a tab's network is busy, for the DOM runtime's auto-wait: a target
// that is missing or disabled fails early only on a page that is quiet, and
// a page cannot see its own requests in flight from the extension's world
// (the page's fetch is not visible there). The worker counts them with
// chrome.webRequest and answers the runtime's question:
//
//   runtime → worker:  {gasoline: "busy"}  →  {inflight, quiet_ms}
//
// inflight counts the tab's requests in flight that began less than
// STREAM_MS ago (a longer one is a stream or a long poll, which never ends);
// quiet_ms is how long ago one of its requests last began or ended
// (null when none was seen since the worker started).

/** STREAM_MS is how long a request may be in flight and still count as activity. */
export const STREAM_MS = 10000;

/** MAX_PER_TAB bounds the requests remembered per tab (the oldest go first). */
export const MAX_PER_TAB = 500;

/**
 * RequestCounter counts each tab's requests in flight. Pure: the clock is
 * injected, so node tests drive it.
 */
export class RequestCounter {
  constructor({ now = Date.now } = {}) {
    this.now = now;
    this.tabs = new Map(); // tabId → {inflight: Map<requestId, start>, last}
  }

  #tab(tabId) {
    let t = this.tabs.get(tabId);
    if (!t) {
      t = { inflight: new Map(), last: 0 };
      this.tabs.set(tabId, t);
    }
    return t;
  }

  /** begin notes that request id of tab tabId started. */
  begin(tabId, id) {
    const t = this.#tab(tabId);
    t.last = this.now();
    t.inflight.set(id, t.last);
    if (t.inflight.size > MAX_PER_TAB) t.inflight.delete(t.inflight.keys().next().value);
  }

  /** end notes that request id of tab tabId finished (completed or failed). */
  end(tabId, id) {
    const t = this.tabs.get(tabId);
    if (!t) return;
    t.last = this.now();
    t.inflight.delete(id);
  }

  /** forget drops a closed tab. */
  forget(tabId) {
    this.tabs.delete(tabId);
  }

  /** busy returns {inflight, quiet_ms} of tab tabId (see the header). */
  busy(tabId) {
    const t = this.tabs.get(tabId);
    if (!t) return { inflight: 0, quiet_ms: null };
    const now = this.now();
    let inflight = 0;
    for (const start of t.inflight.values()) if (now - start < STREAM_MS) inflight++;
    return { inflight, quiet_ms: now - t.last };
  }
}

/**
 * watchRequests counts every tab's requests with chrome.webRequest (observe
 * only, nothing blocked) and answers the runtimes' {gasoline: "busy"}
 * messages about their own tab. The worker calls it once at start.
 */
export function watchRequests(counter = new RequestCounter()) {
  if (!chrome.webRequest) return counter;
  const filter = { urls: ['<all_urls>'] };
  const inTab = (d) => Number.isInteger(d.tabId) && d.tabId >= 0;
  chrome.webRequest.onBeforeRequest.addListener((d) => inTab(d) && counter.begin(d.tabId, d.requestId), filter);
  chrome.webRequest.onCompleted.addListener((d) => inTab(d) && counter.end(d.tabId, d.requestId), filter);
  chrome.webRequest.onErrorOccurred.addListener((d) => inTab(d) && counter.end(d.tabId, d.requestId), filter);
  chrome.tabs.onRemoved.addListener((tabId) => counter.forget(tabId));
  chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
    // A content script of this extension, about its own tab only.
    if (sender.id !== chrome.runtime.id || msg?.gasoline !== 'busy' || !Number.isInteger(sender.tab?.id)) return false;
    sendResponse(counter.busy(sender.tab.id));
    return false;
  });
  return counter;
}
