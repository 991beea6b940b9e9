// The worker side of the DOM actions: each handler resolves the tab and the
// frame, sends one request to the document's runtime (runtime.js) with
// chrome.tabs.sendMessage(tabId, msg, {documentId}), and shapes the
// answer. Facts about the tab (id, url) come from chrome.tabs here, never
// from the page. Handlers take (params, signal, ctx) where ctx.deadlineMs is
// the command's execution deadline, and resolve to the command's result or
// throw CommandError.

import { CommandError } from '../runner.js';
import { resolveTab } from '../tabs/resolve.js';
import { targetOf, frameOfRef, prefixFor, failureText, reasonOf, pageBudget, describeTarget } from './target.js';
import { nativeDialog, nativeDialogText, actionDialogs } from './dialog.js';
import { probeFrame, watchRequests, tabStreams, flushPolls, storeFlush, flushProbe } from '../capture/worker.js';
import { Settler, SETTLE_CAP_MS } from '../capture/settle.js';
import { ensureRuntime } from './inject.js';
import { core } from './core.js';
import { pageMessage, takes } from './page-message.js';
import { watchWaiting } from './waiting.js';
import { subscribe } from '../listen.js';

// docs remembers, per tab, the document each frame had when the worker last
// talked to it: a ref from an older document is stale. Kept in
// chrome.storage.session too, so a restarted worker still knows.
const docs = new Map(); // tabId → {[frameId]: documentId}
const DOCS_KEY = (tabId) => `docs:${tabId}`;

async function knownDoc(tabId, frameId) {
  if (!docs.has(tabId)) {
    const got = await chrome.storage.session.get(DOCS_KEY(tabId)).catch(() => ({}));
    docs.set(tabId, got[DOCS_KEY(tabId)] || {});
  }
  return docs.get(tabId)[frameId];
}

function rememberDoc(tabId, frameId, documentId) {
  forgetClosedTabs();
  const m = docs.get(tabId) || {};
  if (m[frameId] === documentId) return;
  m[frameId] = documentId;
  docs.set(tabId, m);
  chrome.storage.session.set({ [DOCS_KEY(tabId)]: m }).catch(() => {});
}

// forgetClosedTabs drops a closed tab's documents; registered on first use,
// so that loading this module touches no chrome.* (node tests import it).
let forgetting = false;
function forgetClosedTabs() {
  if (forgetting) return;
  forgetting = true;
  chrome.tabs.onRemoved.addListener((tabId) => {
    docs.delete(tabId);
    chrome.storage.session.remove(DOCS_KEY(tabId)).catch(() => {});
  });
}

const GONE = /Receiving end does not exist|Could not establish connection|message port closed|message channel closed|No frame with id|No document with id|Frame with ID .* was removed|back\/forward cache/i;

/**
 * DocumentGone is thrown when the document went away during a request
 * (navigation, reload, close); call sets frameId, the frame it was in.
 */
class DocumentGone extends Error {}

/** RECEIVED are Chrome's words for a message the document's runtime took, and went away before answering. */
const RECEIVED = /message channel closed/i;

/**
 * frameDoc returns the documentId now in frame frameId of tab, or throws
 * CommandError when the frame is gone.
 */
async function frameDoc(tab, frameId) {
  return (await frameNow(tab, frameId)).documentId;
}

/** frameNow is frameDoc's frame: {documentId, url}. */
async function frameNow(tab, frameId) {
  let frame = null;
  try {
    frame = await chrome.webNavigation.getFrame({ tabId: tab.id, frameId });
  } catch { /* treated as gone */ }
  if (!frame || !frame.documentId) {
    throw new CommandError(frameId
      ? `frame ${frameId} of tab ${tab.id} is gone (the iframe was removed or navigated away); take a new snapshot`
      : `tab ${tab.id} has no document yet; wait for it to load (wait_for) and retry`);
  }
  return frame;
}

/**
 * send delivers msg ({op, ...fields}: page-message.js checks it) to the
 * runtime of documentId in tab, bringing the runtime first when the
 * document has none (an agent's first action there: actions/inject.js).
 * It throws DocumentGone when the document goes away before answering.
 */
async function send(tab, documentId, msg, mark) {
  const message = pageMessage(msg);
  try {
    await ensureRuntime(tab, documentId);
    mark?.('act: runtime');
  } catch (err) {
    const text = err?.message || String(err);
    if (GONE.test(text)) throw new DocumentGone(text);
    throw new CommandError(injectionText(tab, text));
  }
  try {
    return await chrome.tabs.sendMessage(tab.id, message, { documentId });
  } catch (err) {
    const text = err?.message || String(err);
    if (GONE.test(text)) throw new DocumentGone(text);
    throw new CommandError(`the page in tab ${tab.id} did not answer: ${text}`);
  }
}

