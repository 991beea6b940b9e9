// execute_js: the agent's script in the MAIN world of a tab's top document
// (USER_SCRIPT world on a page whose CSP forbids eval), read with built-ins
// the page cannot reach, handed over a channel the page cannot see (page.js,
// pristine.js, pristine-relay.js, jsresult.js).

import { readPageResult } from '../jsresult.js';
import { markPristineLate, runInPristine, scriptSources, MAX_RESULT_CHARS, PAGE_RUN_SOURCE } from '../page.js';
import { CommandError } from '../runner.js';
import { evalRefused, runInUserScriptWorld } from '../userscripts/execute.js';
import { reachTab } from '../tabs/reach.js';
import { probeTab, PROBE_MS } from '../tabs/hung.js';
import { resolveTab } from '../tabs/resolve.js';
import { flushPolls, storeFlush } from '../capture/worker.js';
import { subscribe } from '../listen.js';

/**
 * executeJs runs the agent's script in the MAIN world of the tab's top
 * document, at once even while the page is still loading (injectImmediately:
 * a page that streams forever is a normal thing to inspect), and reads its
 * value with built-ins the page cannot reach, handed over a channel the page
 * cannot see (page.js, pristine.js, pristine-relay.js). The
 * result's tab_id and url come from chrome.tabs and chrome.webNavigation,
 * never from the page, and "world": "MAIN" says that what the script computed
 * is the page's to influence. On a page whose CSP forbids eval it runs the
 * script in a USER_SCRIPT world instead (userscripts/execute.js; "world":
 * "USER_SCRIPT"). When the document changes under the script
 * (a navigation or reload), the command fails at once with reason
 * "navigated" instead of running into its deadline. onLate, when given, is
 * called when the script settles after the command ended (its outcome is
 * dropped). onFrames(tabId, frames, {flushed, tab}), when given, gets the
 * tab's frames asked after a MAIN script ran (a promise of getAllFrames'
 * answer; null otherwise), the tab asked then (a promise of tabs.get's),
 * and the flush of the script's document done in its injection
 * ({documentId, stored}: capture/worker.js storeFlush), for the capture
 * flush. topFrame ({tabId, frame}: a promise of getFrame's
 * answer for frame 0), when given, is the top document asked already.
 */
