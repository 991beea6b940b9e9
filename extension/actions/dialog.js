// The worker side of the page's dialogs (the page side is dialogs.js, in
// the MAIN world of every document):
//   - the dialog action arms an answer in every document of a tab for a
//     window (params.window_ms): the next confirm, prompt or beforeunload
//     gets it, alerts close, and nothing blocks the page meanwhile;
//   - the worker keeps which tabs show a native dialog (one the page opened
//     outside an agent's action and unarmed), as each document's end of
//     dialogs.js's channel (channel.js) tells it ({gasoline: "dialog", showing, type, message}; tab and frame
//     from the sender), or, in a document loaded while idle (no dialogs.js),
//     capture/lean-tell.js ({gasoline: "dialog", lean: "<kind>\n<message>"}). Such a dialog freezes its page, and without the
//     debugger permission no extension can close it: actions on that tab
//     fail at once with dialog_showing, saying to ask the user, instead of
//     running into their deadline;
//   - the worker keeps, per tab, the popups its documents reported blocked
//     just after an agent's action ended ({gasoline: "dialog", late: true,
//     type: "popup", message: url}: a handler's timer called window.open),
//     so the action still settling lists them (actionDialogs), with advice
//     written here: only the url comes from the page, and only the frame
//     the action acted in, within LATE_MS of its end, is believed.

import { CommandError } from '../runner.js';
import { resolveTab } from '../tabs/resolve.js';
import { reachTab } from '../tabs/reach.js';
import { within } from '../backoff.js';
import { pageMessage } from './page-message.js';
import { browserName, hidingClosesDialogs } from '../platform.js';

/** PROBE_MS is how long a frame that is said to show a native dialog has to answer a ping before it counts as frozen. */
export const PROBE_MS = 500;

const KEY = (tabId) => `dialog:${tabId}`;

// showing holds, per tab, the native dialog each frame shows: tabId →
// {[frameId]: {type, message, at}}. Kept in chrome.storage.session too, so a
// restarted worker still knows.
const showing = new Map();

async function shownIn(tabId) {
  if (!showing.has(tabId)) {
    const got = await chrome.storage.session.get(KEY(tabId)).catch(() => ({}));
    if (!showing.has(tabId)) showing.set(tabId, got[KEY(tabId)] || {});
  }
  return showing.get(tabId);
}

function save(tabId) {
  const m = showing.get(tabId) || {};
  if (Object.keys(m).length) chrome.storage.session.set({ [KEY(tabId)]: m }).catch(() => {});
  else chrome.storage.session.remove(KEY(tabId)).catch(() => {});
}

/**
 * LATE_MS is how long after an action's end a popup its page reports
 * blocked is still the action's: as long as settle follows the action at
 * most (capture/settle.js SETTLE_CAP_MS: a handler's timer and the timers
 * it sets in turn; dialogs.js has the same figure, a test checks).
 */
export const LATE_MS = 2000;

/** LATE_SLACK_MS covers the trip of the action's answer and of the report to the worker. */
const LATE_SLACK_MS = 250;

/** MAX_URL is the longest popup url kept (longer ones are dropped, never clipped). */
export const MAX_URL = 2048;

/** BLOCKED_ADVICE is what a blocked popup's answered says. */
export const BLOCKED_ADVICE = 'blocked (Chrome opens none for a script\'s click): open its url with interact({action:"new_tab", url})';

// blocked holds, per tab, the popups reported blocked after an action's
// end, newest last, at most 5: tabId → [{url, frameId, at}].
const blocked = new Map();

/**
 * blockedSince lists the popups frame frameId of tab tabId reported blocked
 * after an action's end, between t (Date.now()) and LATE_MS after ended
 * (when the action answered), as the action's dialogs: {type: "popup",
 * message: url, answered}.
 */
export function blockedSince(tabId, t, { frameId = 0, ended = Infinity } = {}) {
  return (blocked.get(tabId) || [])
    .filter((p) => p.at >= t && p.at <= ended + LATE_MS + LATE_SLACK_MS && p.frameId === frameId)
    .map((p) => ({ type: 'popup', message: p.url, answered: BLOCKED_ADVICE }));
}

/**
 * actionDialogs is what an action's effects list as its dialogs: those the
 * page reported while it acted (dialogs), then the popups frame
 * acted.frameId of tab tabId reported blocked after it ended (blockedSince
 * started; acted.ended is when the action answered), less the popups whose
 * url a tab the action opened shows (opened: tabId → url; a noopener
 * window.open returns null even when its tab opened). The runtime clips a
 * message to 200 characters ("…" last): a clipped url matches on its prefix.
 */
