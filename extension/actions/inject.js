// The DOM runtime comes into a document on an agent's first use there, not
// at every page's start: what every page pays for is only the capture hooks,
// the pristine built-ins and the dialog wrappers (capture/declared.js). This is
// the one path that brings it, for the DOM actions (dom.js), screenshots and
// uploads through them, and the draw-mode overlay (overlay/worker.js).
//
// A document older than the extension (open before install, update or
// enable) lacks the declared scripts too: they are brought first
// (tabs/reach.js), so capture and the dialog channel are there before the
// runtime, as in any other page.

import { reachTab } from '../tabs/reach.js';
import { PAGE_VERB_FILES } from '../contract.js';

/**
 * RUNTIME_FILES are the DOM runtime's classic scripts, injected in order
 * into a document's ISOLATED world: dist/runtime.js, the runtime (which
 * answers {gasoline: "dom"} messages) bundled by scripts/bundle from its
 * ES modules (actions/runtime.js and runtime/) with all they import: the
 * DOM engine (dom/engine.js), the pure logic (core.js), what an action
 * changed (changed.js) and custom selects' options (combobox.js), so that
 * a document pays one file for them; then what action modules add to it:
 * upload's, and the page verbs declared a file each (contract.js
 * PAGE_VERB_FILES, actions/verbs/). The engine comes in that one file
 * although most documents have it already (dist/end-isolated.js, which the
 * worker injects at DOMContentLoaded, a frame that has not reached it
 * lacking it): a second copy sets nothing, and a second file would cost
 * every document an injection; the first copy in a world is the one used.
 */
export const RUNTIME_FILES = ['dist/runtime.js', ...PAGE_VERB_FILES];

// pending holds, per document, the injection under way: concurrent first
// actions in one document share it, so the files are injected once. ready
// holds the documents known to have the runtime (a document keeps its id
// for its life), the oldest forgotten past MAX_READY: a forgotten or
// restarted worker's document costs one look (present) again.
const pending = new Map(); // documentId → Promise<void>
const ready = new Set(); // documentId
const MAX_READY = 4096;

/**
 * ensureRuntime resolves once the document documentId of tab (Chrome's Tab)
 * has the DOM runtime: at once when it has one, else after injecting
 * RUNTIME_FILES into its ISOLATED world (after the declared scripts, for a
 * document older than the extension). Concurrent calls for one document
 * inject once. It rejects with Chrome's error when the document cannot be
 * scripted or is gone; callers word it.
 */
export function ensureRuntime(tab, documentId, api = chrome) {
  if (ready.has(documentId)) return Promise.resolve();
  let p = pending.get(documentId);
  if (!p) {
    p = bring(tab, documentId, api);
    pending.set(documentId, p);
    const done = () => {
      if (pending.get(documentId) === p) pending.delete(documentId);
    };
    p.then(() => {
      ready.add(documentId);
      if (ready.size > MAX_READY) ready.delete(ready.values().next().value);
      done();
    }, done);
  }
  return p;
}

/** bring injects RUNTIME_FILES into the document, after the declared scripts when it lacks them; nothing when it has the runtime. */
async function bring(tab, documentId, api) {
  const target = { tabId: tab.id, documentIds: [documentId] };
  const [probe] = await api.scripting.executeScript({ target, func: present, injectImmediately: true });
  const has = probe?.result;
  if (has?.runtime === true) return;
  if (has?.relay !== true) await reachTab(tab, api).catch(() => 0);
  await api.scripting.executeScript({ target, files: RUNTIME_FILES, injectImmediately: true });
}

/**
 * present runs in the document's ISOLATED world (self-contained: Chrome
 * serialises it): whether the runtime is there, and the capture relay
 * (whose absence means a document older than the extension).
 */
function present() {
  return { runtime: typeof globalThis.gasolineRuntime === 'object' && globalThis.gasolineRuntime !== null, relay: typeof globalThis.gasolineRelay === 'function' };
}