function injectionText(tab, msg) {
  const url = tab.url || tab.pendingUrl || '';
  if (/^(chrome|chrome-extension|devtools|edge|view-source|chrome-search|chrome-untrusted):/i.test(url) || /cannot be scripted|Cannot access/i.test(msg)) {
    return `cannot act in tab ${tab.id} (${url}): Chrome does not let extensions into browser pages (chrome://, other extensions, the Web Store); navigate it to a web page first`;
  }
  if (/^file:/i.test(url)) {
    return `cannot act in tab ${tab.id} (${url}): file:// pages need "Allow access to file URLs" on the extension's details page (chrome://extensions). Chrome said: ${msg}`;
  }
  return `cannot reach the page in tab ${tab.id} (${url}): ${msg}`;
}

/**
 * call runs one runtime op for target in tab: it picks the frame (the
 * ref's, or the frame param's, else the top one), refuses a ref from an
 * older document as stale_ref, and returns the runtime's answer with the
 * frame and the document ({documentId, url}) it came from. A failure
 * answer throws CommandError with its reason; a tab frozen by a native
 * dialog fails at once (dialog.js). msg.flush true asks the runtime to
 * flush the document's capture once the op is done (flushAsk). judged,
 * a promise of the top document the origin rule judged (judgedFrame), pins
 * an op in the top frame to that document. Exported for its tests.
 */
export async function call(tab, frame, target, msg, { mark, judged } = {}) {
  const shown = await nativeDialog(tab.id);
  mark?.('act: dialog');
  if (shown) throw new CommandError(nativeDialogText(tab.id, shown));
  let frameId = 0;
  if (target?.ref) {
    frameId = frameOfRef(target.ref);
  } else if (has(frame)) {
    frameId = await frameIdOf(tab, String(frame));
  }
  const pinned = frameId === 0 ? await judgedFrame(judged) : null;
  const { documentId, url } = pinned ?? await frameNow(tab, frameId);
  mark?.('act: document');
  if (target?.ref) {
    const known = await knownDoc(tab.id, frameId);
    if (known && known !== documentId) {
      throw new CommandError(`stale_ref: ${target.ref} is from a page that has since navigated or reloaded; ` +
        'take a new snapshot with analyze({what:"dom"}) or query, and use its refs', { reason: 'stale_ref' });
    }
  }
  const prefix = takes(msg.op, 'prefix') ? prefixFor(frameId) : undefined;
  const { flush, ...rest } = msg;
  let resp;
  try {
    resp = await send(tab, documentId, flush ? { ...rest, target, prefix, flush: flushAsk(url) } : { ...rest, target, prefix }, mark);
  } catch (err) {
    // The judged document was gone before the message reached it: nothing ran.
    if (pinned && err instanceof DocumentGone && UNDELIVERED.test(err.message)) {
      throw new CommandError(`tab ${tab.id} navigated (a new document) before ${msg.action ?? msg.op} reached the page, so it did nothing; ` +
        'take a new snapshot with analyze({what:"dom"}) and retry on the new page if it is still needed', { reason: 'navigated' });
    }
    if (err instanceof DocumentGone) err.frameId = frameId;
    throw err;
  }
  rememberDoc(tab.id, frameId, documentId);
  if (!resp || typeof resp !== 'object') throw new DocumentGone('no answer');
  if (!resp.ok) throw new CommandError(failureText(resp), { reason: reasonOf(resp) });
  delete resp.ok;
  return { resp, frameId, documentId, url };
}

/** UNDELIVERED are Chrome's words for a message or injection that never reached its document. */
const UNDELIVERED = /No document with id|No frame with id/i;

/**
 * judgedFrame resolves judged (a promise of the tab's top document,
 * {documentId, url}, whose URL the origin rule judged: background.js
 * askTopFrame) to that document, or null when there is none: the action
 * in the top frame goes to it and asks Chrome nothing (issue 33).
 */
async function judgedFrame(judged) {
  const f = await Promise.resolve(judged).catch(() => null);
  return typeof f?.documentId === 'string' && typeof f.url === 'string' ? { documentId: f.documentId, url: f.url } : null;
}

/** flushAsk is an op's flush field for a document at url: the long polls known of its origin. */
const flushAsk = (url) => ({ polls: flushPolls(url) });

