// The browser actions a command can ask for, implemented with chrome.tabs and
// chrome.scripting. Each action takes the command's params and an AbortSignal
// (aborted when the command's final status is decided) and resolves to the
// "result" object of the command or throws CommandError.

import * as dom from './actions/dom.js';
import { dialog } from './actions/dialog.js';
import { upload } from './actions/upload.js';
import { screenshot } from './actions/screenshot.js';
import { drawModeShow } from './overlay/worker.js';
import { readPageResult } from './jsresult.js';
import { pageRun, scriptSources, MAX_RESULT_CHARS } from './page.js';
import { CommandError, deadlineOf } from './runner.js';
import { evalRefused, runInUserScriptWorld } from './userscripts/execute.js';
import { reachTab } from './tabs/reach.js';
import { probeTab, PROBE_MS } from './tabs/hung.js';
import { resolveTab } from './tabs/resolve.js';

const LOAD_CHECK_MS = 1000; // safety-net re-check of a loading tab's status

/**
 * HISTORY_SETTLE_MS is how long back, forward and refresh wait for the tab
 * to start navigating before they conclude nothing will happen (no page to
 * go to). Starting takes a few milliseconds; the margin covers a busy machine.
 */
export const HISTORY_SETTLE_MS = 3000;

/**
 * ACTIONS maps each supported action to its implementation. The daemon puts
 * the action in the query's "action" field (or in params.action).
 */
export const ACTIONS = {
  execute_js: executeJs,
  navigate,
  refresh,
  back,
  forward,
  new_tab: newTab,
  switch_tab: switchTab,
  close_tab: closeTab,
  click: dom.click,
  hover: dom.hover,
  type: dom.type,
  fill: dom.fill,
  select: dom.select,
  check: dom.check,
  uncheck: dom.uncheck,
  key_press: dom.keyPress,
  scroll_to: dom.scrollTo,
  wait_for: dom.waitFor,
  get_text: dom.getText,
  query: dom.query,
  dialog,
  upload,
  dom: dom.dom,
  page_summary: dom.pageSummary,
  screenshot,
  draw_mode_show: drawModeShow,
};

/**
 * runQuery executes one query from GET /pending-queries and resolves to its
 * result; it throws CommandError for an unknown type or action. Each action
 * gets (params, signal, {deadlineMs, ...hooks}), deadlineMs its execution
 * deadline; hooks.onCreated(tab) is awaited when new_tab has created its tab
 * (tabs/owners.js makes it the agent's there).
 */
export function runQuery(query, signal, hooks = {}) {
  if (query.type && query.type !== 'browser_action') {
    throw new CommandError(`unknown query type ${JSON.stringify(query.type)}; this extension handles "browser_action" only`);
  }
  const params = query.params && typeof query.params === 'object' ? query.params : {};
  const action = query.action ?? params.action;
  const impl = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : null;
  if (!impl) {
    throw new CommandError(`unknown action ${action}; this extension supports ${Object.keys(ACTIONS).join(', ')}`);
  }
  return impl(params, signal, { ...hooks, deadlineMs: deadlineOf(query) });
}

/** timeoutMessage is the "error" text of a command of this action that passed its deadline. */
export function timeoutMessage(action, ms) {
  switch (action) {
    case 'execute_js':
      return `the script ran past its deadline of ${ms} ms and may still be running in the page; ` +
        'its result will be ignored. Make it finish sooner (do not await events that may never come) or pass a larger timeout_ms.';
    case 'navigate':
    case 'new_tab':
    case 'refresh':
    case 'back':
    case 'forward':
      return `the page did not finish loading within ${ms} ms; it may still be loading. ` +
        'execute_js can still run on it, or retry with a larger timeout_ms.';
    default:
      return `${action} did not finish within its deadline of ${ms} ms.`;
  }
}

// --- execute_js -----------------------------------------------------------

/**
 * executeJs runs the agent's script in the MAIN world of the tab's top
 * document, at once even while the page is still loading (injectImmediately:
 * a page that streams forever is a normal thing to inspect), and reads its
 * value with built-ins the page cannot reach (page.js, pristine.js). The
 * result's tab_id and url come from chrome.tabs and chrome.webNavigation,
 * never from the page, and "world": "MAIN" says that what the script computed
 * is the page's to influence. On a page whose CSP forbids eval it runs the
 * script in a USER_SCRIPT world instead (userscripts/execute.js; "world":
 * "USER_SCRIPT"). When the document changes under the script
 * (a navigation or reload), the command fails at once with reason
 * "navigated" instead of running into its deadline.
 */