export function actionDialogs(dialogs, tabId, started, opened, acted) {
  const urls = [...(opened?.values() || [])];
  const shown = (m) => urls.some((u) => u === m || (m.length === 200 && m.endsWith('…') && u.startsWith(m.slice(0, -1))));
  return [...(dialogs || []), ...blockedSince(tabId, started, acted)].filter((d) => d.type !== 'popup' || !shown(String(d.message)));
}

/** lateUrl is the url of a late popup report, or null when it is none a tab could open. */
function lateUrl(msg) {
  if (msg.type !== 'popup' || typeof msg.message !== 'string' || msg.message.length > MAX_URL) return null;
  try {
    const { href } = new URL(msg.message);
    return href.length <= MAX_URL ? href : null;
  } catch {
    return null;
  }
}

/** LEAN_KINDS are the dialogs a document loaded idle reports (capture/lean-dialogs.js). */
const LEAN_KINDS = new Set(['alert', 'confirm', 'prompt', 'beforeunload']);

/**
 * leanReport reads the report of a document loaded idle
 * (capture/lean-tell.js: "<kind>\n<message>", sent just before the dialog
 * shows) as {type, message} (200 characters), or null when it is none.
 * No report says the dialog was answered: nativeDialog forgets it once the
 * page answers a ping.
 */
export function leanReport(text) {
  const nl = text.indexOf('\n');
  const type = text.slice(0, nl);
  if (nl < 0 || !LEAN_KINDS.has(type)) return null;
  return { type, message: text.slice(nl + 1, nl + 201) };
}

/** record notes that frame frameId of tab tabId shows dialog d, or none (d null). */
export async function record(tabId, frameId, d) {
  const m = await shownIn(tabId);
  if (d) m[frameId] = d;
  else if (frameId in m) delete m[frameId];
  else return;
  save(tabId);
}

/** forget drops what is known of tab tabId (frameId undefined) or of one of its frames. */
export function forget(tabId, frameId) {
  const m = showing.get(tabId);
  if (frameId === undefined || !m) {
    showing.set(tabId, {});
  } else {
    delete m[frameId];
  }
  save(tabId);
}

/**
 * watchDialogs listens for the documents' reports and forgets a tab's
 * dialogs when it closes or a frame loads a new document. Call it once,
 * synchronously at the worker's start (MV3 wakes a worker only for
 * listeners registered then).
 */
export function watchDialogs() {
  chrome.runtime.onMessage.addListener((msg, sender) => {
    if (sender.id !== chrome.runtime.id || msg?.gasoline !== 'dialog' || !sender.tab) return false;
    if (msg.late === true) {
      const url = lateUrl(msg);
      if (!url) return false;
      const list = blocked.get(sender.tab.id) || [];
      list.push({ url, frameId: sender.frameId ?? 0, at: Date.now() });
      blocked.set(sender.tab.id, list.slice(-5));
      return false;
    }
    if (typeof msg.lean === 'string') {
      const d = leanReport(msg.lean);
      if (d) record(sender.tab.id, sender.frameId ?? 0, { ...d, at: Date.now() });
      return false;
    }
    const d = msg.showing === true
      ? { type: String(msg.type).slice(0, 20), message: String(msg.message ?? '').slice(0, 200), at: Date.now() }
      : null;
    record(sender.tab.id, sender.frameId ?? 0, d);
    return false;
  });
  chrome.tabs.onRemoved.addListener((tabId) => {
    showing.delete(tabId);
    blocked.delete(tabId);
    chrome.storage.session.remove(KEY(tabId)).catch(() => {});
  });
  chrome.webNavigation.onCommitted.addListener((d) => {
    if (showing.get(d.tabId) && Object.keys(showing.get(d.tabId)).length) forget(d.tabId, d.frameId === 0 ? undefined : d.frameId);
  });
}

/**
 * nativeDialog returns the native dialog tab tabId shows, {frameId, type,
 * message, at}, or null. A frame said to show one must also fail to answer
 * a ping within PROBE_MS (a frozen page answers nothing); one that answers
 * is forgotten, so a lost report cannot block a tab for good.
 */
