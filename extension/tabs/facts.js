// What Chrome says of a tab, shared by the steps of a command. Before a
// command reaches its page, the ownership rules (is the agent's last tab
// still open, is it the one its window shows), the origin rule (its URL)
// and resolveTab each asked chrome.tabs.get: a round trip to the browser
// process apiece, 0.3–2 ms on a busy machine, four per command (issue 33).
// TabFacts keeps each answer until Chrome reports that the tab may have
// changed. The origin rule still asks Chrome for the URL it judges
// (fresh: never older than the command, whatever events are still on
// their way), and the steps around it share that answer: one round trip
// per command instead of four.
//
// An answer is kept only while the listeners are registered (listen): they
// drop a tab's answer at every chrome.tabs.onUpdated of it (URL, title,
// status, group, discard...), and every answer at any event that changes
// other tabs' facts too (a tab created, removed, moved, attached, detached,
// replaced, activated, highlighted: indexes and active flags). MAX_AGE_MS
// bounds an answer's life besides, so a fact Chrome sends no event for
// (lastAccessed) is never older than that. A get that fails (no such tab)
// is not kept. Each caller gets its own copy of the Tab.

/** MAX_AGE_MS is the longest an answer is kept, events or not. */
export const MAX_AGE_MS = 1000;

/** TabFacts answers chrome.tabs.get from what it was told since the tab last changed. */
export class TabFacts {
  /**
   * api is the chrome namespace, looked up at each call when absent (the
   * module's shared instance exists before chrome does under node); now
   * is the clock in ms.
   */
  constructor({ api, maxAgeMs = MAX_AGE_MS, now = () => performance.now() } = {}) {
    this.apiGiven = api;
    this.maxAgeMs = maxAgeMs;
    this.now = now;
    this.known = new Map(); // tab id -> {tab: Promise<Tab>, at}
    this.listening = false;
  }

  get api() {
    return this.apiGiven ?? globalThis.chrome;
  }

  /**
   * listen registers the chrome.tabs listeners that keep the answers
   * true; until it is called every get asks Chrome. Idempotent;
   * background.js calls it synchronously at module start.
   */
  listen() {
    if (this.listening) return;
    const { tabs } = this.api;
    const all = () => this.known.clear();
    tabs.onUpdated.addListener((tabId) => this.drop(tabId));
    for (const e of ['onCreated', 'onRemoved', 'onMoved', 'onAttached', 'onDetached', 'onReplaced', 'onActivated', 'onHighlighted']) {
      tabs[e]?.addListener(all);
    }
    this.listening = true;
  }

  /** drop forgets what is known of tabId: the extension itself changed it (tabs.update, tabs.group). */
  drop(tabId) {
    this.known.delete(Number(tabId));
  }

  /**
   * get resolves to chrome.tabs.get(tabId), from the answer kept since the
   * tab last changed when there is one; it rejects as chrome.tabs.get does.
   */
  get(tabId) {
    const id = Number(tabId);
    const entry = this.known.get(id);
    if (!entry || this.now() - entry.at > this.maxAgeMs) return this.fresh(id);
    return entry.tab.then((tab) => ({ ...tab }));
  }

  /**
   * fresh resolves to chrome.tabs.get(tabId) asked now, and keeps the
   * answer for the gets after it (background.js: the origin rule asks
   * this way).
   */
  fresh(tabId) {
    const id = Number(tabId);
    const asked = this.api.tabs.get(id);
    if (this.listening) {
      const entry = { tab: asked, at: this.now() };
      this.known.set(id, entry);
      asked.catch(() => {
        if (this.known.get(id) === entry) this.known.delete(id);
      });
    }
    return asked.then((tab) => ({ ...tab }));
  }
}

/** tabFacts is the worker's one TabFacts (background.js starts its listeners). */
export const tabFacts = new TabFacts();
