// Text that appeared: what a click, submit, change or Enter made the page
// show: text of nodes added or changed till the DOM is quiet 500 ms after
// a change (2 s cap), rendered, not removed meanwhile, unique (shown.js
// pick): one record {type: "appeared", selector, text: snippets by "\n"}
// at the window's end, before the next action, or at pagehide. A top
// document reached by navigation watches from its DOMContentLoaded,
// headings first. An agent's DOM action (the runtime's untrusted events
// between its "acting" on and off, actions/channel.js) is watched the same
// way, as type "agent_appeared" (testgen ties it to the agent's command):
// from "on" aside (a mousedown may change the page), as the watch from its
// first click, change, submit or Enter (the element's CSS), its window
// from "off". One without such an event (hover, get_text) records none
// and leaves the user's watch alone.
import { engine, record, view } from './env.js';
import { scrub } from './secrets.js';
import { pick } from './shown.js';

const HIDDEN = 'textarea,select,[contenteditable=""],[contenteditable="true"],[aria-hidden="true"]';
let watch = null;
let agent = null; // the agent's action's watch, aside till its first event

/** observed is a new watch of type after an action on selector, which starts with the nodes seed. */
function observed(selector, seed = [], type = 'appeared') {
  const w = { type, selector, nodes: new Set(seed), gone: new Set() };
  w.obs = new MutationObserver((ms) => took(w, ms));
  w.obs.observe(document, { childList: true, subtree: true, characterData: true });
  return w;
}

/** watchText ends the watch under way and starts w (by default a new one of selector and seed). */
export function watchText(selector, seed, w = observed(selector, seed)) {
  endWatch();
  w.end = Date.now() + 2000;
  watch = w;
  took(w, []);
}

/**
 * seedWatch adds to the watch under way (the last action capture/tap.js
 * held till the recorder came) the page's mutations since the first held
 * action (tap.changes): what it made appear before the recorder watched.
 */
export function seedWatch(ms) {
  if (watch && ms?.length) took(watch, ms);
}

/** took adds the mutations ms to watch w and, for the one under way, sets when it ends. */
function took(w, ms) {
  for (const m of ms) {
    for (const n of m.type === 'characterData' ? [m.target] : m.addedNodes) if (w.nodes.size < 60) w.nodes.add(n);
    for (const n of m.removedNodes) if (w.gone.size < 60) w.gone.add(engine.norm((n.textContent || '').slice(0, 500)));
  }
  if (w !== watch) return;
  clearTimeout(w.timer);
  w.timer = setTimeout(endWatch, Math.max(0, Math.min(w.nodes.size ? 500 : 2e3, w.end - Date.now())));
}

/** endWatch ends the watch under way, if any, and records the text it saw appear. */
export function endWatch() {
  const w = watch;
  if (!w) return;
  watch = null;
  took(w, w.obs.takeRecords());
  clearTimeout(w.timer);
  w.obs.disconnect();
  const texts = shownTexts(w.nodes);
  if (!texts.length) return;
  const shown = pick(texts, { gone: w.gone, page: () => document.body?.textContent || '' });
  if (!shown.length) return;
  const rec = { kind: 'action', ts: Date.now(), type: w.type, selector: w.selector, text: shown.join('\n') };
  scrub(rec);
  record(rec);
}

/** shownTexts are the rendered texts of nodes (and of their parents, each read once: a page's body may hold megabytes). */
function shownTexts(nodes) {
  const texts = [];
  const parents = new Set();
  const add = (t) => {
    const el = t.parentElement;
    if (!el || !el.isConnected || el.closest(HIDDEN) || !view.visible(el)) return;
    if (!parents.has(el)) {
      parents.add(el);
      texts.push(engine.norm(el.textContent.slice(0, 500)));
    }
    texts.push(engine.norm(t.data));
  };
  for (const n of nodes) {
    if (n.nodeType === 3) add(n);
    if (n.nodeType !== 1) continue;
    const it = document.createTreeWalker(n, NodeFilter.SHOW_TEXT);
    for (let t, i = 0; i < 50 && (t = it.nextNode()); i++) add(t);
  }
  return texts;
}

/**
 * agentActed starts the agent's action's watch (set aside at "acting"
 * on) from its event of type on el: a click, change, submit or Enter.
 */
export function agentActed(type, e, el) {
  if (agent && type !== 'input' && (type !== 'keydown' || e.key === 'Enter')) {
    agent.selector = engine.cssOf(el);
    watchText(agent.selector, [], agent);
    agent = null;
  }
}

/** onActing follows actions/channel.js's "acting" signal: on sets a watch aside, off starts the window of the agent's. */
export function onActing(e) {
  try {
    const on = JSON.parse(e.detail)?.on === true;
    if (agent) {
      agent.obs.disconnect();
      agent = null;
    } else if (!on && watch?.type === 'agent_appeared') {
      watch.end = Date.now() + 2000;
      took(watch, []);
    }
    if (on) agent = observed('', [], 'agent_appeared');
  } catch {
    // recording must never break the page
  }
}
