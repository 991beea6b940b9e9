// The top document of each tab as chrome.webNavigation last told it
// ({documentId, url}), so execute_js and the DOM actions can judge its
// origin and pin their script, or their action in the top frame, to it
// without asking Chrome first (issue 33: the origin rule's tabs.get and
// getFrame were round trips before every script and every click).
//
// Why that is as safe as asking: each entry comes from one event of the
// top frame, which names a document and its URL together; the script goes
// to documentIds: [that document] only, and a document's origin never
// changes (pushState and fragments keep it; they only move its URL,
// followed here). When the tab
// has moved on to a new document that no event has told of yet, Chrome
// refuses the injection ("no document with id") and the command fails as
// "navigated" without running, as when a navigation lands between the
// rule's look and the script. A document no event told of (open before
// the worker started, in a tab replaced by a prerender) is not known, nor
// one in a tab that started loading or changed its URL since its commit
// was told: the command asks Chrome (getFrame) as before, and the answer
// is kept (ask) unless an event of the tab came meanwhile.

/** TopDocuments keeps each tab's top document from webNavigation's events. Its zero state knows nothing. */
export class TopDocuments {
  constructor() {
    this.known = new Map(); // tab id -> {documentId, url}
    this.told = new Map(); // tab id -> how many events of it came (asks compare it)
  }

  /**
   * ask wraps getFrame, a promise of chrome's answer for tabId's top frame
   * asked now, and resolves like it: the answer is kept for the next
   * commands unless an event of the tab came while it was on its way (the
   * event is newer, or as new).
   */
  ask(tabId, getFrame) {
    const at = this.told.get(tabId) ?? 0;
    return getFrame.then((f) => {
      if ((this.told.get(tabId) ?? 0) === at && typeof f?.documentId === 'string' && typeof f.url === 'string') {
        this.known.set(tabId, { documentId: f.documentId, url: f.url });
      }
      return f;
    });
  }

  // set and drop change what is known of tabId on one of its events.
  set(tabId, documentId, url) {
    this.told.set(tabId, (this.told.get(tabId) ?? 0) + 1);
    this.known.set(tabId, { documentId, url });
  }

  drop(tabId) {
    this.told.set(tabId, (this.told.get(tabId) ?? 0) + 1);
    this.known.delete(tabId);
  }

  /**
   * listen registers the webNavigation and tabs listeners that keep the
   * map (api: the chrome namespace). Idempotent; call it synchronously at
   * the worker's start, so a woken worker hears the event that woke it.
   */
  listen(api = globalThis.chrome) {
    if (this.listening || !api?.webNavigation) return;
    this.listening = true;
    const top = (d) => d?.frameId === 0 && Number.isInteger(d.tabId) && typeof d.documentId === 'string' && typeof d.url === 'string';
    api.webNavigation.onCommitted.addListener((d) => {
      if (top(d)) this.set(d.tabId, d.documentId, d.url);
    });
    // A pushState or a fragment names the top document too (the events
    // come in order: none of an older document after a newer commit).
    const moved = (d) => {
      if (top(d)) this.set(d.tabId, d.documentId, d.url);
    };
    api.webNavigation.onHistoryStateUpdated.addListener(moved);
    api.webNavigation.onReferenceFragmentUpdated.addListener(moved);
    // A tab that starts loading, or shows a URL its known document does
    // not have, may be getting a document no commit told of (a prerendered
    // page taking its place): it is asked again until its next commit.
    // (Chrome tells a commit's new URL here too, before or after
    // webNavigation does.)
    api.tabs.onUpdated.addListener((tabId, change) => {
      const url = change?.url;
      if ((change?.status === 'loading' && url === undefined) || (typeof url === 'string' && url !== this.known.get(tabId)?.url)) {
        this.drop(tabId);
      }
    });
    api.tabs.onRemoved.addListener((tabId) => {
      this.drop(tabId);
      this.told.delete(tabId);
    });
    api.tabs.onReplaced.addListener((added, removed) => {
      this.drop(added);
      this.drop(removed);
    });
  }

  /** get is tabId's top document as last told ({documentId, url}: a copy), or null when none is known. */
  get(tabId) {
    const d = this.known.get(tabId);
    return d ? { ...d } : null;
  }
}
