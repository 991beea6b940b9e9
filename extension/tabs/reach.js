// Documents without the extension's content scripts get them here, when
// an agent needs them there. Chrome injects the registered content scripts
// (capture/declared.js) only into documents that load afterwards, and only
// into the frames the mode says:
//   - tabs opened before the extension started (already open when the
//     user installs, enables or updates it) have none: reachOpenTabs, which
//     background.js runs over every open tab on install, browser start and
//     worker start, brings them into each tab's top document (never into
//     iframes: the user's other tabs stay light, capture/declared.js), and
//     reachWhenLoaded into those still loading then, once they have loaded;
//   - while idle, iframes get none: when the extension goes to work,
//     reachFramesOfOpenTabs brings them, in the background, into every
//     open tab's documents lacking them, iframes included, and a command to
//     a tab waits a short while for its tab's look (withFrames). Such an
//     iframe has no capture from before then (what it logged or requested
//     while loading), and its pristine built-ins, if it were ever asked for
//     them, are marked as the page's own;
//   - a command to a document lacking them brings them first
//     (actions/inject.js, execute.js, the dialog action).
// What is brought is what Chrome has registered now (in the registration's
// order and worlds; an entry without allFrames goes to top documents only),
// then what the worker injects at DOMContentLoaded (the DOM engine and the
// recorder, capture/declared.js byWorker), so it is what a document
// loading now would get.
//
// A top document loaded while idle ran the lean registration (capture/
// declared.js): capture, without the pristine built-ins, the dialog
// wrappers and their ISOLATED ends. At work, the look at its tab (the
// agent's first command there, or the going to work of every open tab)
// brings it each entry's agent_js (capture/declared.json) instead of the
// entry's files: its lean capture stays (the MAIN-world capture never runs twice in
// a document: its hooks would wrap twice), so it lacks bodies, WebSocket
// frames and web vitals until it is loaded again, and its pristine
// built-ins are marked as the page's own, as in a document older than the
// extension.
//
// A document is taken to have the scripts of a world when its ISOLATED
// world holds gasolineRelay (capture/relay.js, among that world's first
// entries: Chrome brings a document's declared scripts together) and, for
// the MAIN world, which leaves no name the page could not forge: in the top
// document, its gasolinePristineRelay (pristine-relay.js) holds the port of
// pristine.js; in an iframe (where neither makes a channel) the relay holds
// the MAIN-world capture's port (capture/main/, gasolineCaptureLinked, same bundle). A top
// document whose relay holds the MAIN-world capture's port but no pristine port is
// lean: the MAIN probe then lists the agent's parts it lacks, "pristine"
// (no pristine port) and "channel" (no gasolineChannel), and it gets only
// those (execute_js may have brought pristine alone into a page still
// loading). Each world gets only what it lacks, so nothing runs
// twice in a document. pristine.js
// brought in late marks its built-ins as the page's own (they were saved
// after the page's scripts ran). The DOM runtime is not declared: it comes
// on an agent's first action in a document (actions/inject.js).

import { within } from '../backoff.js';
import { byWorker, loadDeclared } from '../capture/declared.js';
import { activeTab } from './resolve.js';

/**
 * REACH_PROBE_MS bounds how long a command waits for the look at its tab's
 * documents (withFrames): a frozen tab, or a frame that does not answer,
 * must not hold it longer. The look goes on (up to REACH_GIVE_UP_MS) and
 * brings the scripts when the frames answer; meanwhile later commands to
 * the tab do not wait for it again.
 */
export const REACH_PROBE_MS = 2000;

/** REACH_GIVE_UP_MS bounds a look itself (a frozen tab does not answer): then it rejects. */
export const REACH_GIVE_UP_MS = 30000;

/** scriptable reports whether Chrome lets the extension's content scripts into a tab's URL. */
export function scriptable(url) {
  return /^(https?|file):/i.test(url || '');
}

/**
 * missing returns the documents (of the frames Chrome listed in probe
 * results) that lack the extension's scripts: {ISOLATED: [...], MAIN:
 * [...], AGENT: [...], RECORDER: [...]}, each entry {frameId, documentId}; a probe result is
 * true when the world has them. AGENT are the lean top documents (the MAIN
 * probe listed the agent's parts they lack): they lack only those, which
 * their entry's lacks holds. RECORDER have the ISOLATED world's scripts
 * but not the recorder (the ISOLATED probe said "recorder"). Pure: node
 * tests it.
 */