export async function nativeDialog(tabId) {
  const m = await shownIn(tabId);
  for (const [frame, d] of Object.entries(m)) {
    const frameId = Number(frame);
    if (await answers(tabId, frameId)) {
      await record(tabId, frameId, null);
      continue;
    }
    return { frameId, ...d };
  }
  return null;
}

// answers resolves to whether the frame answers a ping at all (an error
// is an answer) within PROBE_MS: a frame a native dialog holds does not.
function answers(tabId, frameId) {
  const ping = chrome.tabs.sendMessage(tabId, pageMessage({ op: 'ping' }), { frameId }).then(() => true, () => true);
  return within(ping, PROBE_MS, () => false);
}

/**
 * nativeDialogText is the error of an action refused because tabId shows
 * dialog d; closable says whether the dialog action can dismiss it
 * (platform.js hidingClosesDialogs: not in Firefox).
 */
export function nativeDialogText(tabId, d, now = Date.now(), closable = hidingClosesDialogs) {
  const ago = Math.max(0, Math.round((now - d.at) / 1000));
  const ask = 'ask the user to answer it in the browser, then retry';
  if (d.type === 'beforeunload') {
    return `dialog_showing: tab ${tabId} shows ${browserName}'s "Leave site?" prompt since ${ago} s (the page asks before it is left), so the page is frozen until someone answers it. ` +
      `An extension cannot close it (that needs the debugger permission): ${ask}. ` +
      'To leave such a page without the prompt, arm interact({action:"dialog", dialog:"accept"}) before navigating or closing the tab.';
  }
  return `dialog_showing: tab ${tabId} shows a native ${d.type}${d.message ? ` (${JSON.stringify(d.message)})` : ''} that the page opened ${ago} s ago ` +
    `outside any agent action, so the page is frozen until someone answers it: ${ask}` +
    (closable ? `, or dismiss it with interact({action:"dialog", dialog:"dismiss", tab_id:${tabId}}) (an extension can dismiss it, not accept it). `
      : ` (${browserName} keeps it until then: no extension can close it). `) +
    'Next time arm the answer first: interact({action:"dialog", dialog:"accept"}) (or "dismiss"), then the action that opens it.';
}

/**
 * dialog arms params.dialog ("accept" or "dismiss", with params.text for a
 * prompt) in every document of the tab for params.window_ms (else the
 * command's deadline). It resolves once armed, with the dialogs the top
 * document saw in the last minute.
 */
export async function dialog(params, signal, ctx) {
  const windowMs = Math.min(Math.max(1, Number(params.window_ms) || ctx.deadlineMs || 60000), 600000);
  const arm = { dialog: params.dialog, window_ms: windowMs, ...(typeof params.text === 'string' ? { text: params.text } : {}) };
  const tab = await resolveTab(params.tab_id);
  const shown = await nativeDialog(tab.id);
  if (shown) return dismissNative(tab, shown, params.dialog);
  let results = await armIn(tab, { tabId: tab.id, allFrames: true }, arm);
  // Documents open since before the extension started have no channel.js
  // or dialogs.js yet: bring the declared scripts (tabs/reach.js), then arm
  // them. The DOM runtime is not needed to arm.
  const bare = results.filter((r) => !r.result).map((r) => r.frameId);
  if (bare.length && await reachTab(tab, chrome, { loading: true }).catch(() => 0)) {
    const again = await armIn(tab, { tabId: tab.id, frameIds: bare }, arm).catch(() => []);
    results = [...results.filter((r) => r.result), ...again];
  }
  const armed = results.filter((r) => r.result);
  if (!armed.some((r) => r.frameId === 0)) {
    throw new CommandError(`could not arm the answer in tab ${tab.id}: its page did not take it (a browser page, or one still loading); retry once it has loaded`);
  }
  const out = { tab_id: tab.id, url: tab.url || tab.pendingUrl || '', armed: params.dialog, window_ms: windowMs, frames: armed.length };
  if (arm.text !== undefined) out.text = arm.text;
  const recent = armed.find((r) => r.frameId === 0)?.result?.recent;
  if (Array.isArray(recent) && recent.length) {
    out.recent = recent.slice(-5).map((r) => ({ type: String(r.type), message: String(r.message ?? '').slice(0, 200), answered: String(r.answered), ago_ms: Number(r.ago_ms) }));
  }
  return out;
}

/** SWITCH_ANSWER_MS bounds the wait for a page to answer once its tab was switched away from and back. */
export const SWITCH_ANSWER_MS = 1500;