/**
 * keepFlushed stores the flush the runtime did in answer resp (op act or
 * changed with flush: actions/runtime/ops.js) of documentId, in frame
 * frameId of tabId at url, taking it off resp, and resolves to the stored
 * answer; null when resp holds none (no relay in that document).
 */
function keepFlushed(resp, tabId, frameId, documentId, url) {
  const answer = resp?.flushed;
  if (!answer || typeof answer !== 'object') return null;
  delete resp.flushed;
  return storeFlush(tabId, documentId, url, answer, frameId);
}

/**
 * frameIdOf returns the frame id of the iframe that selector names in the
 * tab's top document. Chrome gives content scripts no way to map an iframe
 * element to its frame id, so the top document's runtime posts a nonce
 * into the iframe and the worker asks the top document's child frames
 * which one received it.
 */
async function frameIdOf(tab, selector) {
  const top = await frameDoc(tab, 0);
  await childRuntimes(tab, 0);
  const nonce = crypto.randomUUID();
  const r = await send(tab, top, { op: 'frame', selector, nonce });
  if (!r?.ok) throw new CommandError(failureText(r), { reason: reasonOf(r) });
  const frames = (await chrome.webNavigation.getAllFrames({ tabId: tab.id })) || [];
  const kids = frames.filter((f) => f.parentFrameId === 0)
    .sort((a, b) => (b.url === r.src) - (a.url === r.src));
  for (let attempt = 0; attempt < 20; attempt++) {
    for (const f of kids) {
      const p = await send(tab, f.documentId, { op: 'probe', nonce }).catch(() => null);
      if (p?.match) return f.frameId;
    }
    await sleep(25);
  }
  throw new CommandError(`not_found: the iframe ${JSON.stringify(selector)} has no document this extension can reach yet (still loading, or a page Chrome does not let extensions into); wait and retry`, { reason: 'not_found' });
}

/**
 * childRuntimes brings the runtime into the documents of the frames under
 * frame parentId (every frame of the tab: parentId undefined) before a
 * runtime posts them nonces (ops "frame" and "outline"): a document
 * without one would miss its nonce. A frame that cannot take it (a browser
 * page, one gone meanwhile) is left out; asking it later fails as usual.
 */
async function childRuntimes(tab, parentId) {
  const frames = (await chrome.webNavigation.getAllFrames({ tabId: tab.id }).catch(() => null)) || [];
  const kids = frames.filter((f) => f.documentId && f.frameId !== 0 && (parentId === undefined || f.parentFrameId === parentId));
  await Promise.all(kids.map((f) => ensureRuntime(tab, f.documentId).catch(() => {})));
}

/**
 * navWatch feeds settler the top-level navigations of tabId (started,
 * committed, DOMContentLoaded or failed; a same-document one is started and
 * done at once) until stop() is called. started says one began, committed
 * that one replaced the document (or changed its url), failed is {url,
 * error} of the last one that ended before committing (a download, a 204,
 * a cancelled navigation: the page stayed). A navigation that starts
 * clears failed, and the end of one it replaced (navigation A, not
 * committed when B started: a link whose handler sets location, a double
 * submit) is not B's: Chrome aborts A (net::ERR_ABORTED) after B's
 * onBeforeNavigate, and webNavigation gives no navigation id, so the
 * first aborts after a replacement are taken as the replaced ones', one
 * each, whatever their url. frames holds the ids of the subframes a
 * navigation began in (frameLeft).
 */
export function navWatch(tabId, settler) {
  const w = { started: false, committed: false, newDocument: false, failed: null, done: false, inFlight: false, replaced: 0, frames: new Set(), listeners: [] };
  const on = (event, fn) => w.listeners.push(subscribe(event, fn));
  on(chrome.webNavigation.onBeforeNavigate, (d) => {
    if (d.tabId === tabId && d.frameId !== 0) w.frames.add(d.frameId);
  });
  const top = (fn) => (d) => {
    if (d.tabId === tabId && d.frameId === 0) fn(d);
  };
  on(chrome.webNavigation.onBeforeNavigate, top((d) => {
    if (w.inFlight) w.replaced++; // Chrome aborts the one in flight
    w.started = true;
    w.done = false;
    w.failed = null;
    w.inFlight = true;
    settler.navStarted(d.url);
  }));
  on(chrome.webNavigation.onCommitted, top((d) => {
    w.started = true;
    w.committed = true;
    w.newDocument = true; // not set by a same-document navigation (below)
    w.inFlight = false;
    settler.navCommitted(d.url);
  }));
  const ready = top(() => {
    w.done = true;
    w.inFlight = false;
    settler.navReady();
  });
  on(chrome.webNavigation.onDOMContentLoaded, ready);
  on(chrome.webNavigation.onCompleted, ready);
  on(chrome.webNavigation.onErrorOccurred, top((d) => {
    if (w.replaced > 0 && d.error === 'net::ERR_ABORTED') {
      w.replaced--; // a replaced navigation's end, not the one in progress
      return;
    }
    if (!w.committed) w.failed = { url: d.url, error: d.error };
    ready(d);
  }));
  const same = top((d) => {
    w.started = true;
    w.committed = true;
    settler.navStarted(d.url);
    ready(d);
  });
  on(chrome.webNavigation.onHistoryStateUpdated, same);
  on(chrome.webNavigation.onReferenceFragmentUpdated, same);
  w.stop = () => w.listeners.forEach((off) => off());
  return w;
}

