// The browser actions a command can ask for, implemented with chrome.tabs and
// chrome.scripting. Each action takes the command's params and an AbortSignal
// (aborted when the command's final status is decided) and resolves to the
// "result" object of the command or throws CommandError.

import { pageRun, MAX_RESULT_CHARS } from './page.js';
import { CommandError } from './runner.js';

const LOAD_CHECK_MS = 1000; // safety-net re-check of a loading tab's status

/**
 * ACTIONS maps each supported action to its implementation. The daemon puts
 * the action in the query's "action" field (or in params.action).
 */
export const ACTIONS = {
  execute_js: executeJs,
  navigate,
  new_tab: newTab,
  switch_tab: switchTab,
  close_tab: closeTab,
  refresh,
  back,
  forward,
};

/**
 * runQuery executes one query from GET /pending-queries and resolves to its
 * result; it throws CommandError for an unknown type or action.
 */
export function runQuery(query, signal) {
  if (query.type && query.type !== 'browser_action') {
    throw new CommandError(`unknown query type ${JSON.stringify(query.type)}; this extension handles "browser_action" only`);
  }
  const params = query.params && typeof query.params === 'object' ? query.params : {};
  const action = query.action ?? params.action;
  const impl = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : null;
  if (!impl) {
    throw new CommandError(`unknown action ${action}; this extension supports ${Object.keys(ACTIONS).join(', ')}`);
  }
  return impl(params, signal);
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

async function executeJs(params) {
  const { script } = params;
  if (typeof script !== 'string' || !script.trim()) {
    throw new CommandError('execute_js needs "script": a JavaScript expression or function body, e.g. "document.title"');
  }
  const tab = await resolveTab(params.tab_id);
  let injected;
  try {
    injected = await chrome.scripting.executeScript({
      target: { tabId: tab.id },
      world: 'MAIN',
      func: pageRun,
      args: [script, MAX_RESULT_CHARS],
    });
  } catch (err) {
    throw new CommandError(injectionErrorText(err, tab));
  }
  const r = injected?.[0]?.result;
  if (!r || typeof r !== 'object') {
    throw new CommandError(`the script's page went away before it finished (tab ${tab.id} navigated, reloaded or closed); run it again once the page has loaded`);
  }
  if (!r.ok) throw new CommandError(pageFailureText(r));
  const out = { value: JSON.parse(r.json), tab_id: tab.id, url: r.url || tab.url || '' };
  if (r.type) out.type = r.type;
  if (r.hint) out.hint = r.hint;
  return out;
}

function pageFailureText(r) {
  switch (r.kind) {
    case 'syntax':
      return `the script does not compile: ${r.message}. It is compiled as an expression, else as the body of an async function (use "return" there to give back a value).`;
    case 'csp':
      return `the page's Content-Security-Policy blocks eval, so execute_js cannot run scripts on ${r.url} (${r.message}). ` +
        'Use a page (or a dev build) whose CSP allows \'unsafe-eval\'.';
    case 'compile':
      return `the page refused to compile the script: ${r.message}`;
    case 'thrown':
      return `Uncaught ${r.message}`;
    case 'not_serialisable':
      return `the script's result is not JSON-serialisable: ${r.message}. Return plain data instead: pick the fields you need, ` +
        'or use JSON.parse(JSON.stringify(x)).';
    case 'too_large':
      return `${r.message}; return less data (pick fields, slice arrays or strings).`;
    default:
      return `the script failed: ${r.message || r.kind}`;
  }
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

async function newTab(params, signal) {
  const url = params.url === undefined || params.url === '' ? undefined : checkURL(params.url, 'new_tab');
  const active = params.active === undefined ? true : Boolean(params.active);
  const created = await chrome.tabs.create({ url, active });
  if (!url) return { tab_id: created.id, url: created.pendingUrl || created.url || '' };
  const loaded = await loadAndWait(created.id, async () => {}, signal);
  return { tab_id: loaded.id, url: loaded.url, title: loaded.title ?? '' };
}

async function switchTab(params) {
  if (params.tab_id === undefined) throw new CommandError('switch_tab needs "tab_id", the id of the tab to activate');
  const tab = await resolveTab(params.tab_id);
  const updated = await chrome.tabs.update(tab.id, { active: true });
  await chrome.windows.update(updated.windowId, { focused: true });
  return { tab_id: updated.id, url: updated.url || updated.pendingUrl || '' };
}

async function closeTab(params) {
  const tab = await resolveTab(params.tab_id);
  await chrome.tabs.remove(tab.id);
  return { closed: tab.id };
}

async function refresh(params, signal) {
  const tab = await resolveTab(params.tab_id);
  const loaded = await loadAndWait(tab.id, () => chrome.tabs.reload(tab.id), signal);
  return { tab_id: loaded.id, url: loaded.url, title: loaded.title ?? '' };
}

async function back(params, signal) {
  return historyStep(params, signal, 'back', (id) => chrome.tabs.goBack(id));
}

async function forward(params, signal) {
  return historyStep(params, signal, 'forward', (id) => chrome.tabs.goForward(id));
}

async function historyStep(params, signal, name, go) {
  const tab = await resolveTab(params.tab_id);
  const loaded = await loadAndWait(tab.id, async () => {
    try {
      await go(tab.id);
    } catch (err) {
      throw new CommandError(`cannot go ${name} in tab ${tab.id}: ${err.message}`);
    }
  }, signal);
  return { tab_id: loaded.id, url: loaded.url, title: loaded.title ?? '' };
}

/**
 * resolveTab returns the tab named by tabId, or, when tabId is absent, the
 * active tab of the last focused normal window.
 */
export async function resolveTab(tabId) {
  if (tabId !== undefined && tabId !== null && tabId !== '') {
    const id = Number(tabId);
    if (!Number.isInteger(id) || id < 0) throw new CommandError(`tab_id must be a tab's integer id, got ${JSON.stringify(tabId)}`);
    try {
      return await chrome.tabs.get(id);
    } catch {
      throw new CommandError(`no tab with id ${id} (it may have been closed); omit tab_id to use the active tab`);
    }
  }
  let win;
  try {
    win = await chrome.windows.getLastFocused({ populate: true, windowTypes: ['normal'] });
  } catch {
    throw new CommandError('no browser window is open; open one (or use new_tab) and try again');
  }
  const tab = win?.tabs?.find((t) => t.active);
  if (!tab) throw new CommandError('the last focused window has no active tab; pass tab_id or use new_tab');
  return tab;
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
 */
function loadAndWait(tabId, start, signal) {
  return new Promise((resolve, reject) => {
    let settled = false;
    let timer;
    const cleanup = () => {
      settled = true;
      clearInterval(timer);
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
      if (!settled && tab.status === 'complete' && !tab.pendingUrl) {
        cleanup();
        resolve(tab);
      }
    };
    const onUpdated = (id, info) => {
      if (id === tabId && info.status === 'complete') check();
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
        check();
        timer = setInterval(check, LOAD_CHECK_MS);
      }, (err) => fail(err instanceof CommandError ? err : new CommandError(err?.message || String(err))));
  });
}