async function executeJs(params, signal) {
  const { script } = params;
  if (typeof script !== 'string' || !script.trim()) {
    throw new CommandError('execute_js needs "script": a JavaScript expression or function body, e.g. "document.title"');
  }
  const tab = await resolveTab(params.tab_id);
  const frame = await chrome.webNavigation.getFrame({ tabId: tab.id, frameId: 0 }).catch(() => null);
  if (!frame && !(await probeTab(tab.id, PROBE_MS))) {
    // No document, and a script would never start: fail now, not at the deadline.
    throw new CommandError(noDocumentText(tab), { reason: 'tab_unresponsive' });
  }
  const documentId = frame?.documentId;
  const target = documentId ? { tabId: tab.id, documentIds: [documentId] } : { tabId: tab.id, frameIds: [0] };
  const watch = watchDocument(tab.id, documentId, signal);
  try {
    const { body, expr } = scriptSources(script);
    const run = () => watch.race(inject(tab, target, { func: pageRun, args: [body, expr, MAX_RESULT_CHARS] }));
    let injected = await run();
    if (injected.result?.kind === 'no_pristine') {
      // A document loaded before the extension started: no content script
      // ran at its start. Bring them all (capture too, tabs/reach.js); their
      // pristine built-ins are marked as the page's own.
      await watch.race(reachTab(tab).catch(() => 0));
      injected = await run();
    }
    if (injected.result?.kind === 'no_pristine') {
      // Still none (a page reachTab skips, such as one still loading):
      // save the built-ins now, marked as the page's own.
      await watch.race(inject(tab, target, { files: ['pristine.js'] }));
      await watch.race(inject(tab, target, { func: markPristineLate }));
      injected = await run();
    }
    if (injected.navigated) throw injected.navigated;
    const url = await documentURL(tab.id, injected.documentId ?? documentId);
    let world = 'MAIN';
    if (evalRefused(injected.result)) {
      // The page's CSP forbids eval in MAIN: run the script as a user script.
      world = 'USER_SCRIPT';
      injected = await watch.race(runInUserScriptWorld(tab, target, { body, expr, maxChars: MAX_RESULT_CHARS, url }));
      if (injected.navigated) throw injected.navigated;
    }
    const read = readPageResult(injected.result, { script, url, maxChars: MAX_RESULT_CHARS, world });
    const out = { value: read.value, tab_id: tab.id, url, world, builtins: read.builtins };
    if (read.type) out.type = read.type;
    if (read.hint) out.hint = read.hint;
    return out;
  } finally {
    watch.stop();
  }
}

/** markPristineLate runs in the page after a late injection of pristine.js. */
function markPristineLate() {
  if (typeof __gasolinePristine === 'object' && __gasolinePristine !== null) __gasolinePristine.markLate();
}

// inject runs one executeScript in the MAIN world of target, immediately,
// and resolves to its first InjectionResult ({} when there is none).
async function inject(tab, target, what) {
  let results;
  try {
    results = await chrome.scripting.executeScript({ target, world: 'MAIN', injectImmediately: true, ...what });
  } catch (err) {
    if (target.documentIds && /no document with id/i.test(err?.message || '')) {
      throw new CommandError(`tab ${tab.id} navigated (a new document) before the script started, so it did not run; ` +
        'run it again on the new page if it is still needed', { reason: 'navigated' });
    }
    throw new CommandError(injectionErrorText(err, tab));
  }
  return results?.[0] ?? {};
}

/**
 * watchDocument watches tab tabId while a script runs in its top document
 * documentId (undefined: the document current at the start). race(p)
 * settles like p unless, first, a new document commits in the tab's top
 * frame (CommandError, reason "navigated"), the tab closes, or signal
 * aborts. stop removes the listeners.
 */
