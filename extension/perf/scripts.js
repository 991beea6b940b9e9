// The scripts of perf/collect.js's report: which script entries are an
// extension's (the page's are what it names), and the interactions with
// the script that handled each.
import { element, MAX, round, top } from './measure.js';

/** early holds the script entries startScripts judged the extensions' own (set by judge). */
let early = new Set();

/** judge sets the entries startScripts judged the extensions' own among frames. */
export function judge(frames) {
  early = startScripts(frames);
}

/** script is a script entry as the report gives it. */
export function script(s) {
  return {
    ms: round(s.duration), url: s.sourceURL || '', fn: s.sourceFunctionName || '',
    char: s.sourceCharPosition > 0 ? s.sourceCharPosition : 0, invoker: s.invoker || '', type: s.invokerType || '',
    early: early.has(s) || undefined,
  };
}

/** notPage says whether a script entry is an extension's: by its URL's scheme, or judged so by startScripts. */
const notPage = (s) => early.has(s) || /^(chrome|moz|safari-web)-extension:/.test(s.sourceURL || s.invoker || '');

/**
 * startScripts returns the classic-script entries of frames that began
 * before mark, the moment gasoline's document_start scripts were done in
 * this document (actions/channel.js notes it as gasolineStartEnd when the
 * MAIN world's last start script, actions/dialogs.js (last in
 * dist/start-main.js), hands over its
 * channel). No page script runs before the document_start content
 * scripts, so such an entry is an extension's start script (ours, or
 * another extension's that ran before), though Chrome names it by the
 * page's URL as it names the page's inline scripts. None without a mark
 * (a document gasoline's start scripts did not run in).
 */
export function startScripts(frames, mark = globalThis.gasolineStartEnd) {
  if (!(mark > 0)) return new Set();
  return new Set(frames.flatMap((f) => f.scripts || []).filter((s) => s.invokerType === 'classic-script' && s.startTime < mark));
}

/**
 * interactions groups event timing entries by interactionId: each
 * interaction's span and its INP breakdown (input delay, processing,
 * presentation), its target, and the script that handled it (the longest
 * script of a long animation frame that ran while it was processed).
 */
export function interactions(events, frames) {
  const groups = new Map();
  for (const e of events) {
    if (!e.interactionId) continue;
    const g = groups.get(e.interactionId) || [];
    g.push(e);
    groups.set(e.interactionId, g);
  }
  const out = [];
  for (const g of groups.values()) {
    const start = Math.min(...g.map((e) => e.startTime));
    const end = Math.max(...g.map((e) => e.startTime + e.duration));
    const pStart = Math.min(...g.map((e) => e.processingStart));
    const pEnd = Math.max(...g.map((e) => e.processingEnd));
    const main = top(g, 1, (e) => e.processingEnd - e.processingStart)[0];
    const handlers = [];
    for (const f of frames) {
      for (const s of f.scripts || []) {
        if (s.startTime + s.duration >= pStart && s.startTime <= pEnd) handlers.push(s);
      }
    }
    const h = top(handlers.filter((s) => !notPage(s)), 1, (s) => (s.invokerType === 'event-listener' ? 1e6 : 0) + s.duration)[0];
    out.push({
      type: main.name, start: round(start), ms: round(end - start), delay: round(pStart - start),
      processing: round(pEnd - pStart), presentation: round(Math.max(0, end - pEnd)),
      target: element(g.find((e) => e.target)?.target) || undefined, script: h ? script(h) : undefined,
    });
  }
  return top(out, MAX.interactions, (i) => i.ms);
}