export function missing(isolated, main) {
  const lean = (r) => r.frameId === 0 && Array.isArray(r.result);
  const lacking = (results, has = (r) => r.result === true) => (results || [])
    .filter((r) => r && r.documentId && !has(r))
    .map((r) => ({ frameId: r.frameId, documentId: r.documentId, ...(lean(r) ? { lacks: r.result } : {}) }));
  return {
    ISOLATED: lacking(isolated, (r) => r.result === true || r.result === 'recorder'),
    RECORDER: lacking(isolated, (r) => r.result !== 'recorder'),
    MAIN: lacking(main, (r) => r.result === true || lean(r)).map(({ frameId, documentId }) => ({ frameId, documentId })),
    AGENT: lacking(main, (r) => !lean(r)),
  };
}

/** PARTS names the agent's part each agent_js file (by base name) belongs to, as the MAIN probe reports it lacking; a file not named comes with any part. */
const PARTS = { 'pristine-relay.js': 'pristine', 'pristine.js': 'pristine', 'channel.js': 'channel', 'dialogs.js': 'channel' };

/**
 * PRISTINE_FILES are the base names of the files that bring pristine.js:
 * its own bundle (dist/pristine.js, declared.json's agent_js; also the
 * debug copy's debug/start-main/pristine.js), or the bundle
 * capture/declared.json declares it in at work (scripts/bundle).
 */
const PRISTINE_FILES = ['pristine.js', 'start-main.js'];

/**
 * injections returns the executeScript calls that bring the registered
 * content scripts (getRegisteredContentScripts, in order) into the
 * documents lacking them: [{world, files, documentIds, late, agent?}], late
 * set for files holding pristine.js, agent for a lean document's parts. An entry without allFrames goes to top
 * documents only. While the at-work files are registered (an entry's js is
 * declared's js for its id), a lean document (lacking.AGENT) gets the
 * entry's agent_js instead, in the same order: the files of the parts it
 * lacks. Then the entries the worker injects itself (byWorker, not
 * registered), into the documents lacking their world's scripts. Pure:
 * node tests it.
 */
export function injections(registered, lacking, declared = []) {
  const out = [];
  const step = (world, files, docs, agent = false) => {
    if (!docs.length || !files?.length) return;
    const s = { world, files, documentIds: docs.map((d) => d.documentId), late: files.some((f) => PRISTINE_FILES.includes(f.split('/').pop())) };
    if (agent) s.agent = true;
    out.push(s);
  };
  for (const entry of registered || []) {
    const world = entry.world === 'MAIN' ? 'MAIN' : 'ISOLATED';
    step(world, entry.js, (lacking[world] ?? []).filter((d) => entry.allFrames || d.frameId === 0));
    const d = (declared || []).find((x) => x.id === entry.id);
    if (!d?.agent_js || d.js?.join('\n') !== entry.js?.join('\n')) continue;
    const byFiles = new Map(); // the files a lean document lacks → those documents
    for (const doc of lacking.AGENT ?? []) {
      const files = d.agent_js.filter((f) => !PARTS[f.split('/').pop()] || (doc.lacks ?? ['pristine', 'channel']).includes(PARTS[f.split('/').pop()]));
      const key = files.join('\n');
      if (!byFiles.has(key)) byFiles.set(key, { files, docs: [] });
      byFiles.get(key).docs.push(doc);
    }
    for (const { files, docs } of byFiles.values()) step(world, files, docs, true);
  }
  // The entries the worker injects at DOMContentLoaded (capture/declared.js
  // byWorker) come last while at work (the registration's allFrames), into
  // every frame lacking them (lacking.RECORDER: the documents that missed
  // them). While idle, none: a document gets them at the user's first
  // input there (capture/ask.js asks, CaptureMode.asked), one brought its
  // ISOLATED scripts here included.
  if (registered?.some((r) => r.allFrames)) {
    for (const { world, files } of byWorker(declared)) {
      step(world, files, [...(lacking[world] ?? []), ...(world === 'ISOLATED' ? lacking.RECORDER ?? [] : [])]);
    }
  }
  return out;
}

// In the page (self-contained: chrome.scripting serialises them).
/**
 * hasIsolated is the ISOLATED-world probe (g: that world's global): true,
 * false (no relay: the world lacks the scripts), or "recorder" for a
 * parsed document with the relay but not the recorder, which the worker
 * injects at DOMContentLoaded (capture/declared.js loaded) and this one
 * missed.
 */
