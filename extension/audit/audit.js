// analyze accessibility: an axe-core audit of the tab's top document. The
// pinned axe (audit/axe.min.js, `make axe` refreshes it; audit/axe.json
// holds its version and SHA-256) is injected only for this action, into the
// document's ISOLATED world beside the DOM runtime, never declared as a
// content script: pages no agent audits never run it, and the page's scripts can
// neither see nor change it. The page function groups axe's violations by
// rule and names each element by its outline ref (the runtime's ref map,
// shared with analyze dom and interact) and its role and accessible name
// from the DOM engine. The daemon (internal/audit) cuts the report to its
// token budget, or writes it as SARIF.

import { CommandError } from '../runner.js';
import { resolveTab } from '../tabs/resolve.js';
import { frameOfRef } from '../actions/target.js';
import { runtimeCall } from '../actions/dom.js';

/** AXE_FILE is the pinned axe-core, relative to the extension's root. */
export const AXE_FILE = 'audit/axe.min.js';

/** MAX_NODES bounds the elements reported per rule (count says how many there were). */
export const MAX_NODES = 100;

/**
 * accessibility audits the top document of the tab params name with axe,
 * within scope (a ref or CSS selector; the whole document without) and
 * limited to the axe tags params.tags names (every rule without). It
 * resolves to {rules, review, passes, axe_version, tab_id, url, title, format?}.
 */
export async function accessibility(params) {
  const tab = await resolveTab(params.tab_id);
  const scope = typeof params.scope === 'string' && params.scope !== '' ? params.scope : null;
  if (scope && frameOfRef(scope) !== null && frameOfRef(scope) !== 0) {
    throw new CommandError(`scope ${scope} is in an iframe; analyze accessibility audits the top document: pass a ref or selector of it`);
  }
  // The runtime first: refs, and the stale-ref check of a scope ref.
  let scopeRef = null;
  if (scope) {
    const target = frameOfRef(scope) === 0 ? { ref: scope } : { selector: scope };
    const { resp } = await runtimeCall(tab, undefined, target, { op: 'act', action: 'query', opts: { limit: 1 }, timeout_ms: 0 });
    if (!resp.count) throw new CommandError(`no element matches scope ${JSON.stringify(scope)}; check it with query, or leave scope out to audit the whole page`);
    scopeRef = resp.elements[0].ref;
  } else {
    await runtimeCall(tab, undefined, null, { op: 'ping' });
  }
  const tags = Array.isArray(params.tags) ? params.tags : [];
  let out;
  try {
    const frame = await chrome.webNavigation.getFrame({ tabId: tab.id, frameId: 0 });
    const target = { tabId: tab.id, documentIds: [frame.documentId] };
    const [probe] = await chrome.scripting.executeScript({ target, func: axePresent, injectImmediately: true });
    if (probe?.result !== true) await chrome.scripting.executeScript({ target, files: [AXE_FILE], injectImmediately: true });
    const [run] = await chrome.scripting.executeScript({ target, func: runAxe, args: [{ ref: scopeRef, tags, max_nodes: MAX_NODES }], injectImmediately: true });
    out = run?.result;
  } catch (err) {
    throw new CommandError(`the audit could not run in tab ${tab.id} (${tab.url || ''}): ${err?.message || err}; if the page navigated meanwhile, run it again`);
  }
  if (!out || typeof out !== 'object') throw new CommandError(`the audit in tab ${tab.id} gave no answer (the page navigated or closed?); run it again`);
  if (!out.ok) throw new CommandError(out.message, { reason: out.reason });
  delete out.ok;
  // format comes back with the report: the daemon keeps no params past a command's end.
  if (params.format) out.format = params.format;
  return { ...out, tab_id: tab.id, url: tab.url || '', title: tab.title || '' };
}

/** axePresent runs in the document's ISOLATED world: whether axe is loaded there. */
function axePresent() {
  return typeof globalThis.axe === 'object' && globalThis.axe !== null && typeof globalThis.axe.run === 'function';
}

/**
 * runAxe runs in the document's ISOLATED world (self-contained: Chrome
 * serialises it), after axe and the DOM runtime: axe.run on the scope
 * element (o.ref) or the document, with o.tags, and the violations and the
 * rules axe could not decide (its "incomplete", to review by hand) grouped
 * by rule, at most o.max_nodes elements each, named by the runtime.
 */
async function runAxe(o) {
  const rt = globalThis.gasolineRuntime;
  const axe = globalThis.axe;
  if (!rt?.brief || !axe?.run) return { ok: false, reason: 'internal', message: 'axe or the DOM runtime is missing in the page; run the audit again' };
  let context = document;
  if (o.ref) {
    context = rt.element(o.ref);
    if (!context) return { ok: false, reason: 'stale_ref', message: `scope ${o.ref} is gone from the page; take a new outline with analyze({what:"dom"})` };
  }
  const options = { resultTypes: ['violations', 'incomplete'], elementRef: true, iframes: false };
  if (o.tags.length) options.runOnly = { type: 'tag', values: o.tags };
  let res;
  try {
    res = await axe.run(context, options);
  } catch (e) {
    return { ok: false, reason: 'bad_option', message: `axe refused the audit: ${e?.message || e}; check tags (e.g. "wcag2a", "wcag2aa", "best-practice") or run it again when no other audit runs` };
  }
  const clip = (s, n) => {
    const t = String(s ?? '').replace(/\s+/g, ' ').trim();
    return t.length > n ? t.slice(0, n - 1) + '…' : t;
  };
  const group = (v) => ({
    id: v.id,
    impact: v.impact || '',
    help: v.help,
    help_url: v.helpUrl,
    tags: v.tags,
    count: v.nodes.length,
    nodes: v.nodes.slice(0, o.max_nodes).map((n) => {
      const el = n.element;
      const b = el instanceof Element ? rt.brief(el) : {};
      const node = { ref: b.ref, role: b.role, name: b.name, target: n.target.flat(Infinity).join(' >>> '), summary: clip(n.failureSummary, 300), html: clip(n.html, 200) };
      for (const k of Object.keys(node)) if (!node[k]) delete node[k];
      return node;
    }),
  });
  return { ok: true, rules: res.violations.map(group), review: res.incomplete.map(group), passes: res.passes.length, axe_version: axe.version };
}