export async function executeJs(params, signal, { onLate, onFrames, topFrame } = {}) {
  const { script } = params;
  if (typeof script !== 'string' || !script.trim()) {
    throw new CommandError('execute_js needs "script": a JavaScript expression or function body, e.g. "document.title"');
  }
  // topFrame: {tabId, frame}, the tab's top document whose URL the origin
  // rule judged (background.js). With it the tab is not asked: the script
  // goes to that document, and Chrome says if the tab or it is gone.
  const judged = topFrame && topFrame.tabId === Number(params.tab_id) ? await topFrame.frame : null;
  const tab = judged ? { id: topFrame.tabId, url: judged.url } : await resolveTab(params.tab_id);
  const frame = judged ?? await chrome.webNavigation.getFrame({ tabId: tab.id, frameId: 0 }).catch(() => null);
  if (!frame && !(await probeTab(tab.id, PROBE_MS))) {
    // No document, and a script would never start: fail now, not at the deadline.
    throw new CommandError(noDocumentText(tab), { reason: 'tab_unresponsive' });
  }
  const documentId = frame?.documentId;
  const target = documentId ? { tabId: tab.id, documentIds: [documentId] } : { tabId: tab.id, frameIds: [0] };
  const watch = watchDocument(tab.id, documentId, signal);
  // The command does not wait for a script past its end (its deadline, a
  // navigation): the script may still finish in the page, and what it
  // returns then is dropped, which onLate (a trace mark) tells.
  const raceScript = (p) => {
    const settled = () => {
      if (signal?.aborted) onLate?.();
    };
    p.then(settled, settled);
    return watch.race(p);
  };
  try {
    const { body, expr } = scriptSources(script);
    // The document's capture is flushed in the same injection, once the
    // script has settled (page.js runInPristine; issue 33).
    // Its events are stored as soon as the injection answers, even when
    // the command has ended meanwhile (keepFlush).
    const pageUrl = frame?.url ?? tab.url ?? '';
    const polls = flushPolls(pageUrl);
    let flushed = null;
    const keepFlush = (injected) => {
      const f = takeFlushed(injected, documentId);
      if (f) flushed = { documentId: f.documentId, stored: storeFlush(tab.id, f.documentId, pageUrl, f.answer) };
      return injected;
    };
    const run = () => raceScript(inject(tab, target, { world: 'ISOLATED', func: runInPristine,
      args: [PAGE_RUN_SOURCE, body, expr, MAX_RESULT_CHARS, polls] }).then(keepFlush));
    let injected = await runWithPristine(tab, target, watch, run);
    if (injected.navigated) throw injected.navigated;
    // The tab's frames and the tab as they are after the script: the
    // document's URL comes from them, and the capture flush after the
    // command flushes these frames and notes this tab instead of asking
    // Chrome again (onFrames; round trips less before the result). Not
    // after a USER_SCRIPT run: that script acts after this look.
    const frames = framesOf(tab.id);
    const after = chrome.tabs.get(tab.id);
    after.catch(() => {});
    const url = await documentURL(tab.id, injected.documentId ?? documentId, frames, after);
    let world = 'MAIN';
    if (!evalRefused(injected.result)) onFrames?.(tab.id, frames, { flushed, tab: after });
    else {
      // The page's CSP forbids eval in MAIN: run the script as a user script.
      world = 'USER_SCRIPT';
      injected = await raceScript(runInUserScriptWorld(tab, target, { body, expr, maxChars: MAX_RESULT_CHARS, url }));
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

// runWithPristine resolves to run()'s injection, bringing pristine.js
// into the document first when it lacks it (watch: the document's
// watchDocument).
async function runWithPristine(tab, target, watch, run) {
  let injected = await run();
  if (injected.result?.kind === 'no_pristine') {
    // A document loaded before the extension started (no content script
    // ran at its start: bring them all, capture too) or while idle, even
    // still loading (it lacks the agent's parts): tabs/reach.js brings
    // what it lacks; pristine built-ins come marked as the page's own.
    await watch.race(resolveTab(tab.id).then((t) => reachTab(t, chrome, { loading: true })).catch(() => 0));
    injected = await run();
  }
  if (injected.result?.kind === 'no_pristine') {
    // Still none (a page reachTab skips, such as one still loading
    // whose start scripts have not run): save the built-ins now, marked
    // as the page's own (reach brings the channel and dialogs.js later).
    await watch.race(inject(tab, target, { world: 'ISOLATED', files: ['pristine-relay.js'] }));
    await watch.race(inject(tab, target, { files: ['dist/pristine.js'] }));
    await watch.race(inject(tab, target, { world: 'ISOLATED', func: markPristineLate }));
    injected = await run();
  }
  return injected;
}

// inject runs one executeScript in the MAIN world of target (or the world
// what names), immediately, and resolves to its first InjectionResult ({} when there is none).
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
  const leave = [
    subscribe(chrome.webNavigation.onCommitted, onCommitted),
    subscribe(chrome.tabs.onReplaced, onReplaced),
    subscribe(chrome.tabs.onRemoved, onRemoved),
  ];
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
      leave.forEach((off) => off());
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

// framesOf is chrome.webNavigation.getAllFrames of a tab asked now, or null when it fails.
function framesOf(tabId) {
  const asked = chrome.webNavigation.getAllFrames({ tabId }).catch(() => null);
  return asked.then((list) => (Array.isArray(list) ? list : null));
}

// documentURL is the URL of a tab's document as Chrome knows it (frames:
// the tab's frames, asked after the script; asked: the tab, likewise).
async function documentURL(tabId, documentId, frames, asked) {
  if (documentId) {
    const frame = (await frames)?.find((f) => f.documentId === documentId);
    if (frame?.url) return frame.url;
  }
  const tab = await asked.catch(() => null);
  return tab?.url || tab?.pendingUrl || '';
}

// takeFlushed takes the capture flush runInPristine did after the script
// off injected's result: {documentId, answer}, or null when there is none
// (documentId: the document the script was sent to, when Chrome's answer
// does not name it).
function takeFlushed(injected, documentId) {
  const r = injected.result;
  if (!r || typeof r !== 'object' || !r.flushed || typeof r.flushed !== 'object') return null;
  const { flushed: answer, ...rest } = r;
  injected.result = rest;
  return { documentId: injected.documentId ?? documentId, answer };
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

/** injectionErrorText explains why Chrome refused to run a script in a tab. */
export function injectionErrorText(err, tab) {
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