/**
 * openWatch feeds settler the tabs opened from tabId (a target=_blank link
 * or form, window.open) until stop() is called, each followed to its first
 * DOMContentLoaded. opened maps their ids to the url they were opened on
 * (at most MAX_REQUESTS_LISTED); more counts the tabs opened beyond them.
 */
export function openWatch(tabId, settler) {
  const w = { opened: new Map(), more: 0, listeners: [] };
  const on = (event, fn) => w.listeners.push(subscribe(event, fn));
  on(chrome.webNavigation.onCreatedNavigationTarget, (d) => {
    if (d.sourceTabId !== tabId || w.opened.has(d.tabId)) return;
    if (w.opened.size >= MAX_REQUESTS_LISTED) {
      w.more++; // said as more_tabs, not followed
      return;
    }
    w.opened.set(d.tabId, d.url);
    settler.tabOpened(d.tabId, d.url);
  });
  const ready = (d) => {
    if (d.frameId === 0 && w.opened.has(d.tabId)) settler.tabReady(d.tabId);
  };
  on(chrome.webNavigation.onDOMContentLoaded, ready);
  on(chrome.webNavigation.onCompleted, ready);
  on(chrome.webNavigation.onErrorOccurred, ready);
  on(chrome.tabs.onRemoved, (id) => ready({ tabId: id, frameId: 0 }));
  w.stop = () => w.listeners.forEach((off) => off());
  return w;
}

/**
 * frameLeft says whether a document that went away during an action in a
 * subframe (err: DocumentGone from call) went because of the action: its
 * runtime took the message (RECEIVED) and a navigation began in that frame
 * meanwhile (watch: navWatch), as a form posted in an iframe, or a link
 * followed there, does. The action is then done, as when the top document
 * navigates (acting).
 */
export const frameLeft = (watch, err) => err.frameId > 0 && watch.frames.has(err.frameId) && RECEIVED.test(err.message);

/** MAX_REQUESTS_LISTED is how many of the requests (or tabs) an action started its effects list. */
const MAX_REQUESTS_LISTED = 5;

/**
 * settleCap is how long an action follows its consequences: settle_ms
 * (0 reports at once), else SETTLE_CAP_MS, within the command's deadline.
 */
function settleCap(params, ctx, started) {
  const asked = params.settle_ms ?? SETTLE_CAP_MS; // 0 to 30000: the contract's bounds
  return Math.max(0, Math.min(asked, ctx.deadlineMs - (Date.now() - started) - 500));
}

/**
 * acting runs one element action in the tab params name, then follows what
 * it started (capture/settle.js): a navigation to its DOMContentLoaded,
 * requests to their status, short timers its handlers scheduled, and a
 * quiet moment, up to settle_ms. It returns the result with the tab, the
 * url after it and its effects: navigated (url_before, url, title), the
 * fetch/XHR requests with their status, dialogs, settled (or pending: what was
 * still under way at the cap), streaming (long-lived requests, not waited
 * for) and changed (what the action changed on the page: actions/changed.js). The daemon adds errors and failed requests
 * from the capture buffers (internal/tools/effects.go). A targetless action
 * (fill_form) declares no target params and names its elements in opts;
 * one that reads (reads: get_text) follows nothing and reports no effects.
 */