export function hasIsolated(g = globalThis) {
  if (typeof g.gasolineRelay !== 'function') return false;
  return g.gasolineRecorder === true || g.document?.readyState === 'loading' ? true : 'recorder';
}
/**
 * hasPristine is the MAIN-world probe, run in a document's ISOLATED world
 * (g: that world's global; exported so node can call it with a fake one):
 * true; for a top document with the MAIN-world capture (capture/main/) that lacks an
 * agent's part (loaded idle), the parts it lacks: "pristine" (no pristine
 * port: pristine-relay.js and pristine.js), "channel" (no gasolineChannel:
 * actions/channel.js and dialogs.js); or false.
 */
export function hasPristine(g = globalThis) {
  // g.window: in Firefox an isolated world's global is a sandbox, not the
  // window that top names.
  if (g.top && g.top !== (g.window ?? g)) return g.gasolineCaptureLinked === true;
  const pristine = g.gasolinePristineRelay?.connected() === true;
  // Without capture, the pristine port alone (execute_js brought it into a
  // document older than the extension) counts as the MAIN scripts: they
  // hold pristine.js, which must not run twice.
  if (g.gasolineCaptureLinked !== true) return pristine;
  const lacks = [];
  if (!pristine) lacks.push('pristine');
  if (!g.gasolineChannel) lacks.push('channel');
  return lacks.length ? lacks : true;
}
function markLate() {
  globalThis.gasolinePristineRelay?.markLate();
}

function bounded(p, ms) {
  return within(p, ms, () => {
    throw new Error(`no answer within ${ms} ms`);
  });
}

// locks holds, per tab id, the reachTab in flight: calls for one tab run
// one after the other, so two never both see a document lacking the
// scripts and both bring them.
const locks = new Map();

/**
 * reachTab brings the registered content scripts into the documents of
 * tab (Chrome's Tab) that lack them (with topOnly, its top document only:
 * its iframes are not even probed), and resolves to the number of
 * documents it brought them into (0: none lacked them, or the tab is not
 * a web page). It skips a tab still loading (its new document gets the
 * scripts from Chrome), unless loading is set: then it brings them into
 * the tab's iframes (those that loaded idle; the top document that is
 * loading gets them from Chrome) and the agent's parts into a lean top
 * document (its start scripts ran under the idle registration: Chrome
 * brings it nothing more). It rejects when Chrome refuses or the
 * tab does not answer within REACH_GIVE_UP_MS. Calls for one tab are
 * serialised.
 */
export function reachTab(tab, api = chrome, { topOnly = false, loading = false } = {}) {
  if (!tab || !scriptable(tab.url)) return Promise.resolve(0);
  const framesOnly = tab.status !== 'complete';
  if (framesOnly && (!loading || topOnly)) return Promise.resolve(0);
  const prev = locks.get(tab.id) || Promise.resolve();
  const next = prev.catch(() => {}).then(() => reachOnce(tab, api, topOnly, framesOnly));
  locks.set(tab.id, next);
  const release = () => {
    if (locks.get(tab.id) === next) locks.delete(tab.id);
  };
  next.then(release, release);
  return next;
}

// reachOnce probes at once (injectImmediately: else Chrome waits for
// every frame's document_idle, and a frame still loading holds the look).
async function reachOnce(tab, api, topOnly, framesOnly) {
  const target = topOnly ? { tabId: tab.id, frameIds: [0] } : { tabId: tab.id, allFrames: true };
  const [isolated, main] = await bounded(Promise.all([
    api.scripting.executeScript({ target, world: 'ISOLATED', func: hasIsolated, injectImmediately: true }),
    api.scripting.executeScript({ target, world: 'ISOLATED', func: hasPristine, injectImmediately: true }),
  ]), REACH_GIVE_UP_MS);
  const lacking = missing(isolated, main);
  if (framesOnly) {
    // A loading top document gets its start scripts from Chrome, unless it
    // already ran the lean ones (loaded idle): Chrome gives it nothing more,
    // so it gets the agent's parts now.
    for (const world of ['ISOLATED', 'MAIN']) lacking[world] = lacking[world].filter((d) => d.frameId !== 0);
  }
  const declared = lacking.ISOLATED.length || lacking.RECORDER.length || lacking.AGENT.length ? await declaredOf(api) : [];
  const plan = injections(await api.scripting.getRegisteredContentScripts(), lacking, declared);
  for (const step of plan) {
    const where = { tabId: tab.id, documentIds: step.documentIds };
    // The agent's parts go in at once: they belong at document_start, and
    // a lean top document still loading (a page that streams) may never
    // reach the document_idle Chrome otherwise waits for.
    const now = step.agent === true;
    await api.scripting.executeScript({ target: where, world: step.world, files: step.files, injectImmediately: now });
    if (step.late) await api.scripting.executeScript({ target: where, world: 'ISOLATED', func: markLate, injectImmediately: now });
  }
  return new Set(plan.flatMap((step) => step.documentIds)).size;
}

