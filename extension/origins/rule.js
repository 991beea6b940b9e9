// The origin rule (issue 29): the user decides where agents act. Agents act
// on and read pages of local development origins (localhost, *.localhost,
// 127.0.0.0/8, [::1], file:) and of origins the user allowed; the first
// command on any other origin asks the user in the extension's own window
// (origins/ask.html: allow once, always allow, deny), and the command waits
// for the answer. Denied or unanswered, it fails with reason
// origin_not_allowed. Only the user allows: the list lives in
// chrome.storage.local (readable by the extension's pages and worker only,
// background.js), written by the worker when the user answers "always" in
// the prompt, and shown, revocable, in the popup. No tool call can write it.
// No chrome.* dependency beyond what the constructor is given: node-tested.

import { USER_ANSWER_MS } from '../contract.js';
import { CommandError, deadlineOf } from '../runner.js';

/** ALLOWED_KEY is the chrome.storage.local key of the user's allowed origins: {origin: {at}}. */
export const ALLOWED_KEY = 'origins_allowed';

/** REASON is the failure reason of a command the user did not allow (pkg/tracker ReasonOriginNotAllowed). */
export const REASON = 'origin_not_allowed';

/**
 * ANSWER_MARGIN_MS is how long before its deadline a command whose deadline
 * could not be moved (no extend) stops waiting for the user, so it fails
 * with REASON rather than a timeout.
 */
export const ANSWER_MARGIN_MS = 1500;

// Actions that neither act on nor read a page's content: tab management and
// the window's size. navigate and new_tab are checked on their destination.
const UNCHECKED = new Set(['switch_tab', 'close_tab', 'refresh', 'back', 'forward', 'resize']);
const DESTINATION = new Set(['navigate', 'new_tab']);

/**
 * originOf returns the origin the rule judges for url ("file://" for file:
 * URLs), or null for URLs the rule leaves alone: Chrome's own pages, other
 * extensions, about:blank and data: (Chrome refuses the first two to every
 * extension already), and anything that does not parse.
 */
export function originOf(url) {
  let u;
  try {
    u = new URL(String(url));
  } catch {
    return null;
  }
  if (u.protocol === 'file:') return 'file://';
  if (u.protocol === 'blob:') return originOf(u.pathname);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  return u.origin;
}