export async function acting(action, params, signal, ctx, opts, { needsTarget = true, targetless = false, reads = false } = {}) {
  const target = targetless ? null : targetOf(params);
  if (!target && needsTarget) {
    throw new CommandError(`${action} needs a target: ref (from analyze({what:"dom"}) or query), selector, text, or role with name`);
  }
  const started = Date.now();
  const capMs = reads ? 0 : settleCap(params, ctx, started);
  const tab = await resolveTab(params.tab_id);
  ctx.mark?.('act: tab');
  const before = tab.url || '';
  let frameId = 0;
  let doc = null; // {documentId, url}: the document the action ran in
  // The runtime flushes the document's capture once it has acted (op act
  // with flush): that flush's answer is the settler's first probe, unless
  // a navigation began meanwhile (the new document is asked then). issue 33
  let firstProbe = null;
  const probe = () => {
    const p = firstProbe;
    firstProbe = null;
    return p && !watch.started ? p : probeFrame(tab.id, undefined, frameId);
  };
  const settler = new Settler({ capMs, probe });
  const watch = navWatch(tab.id, settler);
  const opens = reads ? null : openWatch(tab.id, settler);
  const { requests, stop: stopRequests } = requestWatch(tab.id, settler);
  const stopWaiting = watchWaiting(tab.id, ctx.onWaiting);
  let resp;
  let ended = Date.now(); // when the action answered (a popup blocked after it is its own for LATE_MS)
  let settled = null;
  try {
    try {
      let documentId, url;
      const judged = ctx.topFrame?.tabId === tab.id ? ctx.topFrame.frame : null;
      ({ resp, frameId, documentId, url } = await call(tab, params.frame, target, { op: 'act', action, opts, timeout_ms: pageBudget(ctx.deadlineMs), flush: !reads }, { mark: ctx.mark, judged }));
      doc = { documentId, url };
      const stored = keepFlushed(resp, tab.id, frameId, documentId, url);
      firstProbe = stored?.then(flushProbe) ?? null;
    } catch (err) {
      if (!(err instanceof DocumentGone)) throw err;
      if (!watch.started && !frameLeft(watch, err)) throw new CommandError(`the page in tab ${tab.id} went away during ${action} (it closed or reloaded); check it and retry`);
      resp = {}; // the action made the page navigate before it could answer
    }
    ended = Date.now();
    ctx.mark?.('act: answered');
    settler.noteStreams(tabStreams(tab.id)); // the tab's WebSockets and event streams, opened before
    if (!reads) settled = await untilAborted(settler.settle(), signal);
  } finally {
    watch.stop();
    opens?.stop();
    stopRequests();
    stopWaiting();
  }
  ctx.mark?.('act: settled');
  // The tab after the action, asked beside what it changed, which comes
  // with the document's capture flush (op changed with flush): the flush
  // after the command asks neither again (onFrames). A new document has no
  // record of what the action changed: not asked.
  const asked = chrome.tabs.get(tab.id);
  asked.catch(() => {});
  let changed = null;
  if (!reads && !watch.newDocument && doc) {
    const got = await changedIn(tab, frameId, doc);
    changed = got.changed;
    if (got.flushed) ctx.onFrames?.(tab.id, null, { flushed: { documentId: doc.documentId, stored: got.flushed }, tab: asked });
  }
  ctx.mark?.('act: changed');
  const after = await asked.catch(() => null);
  const { dialogs, ...rest } = resp;
  const out = { tab_id: tab.id, url: after?.url || after?.pendingUrl || before, ...rest };
  if (reads) return out;
  out.effects = await effectsOf(out, { watch, settler, before, after, requests, dialogs, tabId: tab.id, started, opens, frameId, ended, settled, changed });
  return out;
}

/**
 * effectsOf is an action's effects (acting) from what followed it: the
 * navigation (watch: navWatch), the requests listed (requestWatch), the
 * dialogs it caused, the tabs it opened (opens: openWatch), whether it
 * settled and what it changed. out is its result so far (its url).
 */
async function effectsOf(out, { watch, settler, before, after, requests, dialogs, tabId, started, opens, frameId, ended, settled, changed }) {
  const effects = {};
  Object.assign(effects, navEffects(watch, settler.navigating, before, out.url, after?.title));
  const listed = [...requests.values()];
  if (listed.length) {
    effects.requests = listed.slice(0, MAX_REQUESTS_LISTED).map((q) => ({ method: q.method, url: q.url, status: q.error ? `failed: ${q.error}` : q.status ?? 'pending' }));
    if (listed.length > MAX_REQUESTS_LISTED) effects.more_requests = listed.length - MAX_REQUESTS_LISTED;
  }
  const listedDialogs = actionDialogs(dialogs, tabId, started, opens?.opened, { frameId, ended });
  if (listedDialogs.length) effects.dialogs = listedDialogs;
  if (opens?.more) effects.more_tabs = opens.more;
  if (opens?.opened.size) {
    effects.new_tabs = await Promise.all([...opens.opened].map(async ([id, url]) => {
      const t = await chrome.tabs.get(id).catch(() => null);
      return t ? { tab_id: id, url: t.url || t.pendingUrl || url, title: t.title || '' } : { tab_id: id, url, closed: true };
    }));
  }
  effects.settled = settled?.settled === true;
  if (settled?.streaming) effects.streaming = settled.streaming;
  if (changed) effects.changed = changed;
  if (!effects.settled) effects.pending = settled?.pending ?? ['the command ended before settling'];
  return effects;
}

