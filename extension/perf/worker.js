// The worker side of analyze performance: it brings the DOM runtime (for
// refs and names) and the collector (perf/collect.js) into the tab's top
// document, on demand, and returns the collector's report with the tab's
// facts from chrome.tabs. The daemon ranks it (internal/perf).

import { CommandError } from '../runner.js';
import { resolveTab } from '../tabs/resolve.js';
import { ensureRuntime } from '../actions/inject.js';
import { injectionText } from '../actions/dom.js';
import { nativeDialog, nativeDialogText } from '../actions/dialog.js';

/** COLLECTOR_FILES are injected into the ISOLATED world after the runtime: perf/collect.js's modules bundled into one classic script (scripts/bundle). */
export const COLLECTOR_FILES = ['dist/perf.js'];

/**
 * analyzePerformance resolves to the report of what the browser measured
 * in the top document of the tab params.tab_id (default the agent's), or
 * throws CommandError saying why it could not read it.
 */
export async function analyzePerformance(params) {
  const tab = await resolveTab(params.tab_id);
  const shown = await nativeDialog(tab.id);
  if (shown) throw new CommandError(nativeDialogText(tab.id, shown));
  const top = await chrome.webNavigation.getFrame({ tabId: tab.id, frameId: 0 }).catch(() => null);
  if (!top?.documentId) throw new CommandError(`tab ${tab.id} has no document yet; wait for it to load (wait_for) and retry`);
  const target = { tabId: tab.id, documentIds: [top.documentId] };
  let report;
  try {
    await ensureRuntime(tab, top.documentId);
    await chrome.scripting.executeScript({ target, files: COLLECTOR_FILES, injectImmediately: true });
    const [r] = await chrome.scripting.executeScript({ target, func: () => globalThis.gasolinePerf.collect(), injectImmediately: true });
    report = r?.result;
  } catch (err) {
    throw new CommandError(injectionText(tab, err?.message || String(err)));
  }
  if (!report || typeof report !== 'object') {
    throw new CommandError(`the page in tab ${tab.id} gave no measurements (it navigated meanwhile?); retry once it has loaded`);
  }
  return { url: top.url || tab.url || '', tab_id: tab.id, ...report };
}