// declaredOf caches capture/declared.json's entries for the worker's life
// (its agent_js); a failed read is tried again next time.
let declaredP = null;
function declaredOf(api) {
  if (!declaredP) {
    declaredP = loadDeclared(api).catch(() => {
      declaredP = null;
      return [];
    });
  }
  return declaredP;
}

/**
 * reachOpenTabs runs reachTab over the top document of every open tab, at
 * once, and calls noted(tabId) for each tab it brought scripts into (or for
 * every tab, with all). It never rejects; a tab it cannot reach is left as
 * it is (a command to it injects what it needs, or says why it cannot).
 */
export async function reachOpenTabs({ api = chrome, noted = () => {}, all = false } = {}) {
  const tabs = await api.tabs.query({}).catch(() => []);
  await Promise.all(tabs.map(async (tab) => {
    const n = await reachTab(tab, api, { topOnly: true }).catch(() => 0);
    if (n || all) noted(tab.id);
  }));
}

/** LOADED_WAIT_MS bounds how long reachWhenLoaded waits for tabs to finish loading. */
export const LOADED_WAIT_MS = 5 * 60 * 1000;

/**
 * reachWhenLoaded brings the scripts into the top document of each tab
 * that is loading now once it has loaded (tabs.onUpdated complete), and
 * calls noted(tabId) for each it brought them into. background.js runs it
 * after the registration was replaced (a first start, an update of the
 * extension, which clears it): a page that began loading before the new
 * registration was in place gets nothing from Chrome, and reachOpenTabs
 * skips a tab still loading. It waits at most waitMs; it never rejects.
 */
export async function reachWhenLoaded({ api = chrome, noted = () => {}, waitMs = LOADED_WAIT_MS } = {}) {
  const waiting = new Set();
  let timer;
  const done = () => {
    api.tabs.onUpdated.removeListener(onUpdated);
    clearTimeout(timer);
  };
  const reach = (tab) => {
    if (!waiting.delete(tab.id)) return;
    if (!waiting.size) done();
    reachTab(tab, api, { topOnly: true }).then((n) => n && noted(tab.id), () => {});
  };
  function onUpdated(tabId, change, tab) {
    if (change.status === 'complete') reach({ ...tab, id: tabId });
  }
  // The listener first: a tab that completes meanwhile is then seen by one of the two.
  api.tabs.onUpdated.addListener(onUpdated);
  const loading = await api.tabs.query({ status: 'loading' }).catch(() => []);
  for (const tab of loading) waiting.add(tab.id);
  if (!waiting.size) return done();
  timer = setTimeout(done, waitMs);
  await Promise.all(loading.map((t) => api.tabs.get(t.id).then((tab) => tab.status === 'complete' && reach(tab), () => {})));
}

/**
 * NEW_DOCUMENT are the actions after which a tab's documents may be ones
 * this worker did not look at while at work: back and forward can restore
 * a page from the back/forward cache that loaded while idle. Its next
 * command looks again. (navigate and refresh load a new document, which
 * gets every frame's scripts from Chrome at work.) Any other way a tab's
 * top document changes (history.back() from a script, a click, Alt+Left,
 * the user, a prerender activation) is caught by watchNavigations.
 */
const NEW_DOCUMENT = new Set(['back', 'forward']);

/**
 * SKIP are the actions that need nothing in the tab's current documents,
 * or bring it themselves: dialog reaches the frames it cannot arm
 * (actions/dialog.js), and must answer at once on a page a native dialog
 * froze, where a look waits in vain.
 */
const SKIP = new Set(['navigate', 'refresh', 'new_tab', 'close_tab', 'switch_tab', 'back', 'forward', 'dialog']);

/** MAX_FRAMED bounds the tabs remembered as looked at (a forgotten one costs one look again). */
const MAX_FRAMED = 1000;

// framed holds, per tab id, the look at its documents made since the
// extension last went to work (forgetFramed clears it), as {look, late}:
// look resolves to whether it succeeded; late is set once a command
// stopped waiting for it.
const framed = new Map(); // tabId → {look, late}