/**
 * requestWatch feeds settler the requests of tabId (capture/worker.js
 * watchRequests) until stop() is called; requests maps the ids of the
 * page's fetch/XHR calls (at most 100) to {method, url, status?, error?},
 * which an action's effects list. A new page's scripts and images are
 * waited for, not listed; an event stream is named as streaming.
 */
function requestWatch(tabId, settler) {
  const requests = new Map();
  const stop = watchRequests(tabId, (phase, r) => {
    if (phase === 'start') {
      if (r.type === 'main_frame') return; // the navigation stands for its document
      if (r.type === 'xmlhttprequest' && requests.size < 100) requests.set(r.id, { method: r.method, url: r.url });
      settler.requestStarted(r.id, r);
    } else if (phase === 'stream') {
      requests.delete(r.id);
      settler.requestStreaming(r.id, r);
    } else {
      const q = requests.get(r.id);
      if (q) Object.assign(q, r.error ? { status: 0, error: r.error } : { status: r.status });
      settler.requestEnded(r.id);
    }
  });
  return { requests, stop };
}

/** CHANGED_WAIT_MS bounds the wait for what an action changed (a page a dialog froze does not answer). */
const CHANGED_WAIT_MS = 200;

/**
 * changedIn asks document doc ({documentId, url}, in frame frameId of
 * tab: the one the action ran in, no navigation having replaced it) what
 * the last action changed there (actions/changed.js), with the flush of
 * its capture: {changed, flushed}, changed null when nothing changed or
 * the page did not answer in time (or went away), flushed the stored
 * flush (a promise: keepFlushed), null without one. The flush is stored
 * whenever the answer comes, even after the wait gave up on it.
 */
async function changedIn(tab, frameId, doc) {
  let timer;
  try {
    const asked = chrome.tabs.sendMessage(tab.id, pageMessage({ op: 'changed', flush: flushAsk(doc.url) }), { documentId: doc.documentId })
      .then((r) => ({ r, flushed: keepFlushed(r, tab.id, frameId, doc.documentId, doc.url) }));
    const got = await Promise.race([asked, new Promise((resolve) => {
      timer = setTimeout(() => resolve(null), CHANGED_WAIT_MS);
    })]);
    const r = got?.r;
    return { changed: r?.ok && r.changed && typeof r.changed === 'object' ? r.changed : null, flushed: got?.flushed ?? null };
  } catch {
    return { changed: null, flushed: null };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * navEffects is what an action's effects say of its navigation (watch:
 * navWatch's), given whether the settler still follows one (navigating):
 * navigated (url_before, url, title, loading while it loads), or
 * navigation_failed when one started and ended before committing. Never
 * navigation_failed while the tab navigates: a failure seen was of one
 * the next replaced.
 */
export function navEffects(watch, navigating, before, url, title) {
  if (watch.committed || url !== before || (watch.started && (!watch.failed || navigating))) {
    return { navigated: true, url_before: before, url, title: title || '', ...(navigating ? { loading: true } : {}) };
  }
  if (!watch.failed) return {};
  // It tried to go and did not commit: say so, not "navigated".
  const stayed = watch.failed.error === 'net::ERR_ABORTED';
  return { navigation_failed: { ...watch.failed, note: stayed ? 'the page stayed (a download, a 204 answer or a cancelled navigation)' : 'the tab may show the browser\'s error page' } };
}

// untilAborted resolves to what p resolves to, or to null once signal aborts.
export function untilAborted(p, signal) {
  if (!signal) return p;
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve) => {
    signal.addEventListener('abort', () => resolve(null), { once: true });
    p.then(resolve, () => resolve(null));
  });
}

// --- the actions with handlers of their own (the rest: verb.js) -----------------

/**
 * waitFor waits for one condition: a target attached / visible / hidden /
 * detached, text present or gone, the url matching, or the network idle.
 * A document that goes away meanwhile (the page navigated) is waited in
 * again in the next one, until the deadline.
 */
