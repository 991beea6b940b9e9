// Tabs opened before the extension started (already open when the user
// installs, enables or updates it) have none of its content scripts:
// Chrome injects the manifest's content_scripts only into documents that
// load afterwards. reachTab brings them into such a tab's documents, in the
// manifest's order and worlds, so capture, the pristine built-ins and the
// dialog wrappers work there as in any page; background.js runs it over
// every open tab on install, browser start and worker start.
//
// A document is taken to have the scripts of a world when its ISOLATED
// world holds gasolineRelay (capture/relay.js, among that world's first
// entries: Chrome brings a document's declared scripts together) and, for
// the MAIN world, which leaves no name the page could not forge: in the top
// document, its gasolinePristineRelay (pristine-relay.js) holds the port of
// pristine.js; in an iframe (where neither makes a channel) the relay holds
// capture/main-world.js's port (gasolineCaptureLinked, same bundle). Each
// world gets only what it lacks, so nothing runs twice in a document. pristine.js
// brought in late marks its built-ins as the page's own (they were saved
// after the page's scripts ran). The DOM runtime is not declared: it comes
// on an agent's first action in a document (actions/inject.js).

import { within } from '../backoff.js';

/** REACH_PROBE_MS bounds the look at a tab's documents (a frozen tab does not answer). */
export const REACH_PROBE_MS = 2000;

/** scriptable reports whether Chrome lets the extension's content scripts into a tab's URL. */
export function scriptable(url) {
  return /^(https?|file):/i.test(url || '');
}

/**
 * missing returns the documents (of the frames Chrome listed in probe
 * results) that lack the extension's scripts: {ISOLATED: [...], MAIN:
 * [...]}, each entry {frameId, documentId}; a probe result is true when
 * the world has them. Pure: node tests it.
 */
export function missing(isolated, main) {
  const lacking = (results) => (results || [])
    .filter((r) => r && r.documentId && r.result !== true)
    .map((r) => ({ frameId: r.frameId, documentId: r.documentId }));
  return { ISOLATED: lacking(isolated), MAIN: lacking(main) };
}

/** PRISTINE_FILES bring pristine.js: itself, or the bundle the manifest declares it in (scripts/bundle). */
const PRISTINE_FILES = ['pristine.js', 'dist/start-main.js'];

/**
 * injections returns the executeScript calls that bring the manifest's
 * content_scripts entries (in order) into the documents lacking them:
 * [{world, files, documentIds, late}], late set for an entry holding
 * pristine.js. An entry without all_frames goes to top documents only.
 * Pure: node tests it.
 */
export function injections(contentScripts, lacking) {
  const out = [];
  for (const entry of contentScripts || []) {
    const world = entry.world === 'MAIN' ? 'MAIN' : 'ISOLATED';
    const docs = (lacking[world] ?? []).filter((d) => entry.all_frames || d.frameId === 0);
    if (!docs.length || !entry.js?.length) continue;
    out.push({ world, files: entry.js, documentIds: docs.map((d) => d.documentId), late: entry.js.some((f) => PRISTINE_FILES.includes(f)) });
  }
  return out;
}

// In the page (self-contained: chrome.scripting serialises them).
/** hasIsolated is the ISOLATED-world probe (g: that world's global). */
export function hasIsolated(g = globalThis) {
  return g.gasolineRelay === true;
}
/**
 * hasPristine is the MAIN-world probe, run in a document's ISOLATED world
 * (g: that world's global; exported so node can call it with a fake one).
 */
export function hasPristine(g = globalThis) {
  if (g.top && g.top !== g) return g.gasolineCaptureLinked === true;
  return g.gasolinePristineRelay?.connected() === true;
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
 * reachTab brings the extension's content scripts into the documents of
 * tab (Chrome's Tab) that lack them, and resolves to the number of
 * documents it brought them into (0: none lacked them, or the tab is not
 * a loaded web page). It skips a tab still loading (its new document gets
 * the scripts from Chrome). It rejects when Chrome refuses or the tab does
 * not answer within REACH_PROBE_MS. Calls for one tab are serialised.
 */
export function reachTab(tab, api = chrome) {
  if (!tab || tab.status !== 'complete' || !scriptable(tab.url)) return Promise.resolve(0);
  const prev = locks.get(tab.id) || Promise.resolve();
  const next = prev.catch(() => {}).then(() => reachOnce(tab, api));
  locks.set(tab.id, next);
  const release = () => {
    if (locks.get(tab.id) === next) locks.delete(tab.id);
  };
  next.then(release, release);
  return next;
}

async function reachOnce(tab, api) {
  const target = { tabId: tab.id, allFrames: true };
  const [isolated, main] = await bounded(Promise.all([
    api.scripting.executeScript({ target, world: 'ISOLATED', func: hasIsolated }),
    api.scripting.executeScript({ target, world: 'ISOLATED', func: hasPristine }),
  ]), REACH_PROBE_MS);
  const lacking = missing(isolated, main);
  const plan = injections(api.runtime.getManifest().content_scripts, lacking);
  for (const step of plan) {
    const where = { tabId: tab.id, documentIds: step.documentIds };
    await api.scripting.executeScript({ target: where, world: step.world, files: step.files });
    if (step.late) await api.scripting.executeScript({ target: where, world: 'ISOLATED', func: markLate });
  }
  return new Set([...lacking.ISOLATED, ...lacking.MAIN].map((d) => d.documentId)).size;
}

/**
 * reachOpenTabs runs reachTab over every open tab, at once, and calls
 * noted(tabId) for each tab it brought scripts into (or for every tab,
 * with all). It never rejects; a tab it cannot reach is left as it is (a
 * command to it injects what it needs, or says why it cannot).
 */
export async function reachOpenTabs({ api = chrome, noted = () => {}, all = false } = {}) {
  const tabs = await api.tabs.query({}).catch(() => []);
  await Promise.all(tabs.map(async (tab) => {
    const n = await reachTab(tab, api).catch(() => 0);
    if (n || all) noted(tab.id);
  }));
}
