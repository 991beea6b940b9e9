// The tab actions: navigate, refresh, back, forward, new_tab, switch_tab
// and close_tab, with chrome.tabs (and the page's own history.go), each
// resolving once the tab has loaded what it asked for.

import { CommandError } from '../runner.js';
import { checkURL } from '../params.js';
import { resolveTab } from '../tabs/resolve.js';
import { injectionErrorText } from './execute.js';
import { navWatch, untilAborted } from './dom.js';
import { probeFrame, tabStreams } from '../capture/worker.js';
import { Settler, SETTLE_CAP_MS } from '../capture/settle.js';

const LOAD_CHECK_MS = 1000; // safety-net re-check of a loading tab's status

/**
 * HISTORY_SETTLE_MS is how long back, forward and refresh wait for the tab
 * to start navigating before they conclude nothing will happen (no page to
 * go to). Starting takes a few milliseconds; the margin covers a busy machine.
 */
export const HISTORY_SETTLE_MS = 3000;

export async function navigate(params, signal) {
  const url = checkURL(params.url, 'navigate');
  const tab = await resolveTab(params.tab_id);
  const loaded = await loadAndWait(tab.id, () => chrome.tabs.update(tab.id, { url }), signal);
  return landed(loaded, signal);
}

/**
 * newTab opens a tab at params.url and resolves once it has loaded. For an
 * agent, hooks.create opens it (tabs/owners.js: in the agent's own window,
 * tabs/windows.js); without one (a query without a client), in the last
 * focused window.
 */
export async function newTab(params, signal, { onCreated, create } = {}) {
  const url = !params.url ? undefined : checkURL(params.url, 'new_tab');
  const active = params.active === undefined ? true : Boolean(params.active);
  let created;
  try {
    created = create ? await create({ url, active }) : await chrome.tabs.create({ url, active });
  } catch (err) {
    if (!/no current window/i.test(err?.message || '')) throw err;
    // The last window was closed (the browser runs on, e.g. headless): open one.
    created = (await chrome.windows.create({ url, focused: active })).tabs[0];
  }
  if (onCreated) await onCreated(created);
  if (!url) return { tab_id: created.id, url: created.pendingUrl || created.url || '' };
  const loaded = await loadAndWait(created.id, async () => {}, signal);
  return landed(loaded, signal);
}

// switchTab makes the tab the one shown in its window. It does not focus
// the window: the browser stays behind the editor the user is typing in.
export async function switchTab(params) {
  const tab = await resolveTab(params.tab_id);
  const updated = await chrome.tabs.update(tab.id, { active: true });
  return { tab_id: updated.id, url: updated.url || updated.pendingUrl || '' };
}

export async function closeTab(params) {
  const tab = await resolveTab(params.tab_id);
  await chrome.tabs.remove(tab.id);
  return { closed: tab.id };
}

export async function refresh(params, signal) {
  const tab = await resolveTab(params.tab_id);
  if (!tab.url && !tab.pendingUrl) {
    throw new CommandError(`tab ${tab.id} has no URL to reload (no page ever loaded in it); navigate it to a URL instead`);
  }
  const loaded = await loadAndWait(tab.id, () => chrome.tabs.reload(tab.id), signal, {
    settleMs: HISTORY_SETTLE_MS,
    nothing: `tab ${tab.id} did not start reloading within ${HISTORY_SETTLE_MS} ms; try again, or navigate to its url`,
  });
  return landed(loaded, signal);
}

export function back(params, signal) {
  return historyStep(params, signal, -1);
}

export function forward(params, signal) {
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
  return landed(loaded, signal);
}

/**
 * landed is the result of a navigation that loaded tab: its tab, url and
 * title once what the page does right after loading has settled
 * (settleLoad), with settled:false and pending when it did not go quiet.
 */
async function landed(tab, signal) {
  const r = await settleLoad(tab, signal);
  const out = { tab_id: r.tab.id, url: r.tab.url, title: r.tab.title ?? '' };
  if (!r.settled) Object.assign(out, { settled: false, pending: r.pending });
  if (r.streaming) out.streaming = r.streaming;
  return out;
}

/** MAX_HOPS is how many script redirects after a load a navigation follows. */
const MAX_HOPS = 3;

/**
 * settleLoad follows what a page does right after its load event, as an
 * action's settle does (capture/settle.js): the short timers it set while
 * loading (and those their callbacks set), the fetch/XHR they start, and a
 * navigation they start (a script redirect: location.replace, a form
 * submitted by script), followed to that page's load and settled there.
 * The settling is bounded by capMs in all; a redirect's own load is waited
 * for as navigate waits for a load. A page with nothing pending costs one
 * flush of its top frame. Resolves to {tab, settled, pending?}; tab is the tab as it is at
 * the end.
 */
export async function settleLoad(tab, signal, capMs = SETTLE_CAP_MS) {
  const end = Date.now() + capMs;
  const probe = () => probeFrame(tab.id, undefined, 0);
  for (let hop = 0; ; hop++) {
    const first = await probe();
    let r = { settled: true };
    // Long-lived requests (the page's event streams, WebSockets, long
    // polls) are named, not waited for.
    const settler = new Settler({ capMs: Math.max(0, end - Date.now()), probe, load: true });
    settler.noteStreams(tabStreams(tab.id));
    settler.noteStreams(first?.streams);
    // null: the frame did not answer in time; page false: its relay did, but
    // not the page script, whose count of timers is unknown then
    if (!first || first.page === false || first.timers || first.action_requests || first.navigating) {
      const watch = navWatch(tab.id, settler);
      try {
        r = await untilAborted(settler.settle(), signal);
      } finally {
        watch.stop();
      }
      if (!r) throw signal.reason;
    }
    // and those the worker heard of while it settled (an EventSource's
    // request headers can come after the load event)
    settler.noteStreams(tabStreams(tab.id));
    if (settler.streams.size) r.streaming = settler.streaming();
    const now = await chrome.tabs.get(tab.id).catch(() => null);
    if (!now) throw new CommandError(`tab ${tab.id} was closed while loading`);
    const moved = now.status !== 'complete' || now.pendingUrl || now.url !== tab.url;
    if (!moved) return { tab: now, ...r };
    if (hop >= MAX_HOPS) {
      return { tab: now, settled: false, pending: [`the page changed the tab's url again after ${MAX_HOPS} changes (script redirects or history entries); it is now at ${now.pendingUrl || now.url}`] };
    }
    tab = await loadAndWait(tab.id, async () => {}, signal);
    if (Date.now() >= end) {
      return { tab, settled: false, pending: [`what ${tab.url} does after loading was not followed: the ${capMs} ms for a load's timers and redirects were used up`] };
    }
  }
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