async function waitFor(params, signal, ctx) {
  const started = Date.now();
  const budget = pageBudget(ctx.deadlineMs);
  const remaining = () => Math.max(0, budget - (Date.now() - started));
  const tab = await resolveTab(params.tab_id);
  const target = targetOf(params);
  const kinds = [target && 'target', has(params.url) && 'url', params.network_idle === true && 'network_idle'].filter(Boolean);
  if (kinds.length !== 1) {
    throw new CommandError(kinds.length
      ? `wait_for waits for one thing, not ${kinds.join(' and ')}; call it once for each`
      : 'wait_for needs what to wait for: a target (ref, selector, role with name), text (with gone:true to wait until it disappears), url, or network_idle:true');
  }
  if (has(params.url)) return waitForURL(tab, String(params.url), remaining(), signal);
  if (params.network_idle === true) return waitForIdle(tab, IDLE_MS, remaining(), signal);
  // gone:true waits until the target is hidden or removed; else until it is visible.
  const state = params.gone === true ? 'hidden' : 'visible';
  const msg = target.text !== undefined
    ? { op: 'wait', text: target.text, gone: params.gone === true }
    : { op: 'wait', state };
  const tgt = msg.text !== undefined ? null : target;
  for (;;) {
    try {
      const { resp } = await call(tab, params.frame, tgt, { ...msg, timeout_ms: remaining() });
      return { tab_id: tab.id, url: (await chrome.tabs.get(tab.id)).url, waited_ms: Date.now() - started, ...resp };
    } catch (err) {
      if (!(err instanceof DocumentGone) && !/has no document yet/.test(err.message)) throw err;
      if (remaining() <= 0 || signal?.aborted) {
        throw new CommandError(`timeout: the page kept navigating while waiting for ${describeTarget(target)}; pass a larger timeout_ms`);
      }
      await sleep(100, signal);
    }
  }
}

const has = (v) => v !== undefined && v !== null && v !== '';

/** IDLE_MS is how long network_idle waits for no request in flight. */
const IDLE_MS = 500;

const sleep = (ms, signal) => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => {
    clearTimeout(t);
    resolve();
  }, { once: true });
});

async function waitForURL(tab, pattern, ms, signal) {
  const started = Date.now();
  for (;;) {
    const t = await chrome.tabs.get(tab.id).catch(() => null);
    if (!t) throw new CommandError(`tab ${tab.id} was closed while waiting for its url`);
    const url = t.url || t.pendingUrl || '';
    if (core.globMatch(url, pattern)) return { tab_id: tab.id, url, waited_ms: Date.now() - started };
    if (Date.now() - started >= ms || signal?.aborted) {
      throw new CommandError(`timeout: waited ${ms} ms for the url to match ${JSON.stringify(pattern)} (a substring, or a glob with *); it is ${url}`);
    }
    await sleep(50, signal);
  }
}

/**
 * waitForIdle resolves once tab has had no request in flight for idleMs,
 * counting with chrome.webRequest from the call on (requests begun before
 * it that end during it are not counted against idleness).
 */
function waitForIdle(tab, idleMs, ms, signal) {
  if (!chrome.webRequest) throw new CommandError('network_idle needs the webRequest permission, which this build of the extension lacks');
  const idle = Math.max(100, Math.min(idleMs || 500, 10000));
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const inflight = new Set();
    let last = Date.now();
    const filter = { urls: ['<all_urls>'], tabId: tab.id };
    const begin = (d) => {
      inflight.add(d.requestId);
      last = Date.now();
    };
    const end = (d) => {
      inflight.delete(d.requestId);
      last = Date.now();
    };
    chrome.webRequest.onBeforeRequest.addListener(begin, filter);
    chrome.webRequest.onCompleted.addListener(end, filter);
    chrome.webRequest.onErrorOccurred.addListener(end, filter);
    const stop = () => {
      clearInterval(timer);
      chrome.webRequest.onBeforeRequest.removeListener(begin);
      chrome.webRequest.onCompleted.removeListener(end);
      chrome.webRequest.onErrorOccurred.removeListener(end);
    };
    const timer = setInterval(() => {
      const now = Date.now();
      if (inflight.size === 0 && now - last >= idle) {
        stop();
        resolve({ tab_id: tab.id, idle_ms: now - last, waited_ms: now - started });
      } else if (now - started >= ms || signal?.aborted) {
        stop();
        reject(new CommandError(`timeout: the network of tab ${tab.id} was not idle for ${idle} ms within ${ms} ms (${inflight.size} requests in flight); ` +
          'a page that polls or streams is never idle: wait_for an element or text instead'));
      }
    }, 50);
  });
}

// --- reading the page ------------------------------------------------------------