function watchDocument(tabId, documentId, signal) {
  let fail;
  const broken = new Promise((_, reject) => {
    fail = reject;
  });
  broken.catch(() => {}); // observed through race
  const onCommitted = (d) => {
    if (d.tabId !== tabId || d.frameId !== 0 || (documentId && d.documentId === documentId)) return;
    fail(new CommandError(`tab ${tabId} navigated to ${d.url} (a new document) while the script was running, ` +
      'so the script was stopped and its result is lost; run it again on the new page if it is still needed', { reason: 'navigated' }));
  };
  const onReplaced = (added, removed) => {
    if (removed === tabId) {
      fail(new CommandError(`tab ${tabId} was replaced by tab ${added} (a prerendered page took its place) while the script was running; ` +
        `run it again with tab_id ${added}`, { reason: 'navigated' }));
    }
  };
  const onRemoved = (id) => {
    if (id === tabId) fail(new CommandError(`tab ${tabId} was closed while the script was running`));
  };
  const onAbort = () => fail(signal.reason);
  chrome.webNavigation.onCommitted.addListener(onCommitted);
  chrome.tabs.onReplaced.addListener(onReplaced);
  chrome.tabs.onRemoved.addListener(onRemoved);
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  // navigatedError is the error of a document that changed, if it did: an
  // injection that fails or comes back empty may have lost the race with
  // onCommitted.
  const navigatedError = async () => {
    if (!documentId) return null;
    const now = await chrome.webNavigation.getFrame({ tabId, frameId: 0 }).catch(() => null);
    if (!now || now.documentId === documentId) return null;
    return new CommandError(`tab ${tabId} navigated to ${now.url} (a new document) while the script was running, ` +
      'so its result is lost; run it again on the new page if it is still needed', { reason: 'navigated' });
  };
  return {
    race: (p) => Promise.race([
      Promise.resolve(p).then(
        async (r) => (r?.result === undefined || r?.result === null ? { ...r, navigated: await navigatedError() } : r),
        async (err) => {
          throw (await navigatedError()) ?? err;
        },
      ),
      broken,
    ]),
    stop() {
      chrome.webNavigation.onCommitted.removeListener(onCommitted);
      chrome.tabs.onReplaced.removeListener(onReplaced);
      chrome.tabs.onRemoved.removeListener(onRemoved);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

// documentURL is the URL of a tab's document as Chrome knows it.
async function documentURL(tabId, documentId) {
  if (documentId) {
    const frame = await chrome.webNavigation.getFrame({ tabId, documentId }).catch(() => null);
    if (frame?.url) return frame.url;
  }
  const tab = await chrome.tabs.get(tabId).catch(() => null);
  return tab?.url || tab?.pendingUrl || '';
}

// noDocumentText explains a tab Chrome lists no document in that does not
// run a probe script either: a tab opened while the browser was starting
// can stay so (showing its URL, holding an empty page), and a script sent
// to it would wait forever.
function noDocumentText(tab) {
  const url = tab.url || tab.pendingUrl || '';
  return `tab ${tab.id}${url ? ` (${url})` : ''} has no page loaded that scripts can run in (Chrome lists no document in it; ` +
    'a tab opened while the browser was starting can stay so). Navigate it to its page (interact({action:"navigate"})) or reload it with interact({action:"refresh"}), then retry.';
}

// injectionErrorText explains why Chrome refused to run a script in a tab.
function injectionErrorText(err, tab) {
  const msg = err?.message || String(err);
  const url = tab.url || tab.pendingUrl || '';
  const where = `tab ${tab.id}${url ? ` (${url})` : ''}`;
  if (/^(chrome|chrome-extension|chrome-untrusted|devtools|edge|view-source|chrome-search):/i.test(url) ||
      /cannot be scripted|Cannot access a chrome/i.test(msg)) {
    return `cannot run scripts in ${where}: Chrome does not let extensions script browser pages (chrome://, other extensions, the Web Store). ` +
      'Navigate the tab to a web page first, or pass the tab_id of another tab.';
  }
  if (/error page/i.test(msg)) {
    return `cannot run scripts in ${where}: the tab shows an error page (its last navigation failed). Navigate it to a working page first.`;
  }
  if (/^file:/i.test(url)) {
    return `cannot run scripts in ${where}: scripting file:// pages needs "Allow access to file URLs" on the extension's details page (chrome://extensions). Chrome said: ${msg}`;
  }
  return `cannot run scripts in ${where}: ${msg}`;
}

// --- tabs -----------------------------------------------------------------

async function navigate(params, signal) {
  const url = checkURL(params.url, 'navigate');
  const tab = await resolveTab(params.tab_id);
  const loaded = await loadAndWait(tab.id, () => chrome.tabs.update(tab.id, { url }), signal);
  return { tab_id: loaded.id, url: loaded.url, title: loaded.title ?? '' };
}

async function newTab(params, signal, { onCreated } = {}) {
  const url = params.url === undefined || params.url === '' ? undefined : checkURL(params.url, 'new_tab');
  const active = params.active === undefined ? true : Boolean(params.active);
  let created;
  try {
    created = await chrome.tabs.create({ url, active });
  } catch (err) {
    if (!/no current window/i.test(err?.message || '')) throw err;
    // The last window was closed (the browser runs on, e.g. headless): open one.
    created = (await chrome.windows.create({ url, focused: active })).tabs[0];
  }
  if (onCreated) await onCreated(created);
  if (!url) return { tab_id: created.id, url: created.pendingUrl || created.url || '' };
  const loaded = await loadAndWait(created.id, async () => {}, signal);
  return { tab_id: loaded.id, url: loaded.url, title: loaded.title ?? '' };
}

// switchTab makes the tab the one shown in its window. It does not focus
// the window: the browser stays behind the editor the user is typing in.
async function switchTab(params) {
  if (params.tab_id === undefined) throw new CommandError('switch_tab needs "tab_id", the id of the tab to activate');
  const tab = await resolveTab(params.tab_id);
  const updated = await chrome.tabs.update(tab.id, { active: true });
  return { tab_id: updated.id, url: updated.url || updated.pendingUrl || '' };
}

async function closeTab(params) {
  const tab = await resolveTab(params.tab_id);
  await chrome.tabs.remove(tab.id);
  return { closed: tab.id };
}

async function refresh(params, signal) {
  const tab = await resolveTab(params.tab_id);
  if (!tab.url && !tab.pendingUrl) {
    throw new CommandError(`tab ${tab.id} has no URL to reload (no page ever loaded in it); navigate it to a URL instead`);
  }
  const loaded = await loadAndWait(tab.id, () => chrome.tabs.reload(tab.id), signal, {
    settleMs: HISTORY_SETTLE_MS,
    nothing: `tab ${tab.id} did not start reloading within ${HISTORY_SETTLE_MS} ms; try again, or navigate to its url`,
  });
  return { tab_id: loaded.id, url: loaded.url, title: loaded.title ?? '' };
}

function back(params, signal) {
  return historyStep(params, signal, -1);
}

function forward(params, signal) {
  return historyStep(params, signal, 1);
}

/**
 * historyStep moves the tab delta entries through its session history and
 * resolves to the tab once the page it lands on has loaded. It uses the
 * page's own history.go: chrome.tabs.goBack and goForward act like the
 * browser's buttons, which skip entries the user never interacted with, so
 * after an agent's navigations they fail with "Cannot find a next page in
 * history", or in a visible browser skip the agent's pages and land on the
 * New Tab page the tab started with. The call runs in the extension's
 * isolated world, where the page cannot replace history.go. Only on a page
 * Chrome does not let extensions script (chrome://, the Web Store, an error
 * page), where no script ran, does it fall back to the buttons: when the
 * injection fails after history.go may have run (the page navigated away
 * and its reply was lost), pressing a button too would step twice, so the
 * wait for the navigation decides.
 */
export async function historyStep(params, signal, delta, settleMs = HISTORY_SETTLE_MS) {
  const name = delta < 0 ? 'back' : 'forward';
  const tab = await resolveTab(params.tab_id);
  const none = `tab ${tab.id} has no page to go ${name} to`;
  const loaded = await loadAndWait(tab.id, async () => {
    let injected;
    try {
      injected = await chrome.scripting.executeScript({
        target: { tabId: tab.id },
        func: historyGo,
        args: [delta],
        injectImmediately: true,
      });
    } catch (err) {
      if (!refusedScripting(err)) return;
      try {
        await (delta < 0 ? chrome.tabs.goBack(tab.id) : chrome.tabs.goForward(tab.id));
        return;
      } catch (buttonErr) {
        throw new CommandError(`cannot go ${name} in tab ${tab.id}: ${injectionErrorText(err, tab)} (the browser's ${name} button: ${buttonErr.message})`);
      }
    }
    if (injected?.[0]?.result === 1) throw new CommandError(`${none}: its history holds only the page it shows`);
  }, signal, { settleMs, nothing: `${none} (it did not navigate within ${settleMs} ms)` });
  return { tab_id: loaded.id, url: loaded.url, title: loaded.title ?? '' };
}

/**
 * refusedScripting reports whether executeScript failed because Chrome does
 * not let the extension script the page at all (so no script ran), as
 * opposed to losing the frame while or after the script ran.
 */
export function refusedScripting(err) {
  return /cannot access|cannot be scripted|error page|host permission|permission to access/i.test(err?.message || String(err));
}

/**
 * historyGo runs in the tab: it moves delta entries through the tab's
 * session history and returns the history's length. Self-contained, as
 * chrome.scripting serialises it.
 */
export function historyGo(delta) {
  history.go(delta);
  return history.length;
}

function checkURL(raw, action) {
  if (typeof raw !== 'string' || !raw.trim()) {
    throw new CommandError(`${action} needs "url", an absolute URL such as https://example.com`);
  }
  let u;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new CommandError(`${JSON.stringify(raw)} is not an absolute URL; include the scheme, e.g. https://${raw.trim()}`);
  }
  if (u.protocol === 'javascript:') throw new CommandError('javascript: URLs are not navigated; use execute_js to run code');
  if (!['http:', 'https:', 'file:', 'about:', 'data:', 'chrome:'].includes(u.protocol)) {
    throw new CommandError(`unsupported URL scheme ${JSON.stringify(u.protocol)} in ${JSON.stringify(raw)}; ` +
      `use http(s), e.g. http://${raw.trim()}`);
  }
  return u.href;
}

/**
 * loadAndWait runs start (which begins a navigation in tab tabId) and
 * resolves to the tab once it has finished loading: status "complete" and no
 * pending URL. It listens before starting, so a fast load is not missed, and
 * rejects with CommandError if the tab is closed, or with signal's reason
 * when signal aborts.
 *
 * With settleMs, start may leave the tab as it is (history.go with nowhere
 * to go): the tab must then be seen navigating (loading, or its URL
 * changing) before it counts as loaded, and if it has not started within
 * settleMs the wait fails with CommandError(nothing).
 */
export function loadAndWait(tabId, start, signal, { settleMs = 0, nothing = '' } = {}) {
  return new Promise((resolve, reject) => {
    let settled = false;
    let started = !settleMs;
    let timer;
    let settleTimer;
    const cleanup = () => {
      settled = true;
      clearInterval(timer);
      clearTimeout(settleTimer);
      chrome.tabs.onUpdated.removeListener(onUpdated);
      chrome.tabs.onRemoved.removeListener(onRemoved);
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (err) => {
      if (settled) return;
      cleanup();
      reject(err);
    };
    const check = async () => {
      if (settled) return;
      let tab;
      try {
        tab = await chrome.tabs.get(tabId);
      } catch {
        fail(new CommandError(`tab ${tabId} was closed while loading`));
        return;
      }
      if (!started && (tab.status !== 'complete' || tab.pendingUrl)) started = true;
      if (!settled && started && tab.status === 'complete' && !tab.pendingUrl) {
        cleanup();
        resolve(tab);
      }
    };
    const onUpdated = (id, info) => {
      if (id !== tabId) return;
      if (info.status === 'loading' || info.url !== undefined) started = true;
      if (info.status === 'complete' || info.url !== undefined) check();
    };
    const onRemoved = (id) => {
      if (id === tabId) fail(new CommandError(`tab ${tabId} was closed while loading`));
    };
    const onAbort = () => fail(signal.reason);
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    chrome.tabs.onUpdated.addListener(onUpdated);
    chrome.tabs.onRemoved.addListener(onRemoved);
    Promise.resolve()
      .then(start)
      .then(() => {
        if (settled) return;
        if (settleMs) {
          settleTimer = setTimeout(() => {
            if (!started) fail(new CommandError(nothing));
          }, settleMs);
        }
        check();
        timer = setInterval(check, LOAD_CHECK_MS);
      }, (err) => fail(err instanceof CommandError ? err : new CommandError(err?.message || String(err))));
  });
}