/** isLocal reports whether origin (from originOf) is a local development origin. */
export function isLocal(origin) {
  if (origin === 'file://') return true;
  let host;
  try {
    host = new URL(origin).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost') || host === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** notAllowedText is the error of a command the user did not allow, with what to do next. */
export function notAllowedText(origin, why) {
  return `${origin} is not an origin the user allowed agents on: ${why}. ` +
    `Ask the user to allow ${origin} in the gasoline popup or to answer the prompt (it waits ${Math.round(USER_ANSWER_MS / 1000)} s for them), then retry, ` +
    'or work on a local origin (localhost, 127.0.0.1). No tool call can allow an origin.';
}

/**
 * Origins applies the rule. deps:
 *   storage      chrome.storage.local (get, set)
 *   tabUrl(id, query)  resolves to the URL of a tab's top document ('' when
 *                unknown); query is the command it is asked for
 *   ask({id, origin, agent})  opens the prompt window; resolves to its window id
 *   close(windowId)           closes it
 *   waiting(query, origin)    tells the daemon the command waits for the
 *                             user to allow origin ("" once they allowed it)
 *   extend(query, ms)         moves the command's deadline to ms from now
 *                             (runner.js runCommand's extend); false when
 *                             it could not
 * answer(id, choice) and closed(windowId) are the prompt's answers, wired by
 * the worker.
 */
export class Origins {
  constructor({ storage, tabUrl, ask, close, waiting = () => {}, extend = () => false, now = () => Date.now(), newId = () => crypto.randomUUID() }) {
    Object.assign(this, { storage, tabUrl, ask, close, waiting, extend, now, newId });
    this.asking = new Map(); // prompt id → {origin, client, windowId, waiters: [resolve]}
    this.applying = Promise.resolve(); // the terminal's allows being stored
  }

  /**
   * allowFromTerminal adds the origins the user allowed with 'gasoline
   * allow' (the daemon hands them over in a signed poll answer, before
   * the commands of that answer, whose checks wait for them).
   */
  allowFromTerminal(list) {
    const ok = list.map((o) => originOf(o)).filter((o) => o && o !== 'file://');
    this.applying = this.applying.then(async () => {
      for (const o of ok) await this.allow(o);
    }).catch(() => {});
    return this.applying;
  }

  /** allowedList resolves to the user's allowed origins, {origin: {at}}. */
  async allowedList() {
    await this.applying;
    return this.#read();
  }

  async #read() {
    const got = await this.storage.get(ALLOWED_KEY);
    const list = got?.[ALLOWED_KEY];
    return list && typeof list === 'object' ? list : {};
  }

  /** allow adds origin to the user's list (the prompt's "always", the popup). */
  async allow(origin) {
    const list = await this.#read();
    list[origin] = { at: this.now() };
    await this.storage.set({ [ALLOWED_KEY]: list });
  }

  /** revoke removes origin from the user's list. */
  async revoke(origin) {
    const list = await this.#read();
    delete list[origin];
    await this.storage.set({ [ALLOWED_KEY]: list });
  }

  /**
   * urlOf resolves to the URL a command acts on or reads: the destination
   * of navigate and new_tab, the tab's top document otherwise; '' when the
   * command touches no page content or names no tab.
   */
  async urlOf(query) {
    const action = query?.action;
    const params = query?.params && typeof query.params === 'object' ? query.params : {};
    if (UNCHECKED.has(action)) return '';
    if (DESTINATION.has(action)) return typeof params.url === 'string' ? params.url : '';
    const id = Number(params.tab_id);
    if (params.tab_id === undefined || params.tab_id === null || params.tab_id === '' || !Number.isInteger(id)) return '';
    return (await Promise.resolve().then(() => this.tabUrl(id, query)).catch(() => '')) || '';
  }

  /**
   * gate wraps exec(query, signal, hooks): a command on a page whose
   * origin is neither local nor allowed waits for the user's answer to the
   * prompt, then runs (allow once, always) or fails with REASON (deny, the
   * prompt closed, no answer within USER_ANSWER_MS). Asking moves the
   * command's deadline to USER_ANSWER_MS plus its own from now (extend; the
   * daemon moves its own alike when told the command waits: pkg/tracker
   * WaitingForUser), so the user has a person's time to answer and the
   * command its whole deadline after; without extend it waits up to
   * ANSWER_MARGIN_MS before its deadline.
   */
  gate(exec) {
    return async (query, signal, hooks = {}) => {
      const origin = originOf(await this.urlOf(query));
      if (origin && !isLocal(origin) && !(origin in (await this.allowedList()))) {
        const waitMs = this.extend(query, USER_ANSWER_MS + deadlineOf(query)) ? USER_ANSWER_MS
          : Math.max(0, deadlineOf(query) - ANSWER_MARGIN_MS);
        this.waiting(query, origin);
        const choice = await this.askUser(origin, query, signal, waitMs);
        if (choice === 'once' || choice === 'always') this.waiting(query, '');
        if (choice === 'always') await this.allow(origin);
        else if (choice !== 'once') {
          const why = choice === 'deny' ? 'the user denied it' : choice === 'closed' ? 'the user closed the prompt without allowing it'
            : `the user did not answer the prompt within ${Math.round(waitMs / 1000)} s`;
          throw new CommandError(notAllowedText(origin, why), { reason: REASON });
        }
        await this.#stillOn(query, origin);
      }
      return exec(query, signal, hooks);
    };
  }

  /**
   * #stillOn looks at the page query acts on again once the user allowed
   * origin (they may take minutes): a tab that went to another origin
   * neither local nor allowed fails the command as navigated, so it never
   * runs in a page the user was not asked about. The look also pins
   * execute_js and the DOM actions to the document it found (tabUrl).
   */
  async #stillOn(query, origin) {
    const now = originOf(await this.urlOf(query));
    if (!now || now === origin || isLocal(now) || now in (await this.allowedList())) return;
    throw new CommandError(`the tab went to ${now} while the user was answering the prompt about ${origin}, so the command did nothing; ` +
      'retry it if it is still needed (the user will be asked about that origin)', { reason: 'navigated' });
  }

  /**
   * askUser shows the prompt for origin (one per agent and origin at a
   * time: commands arriving meanwhile share its answer) and resolves to
   * "once", "always", "deny", "closed" or "unanswered".
   */
  askUser(origin, query, signal, waitMs) {
    const client = typeof query?.client === 'string' ? query.client : '';
    const agent = (typeof query?.client_name === 'string' && query.client_name) || client || 'an agent';
    let entry = [...this.asking.values()].find((a) => a.origin === origin && a.client === client);
    if (!entry) {
      const id = this.newId();
      entry = { id, origin, client, windowId: undefined, waiters: new Set() };
      this.asking.set(id, entry);
      Promise.resolve().then(() => this.ask({ id, origin, agent })).then((w) => {
        entry.windowId = w;
        if (!this.asking.has(id) && w !== undefined) this.close(w);
      }, () => this.settle(id, 'closed'));
    }
    return new Promise((resolve) => {
      let timer;
      const done = (choice) => {
        clearTimeout(timer);
        signal?.removeEventListener?.('abort', onAbort);
        entry.waiters.delete(done);
        if (entry.waiters.size === 0 && this.asking.get(entry.id) === entry) this.settle(entry.id, null);
        resolve(choice);
      };
      const onAbort = () => done('unanswered');
      entry.waiters.add(done);
      timer = setTimeout(() => done('unanswered'), waitMs);
      signal?.addEventListener?.('abort', onAbort);
    });
  }

  /** settle ends prompt id: its waiters get choice (null: none is left), its window closes. */
  settle(id, choice) {
    const entry = this.asking.get(id);
    if (!entry) return false;
    this.asking.delete(id);
    if (choice) for (const w of [...entry.waiters]) w(choice);
    if (entry.windowId !== undefined && choice !== 'closed') Promise.resolve().then(() => this.close(entry.windowId)).catch(() => {});
    return true;
  }

  /** answer is the prompt's answer: choice "once", "always" or "deny"; false for an unknown or finished prompt. */
  answer(id, choice) {
    if (!['once', 'always', 'deny'].includes(choice)) return false;
    return this.settle(id, choice);
  }

  /** closed is told of every window closing: a prompt the user closed is a "closed" answer. */
  closed(windowId) {
    for (const [id, entry] of this.asking) if (entry.windowId === windowId) this.settle(id, 'closed');
  }
}