/** MAX_WHOLE_CHARS bounds the outline sent to the daemon (its result limit is 10 MB). */
const MAX_WHOLE_CHARS = 4 * 1024 * 1024;

/**
 * dom returns the page's outline for analyze({what:"dom"}): the whole of
 * it as "value" (the daemon cuts it at max_tokens and keeps the rest
 * readable), with the count of interactive elements and of lines whose
 * text was cut.
 */
async function dom(params, signal, ctx) {
  const tab = await resolveTab(params.tab_id);
  const maxTokens = params.max_tokens; // 100 to 9000: the contract's bounds
  const scope = !has(params.scope) ? null : frameOfRef(params.scope) !== null ? { ref: String(params.scope) } : { selector: String(params.scope) };
  const started = Date.now();
  await childRuntimes(tab); // the outline posts each iframe's document a nonce
  const msg = { op: 'outline', interactive_only: params.interactive_only === true, max_chars: MAX_WHOLE_CHARS };
  const { resp, frameId } = await call(tab, undefined, null, { ...msg, scope, timeout_ms: pageBudget(ctx.deadlineMs) });
  await withFrames(tab, frameId, resp, msg, started + pageBudget(ctx.deadlineMs), 0);
  const out = { value: resp.text, interactive: resp.interactive, tab_id: tab.id, url: tab.url || '', title: tab.title || '' };
  if (maxTokens) out.max_tokens = maxTokens;
  if (resp.truncated) out.cut_at_chars = MAX_WHOLE_CHARS;
  if (resp.clipped) out.clipped = resp.clipped;
  return out;
}

/** MAX_FRAME_LEVELS bounds how deep iframes in iframes are read into the outline. */
const MAX_FRAME_LEVELS = 4;

/**
 * withFrames splices into an outline answer (resp, from frame frameId) the
 * outlines of the documents in its iframes, each indented under its
 * iframe's line with refs of that frame ("f7e2"), and adds their
 * interactive elements to resp's count. The runtime posted each iframe a
 * nonce; the frame that holds it is the iframe's. A frame that cannot be
 * read (gone, not answering, past the deadline) leaves its line alone.
 */
async function withFrames(tab, frameId, resp, msg, deadline, level) {
  if (!resp.frames?.length || resp.truncated || level >= MAX_FRAME_LEVELS) return;
  const all = (await chrome.webNavigation.getAllFrames({ tabId: tab.id }).catch(() => null)) || [];
  let kids = all.filter((f) => f.parentFrameId === frameId && f.documentId);
  const wanted = new Set(resp.frames.map((f) => f.nonce));
  const byNonce = new Map();
  // postMessage reaches the iframes a task later: ask again for a while
  // the frames that answer and hold none of the nonces yet.
  for (let attempt = 0; attempt < 20 && kids.length && byNonce.size < wanted.size && Date.now() < deadline; attempt++) {
    if (attempt) await sleep(25);
    const answers = await Promise.all(kids.map((f) => send(tab, f.documentId, { op: 'probed' }).catch(() => null)));
    kids = kids.filter((f, i) => {
      const p = answers[i];
      if (wanted.has(p?.nonce)) byNonce.set(p.nonce, f);
      return p?.ok && !wanted.has(p.nonce);
    });
  }
  const lines = resp.text.split('\n');
  for (const { line, nonce } of [...resp.frames].reverse()) {
    const f = byNonce.get(nonce);
    if (!f || Date.now() >= deadline) continue;
    const sub = await send(tab, f.documentId, { ...msg, prefix: prefixFor(f.frameId) }).catch(() => null);
    if (!sub?.ok) continue;
    rememberDoc(tab.id, f.frameId, f.documentId);
    await withFrames(tab, f.frameId, sub, msg, deadline, level + 1);
    if (!sub.text) continue;
    const indent = ' '.repeat(lines[line].length - lines[line].trimStart().length + 1);
    lines.splice(line + 1, 0, ...sub.text.split('\n').map((l) => indent + l));
    resp.interactive += sub.interactive || 0;
    resp.clipped = (resp.clipped || 0) + (sub.clipped || 0);
  }
  resp.text = lines.join('\n');
}

/** pageSummary returns url, title, headings, landmarks, forms, counts and a text excerpt in under 1 000 tokens. */
async function pageSummary(params) {
  const tab = await resolveTab(params.tab_id);
  const { resp } = await call(tab, undefined, null, { op: 'summary' });
  return { tab_id: tab.id, url: tab.url || '', title: tab.title || '', ...resp };
}

export { call as runtimeCall, injectionText };

export { waitFor, dom, pageSummary };