/**
 * dismissNative answers the native dialog d that tab shows (nativeDialog)
 * as the dialog action asked, where Chrome lets an extension: Chrome
 * dismisses a tab's alert, confirm or prompt when the tab is hidden
 * (chromium's TabModalDialogManager: an alert's page goes on as if it was
 * closed, a confirm gets false, a prompt null), unless a debugger is
 * attached to the tab. So this shows the tab, then another tab of its
 * window, for a moment (the user sees it flick; a blank one is opened and closed when
 * the window has no other), shows again the tab that was in front, and
 * waits for the page to answer. Nothing else closes such a dialog without
 * the user but a navigation, which loses the page. It resolves to
 * {tab_id, url, answered: {type, message, answered}}; it throws
 * CommandError dialog_showing, with the dialog's text and what the user
 * must do, for an accept of a confirm or prompt (an extension can only
 * dismiss them), for "Leave site?" (Chrome keeps it across tab switches),
 * and when the page still does not answer. Where hiding a tab does not
 * close its dialog (closable false, platform.js: Firefox) it throws at
 * once, switching no tab.
 */
export async function dismissNative(tab, d, answer, api = chrome, closable = hidingClosesDialogs) {
  const what = `a native ${d.type}${d.message ? ` (${JSON.stringify(d.message)})` : ''}`;
  if (d.type === 'beforeunload' || !closable) throw new CommandError(nativeDialogText(tab.id, d, Date.now(), closable));
  if (answer === 'accept' && d.type !== 'alert') {
    throw new CommandError(`dialog_showing: tab ${tab.id} shows ${what}, which an extension can dismiss but not accept ` +
      '(accepting a native dialog needs the debugger permission): ask the user to accept it in the browser, then retry; ' +
      `or dismiss it with interact({action:"dialog", dialog:"dismiss", tab_id:${tab.id}}).`);
  }
  const front = (await api.tabs.query({ windowId: tab.windowId, active: true }))[0];
  const others = (await api.tabs.query({ windowId: tab.windowId })).filter((t) => t.id !== tab.id);
  const away = others.find((t) => !t.discarded) || others[0];
  const blank = away ? null : await api.tabs.create({ windowId: tab.windowId, url: 'about:blank', active: true });
  try {
    // Only a tab in front can be hidden: one behind holds a dialog only
    // while a debugger is attached (else Chrome does not block its page).
    if (front && front.id !== tab.id && !blank) await api.tabs.update(tab.id, { active: true });
    if (away) await api.tabs.update(away.id, { active: true });
  } finally {
    await api.tabs.update(front && front.id !== blank?.id ? front.id : tab.id, { active: true }).catch(() => {});
    if (blank) await api.tabs.remove(blank.id).catch(() => {});
  }
  const until = Date.now() + SWITCH_ANSWER_MS;
  while (!(await answers(tab.id, d.frameId ?? 0))) {
    if (Date.now() >= until) {
      throw new CommandError(`dialog_showing: tab ${tab.id} shows ${what} that ${browserName} did not close when its tab was hidden ` +
        '(it keeps it while a debugger is attached to the tab), so the page is frozen until someone answers it: ' +
        'ask the user to answer it in the browser, then retry.');
    }
  }
  await record(tab.id, d.frameId ?? 0, null);
  const answered = d.type === 'alert' ? 'accepted' : 'dismissed';
  return { tab_id: tab.id, url: tab.url || '', answered: { type: d.type, message: d.message ?? '', answered } };
}

async function armIn(tab, target, arm) {
  try {
    return await chrome.scripting.executeScript({ target, func: armPage, args: [arm], injectImmediately: true }) || [];
  } catch (err) {
    throw new CommandError(`cannot arm a dialog answer in tab ${tab.id} (${tab.url || tab.pendingUrl || ''}): ${err?.message || err}; ` +
      'browser pages (chrome://, the Web Store) cannot be scripted, and file:// pages need "Allow access to file URLs"');
  }
}

/**
 * armPage runs in a document's ISOLATED world: channel.js hands the answer
 * to dialogs.js (MAIN world) through their private channel and returns its
 * acknowledgement, {recent}, or null when the document has no channel.js or
 * no dialogs.js. Self-contained, as chrome.scripting serialises it.
 */
export function armPage(arm) {
  return globalThis.gasolineChannel?.arm?.(arm) ?? null;
}