/** forgetFramed forgets which tabs were looked at: the extension just went to work (capture/declared.js onWork). */
export function forgetFramed() {
  framed.clear();
}

/**
 * watchNavigations forgets a tab's look when its top document changes
 * (webNavigation.onCommitted for frame 0: a new load, a back/forward cache
 * restore, a prerender activation) or Chrome replaces the tab: the new
 * document's iframes may have loaded idle. A same-document change
 * (onHistoryStateUpdated) keeps the frames, and the look.
 */
export function watchNavigations(api = chrome) {
  api.webNavigation.onCommitted.addListener((d) => {
    if (d.frameId === 0) framed.delete(d.tabId);
  });
  api.tabs.onReplaced?.addListener((added, removed) => {
    framed.delete(added);
    framed.delete(removed);
  });
}

/**
 * withFrames wraps exec(query, signal, hooks) (the executor tabs/hung.js
 * guards, called with the query's tab_id filled in by tabs/owners.js):
 * while atWork() says the extension is at work, a command to a tab waits
 * for the look that brings the registered scripts into its documents
 * lacking them (iframes that loaded while idle): the one
 * reachFramesOfOpenTabs began, or its own when the tab was not looked at
 * yet, at most waitMs, once per look. Actions that replace or leave the
 * tab's document skip it. A tab that cannot be reached runs the command
 * anyway.
 */
export function withFrames(exec, { atWork, api = globalThis.chrome, waitMs = REACH_PROBE_MS }) {
  return async (query, signal, hooks) => {
    if (atWork() && !SKIP.has(query?.action)) await framesOf(query?.params?.tab_id, api, waitMs);
    try {
      return await exec(query, signal, hooks);
    } finally {
      if (NEW_DOCUMENT.has(query?.action)) framed.delete(Number(query?.params?.tab_id));
    }
  };
}

// framesOf looks at the tab's documents once per period at work (a tab
// still loading included: its iframes that loaded idle), or takes the look
// in flight, and waits for it up to waitMs. A look that outlasts that goes
// on in the background and is remembered once it succeeds; later commands
// to the tab do not wait for it (they would only wait as long again for the
// same frames); a look that fails is forgotten, so the next command looks again.
function framesOf(tabId, api, waitMs) {
  const id = Number(tabId);
  const known = Number.isInteger(id) && tabId !== null && tabId !== '';
  const entry = (known && framed.get(id)) || look(known ? api.tabs.get(id) : activeTab(api), known ? id : null, api);
  if (entry.late) return undefined;
  return within(entry.look, waitMs, () => {
    entry.late = true;
  });
}

// look starts the look at a tab (tab: a promise of Chrome's Tab) and, for
// a known id, remembers it in framed until it fails.
function look(tab, id, api) {
  const entry = { late: false };
  entry.look = tab
    .then((t) => reachTab(t, api, { loading: true }))
    .then(() => true, () => false);
  if (id !== null) {
    if (framed.size >= MAX_FRAMED) framed.clear();
    framed.set(id, entry);
    entry.look.then((looked) => {
      if (!looked && framed.get(id) === entry) framed.delete(id);
    });
  }
  return entry;
}

/** REACH_PARALLEL bounds how many tabs reachFramesOfOpenTabs looks at at once. */
export const REACH_PARALLEL = 2;

/**
 * reachFramesOfOpenTabs brings the registered scripts into the documents
 * lacking them in every open tab (the iframes that loaded while idle), in
 * the background: background.js runs it each time the extension goes to
 * work (capture/declared.js onWork), after forgetFramed, so that at work
 * every frame is captured, not only those of tabs an agent sends a command
 * to (an agent that only reads never does). One look per tab (a command to
 * a tab shares its look, waiting for it at most as long as for its own),
 * at most parallel tabs at once; tabs already looked at since are skipped.
 * It resolves once every tab was looked at; it never rejects.
 */
export async function reachFramesOfOpenTabs({ api = chrome, parallel = REACH_PARALLEL } = {}) {
  const tabs = (await api.tabs.query({}).catch(() => [])).filter((t) => scriptable(t.url));
  let next = 0;
  const worker = async () => {
    while (next < tabs.length) {
      const tab = tabs[next++];
      const entry = framed.get(tab.id) || look(Promise.resolve(tab), tab.id, api);
      // A tab whose injection hangs (frozen, discarded) keeps its lock, so
      // nothing is brought twice, but does not hold up the other tabs.
      await within(entry.look, REACH_GIVE_UP_MS, () => {}).catch(() => {});
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, tabs.length) }, worker));
}