// The kinds of capture events that carry what a page did or showed; tab
// events (a tab's URL and title, its owner) stay, as chrome.tabs shows them.
const CONTENT_KINDS = new Set(['log', 'error', 'network', 'action', 'nav', 'vital', 'websocket']);

/**
 * AllowedCache keeps the user's list in memory for the capture path, which
 * decides per event: withholds(event) is true for what a page of an origin
 * neither local nor allowed did (console, errors, network, actions,
 * navigations, vitals, WebSocket frames), which the worker then holds in
 * the browser (held.js) instead of sending it to the daemon, so no observe
 * reads it before the user allowed its origin. Until the list is read,
 * every such origin counts as not allowed; loaded(allowed) is called with
 * the list each time it is read (at start, after each change), so what was
 * held of an origin now allowed goes.
 */
export class AllowedCache {
  constructor(storage, onChanged, loaded = () => {}) {
    this.allowed = new Set();
    const load = () => storage.get(ALLOWED_KEY).then((got) => {
      const list = got?.[ALLOWED_KEY];
      this.allowed = new Set(list && typeof list === 'object' ? Object.keys(list) : []);
      loaded(this.allowed);
    }, () => {});
    this.ready = load();
    onChanged?.addListener((changes, area) => {
      if (area === 'local' && ALLOWED_KEY in changes) this.ready = load();
    });
  }

  withholds(event) {
    if (!CONTENT_KINDS.has(event?.kind)) return false;
    const origin = originOf(event.page_url);
    return Boolean(origin) && !isLocal(origin) && !this.allowed.has(origin);
  }
}
