// The composed tree as the engine reads it (dom/engine.js): an element's
// children through its shadow root or slot, its parent, root and document
// across shadow boundaries, the walk over it, and the text a user sees in it.
import { SKIP_TAGS, TEXT, attr, isElement } from './basics.js';
import { inputType } from './roles.js';

/** hidden reports an element that is never shown or read (without layout). */
export function hidden(el) {
  return SKIP_TAGS.has(el.localName) || el.hasAttribute('hidden') || attr(el, 'aria-hidden') === 'true' ||
    (el.localName === 'input' && inputType(el) === 'hidden');
}

/**
 * shadowOf is el's shadow root, null for none: an open one, or a closed
 * one on a custom element where this world may open it
 * (chrome.dom.openOrClosedShadowRoot, which content scripts have; the
 * page's MAIN world and the node tests have no chrome.dom). Built-in
 * elements are not asked: a closed root on one is rare, and the call
 * would cost on every element of a page.
 */
export function shadowOf(el) {
  if (!isElement(el)) return null;
  if (el.shadowRoot) return el.shadowRoot;
  if (!String(el.localName).includes('-')) return null;
  const dom = globalThis.chrome?.dom;
  if (!dom || typeof dom.openOrClosedShadowRoot !== 'function') return null;
  try {
    return dom.openOrClosedShadowRoot(el) || null;
  } catch {
    return null;
  }
}

/** kids returns a node's children in the composed tree: its shadow root's (shadowOf), else its own. */
export function kids(node) {
  const sr = shadowOf(node);
  if (sr) return Array.from(sr.childNodes);
  if (isElement(node) && node.localName === 'slot' && typeof node.assignedNodes === 'function') {
    const assigned = node.assignedNodes();
    if (assigned.length) return Array.from(assigned);
  }
  return Array.from(node.childNodes || []);
}

/**
 * textOf is the text a user sees in node: text nodes, img alt, input
 * values, skipping hidden subtrees, joined with single spaces.
 */
export function textOf(node, view, depth = 0) {
  if (node.nodeType === TEXT) return node.data ?? node.textContent ?? '';
  if (!isElement(node) || depth > 50) return '';
  if (hidden(node) || (view && !view.visible(node, true))) return '';
  if (node.localName === 'img') return attr(node, 'alt') || '';
  if (node.localName === 'input') {
    const t = inputType(node);
    return t === 'submit' || t === 'button' || t === 'reset' ? node.value || '' : '';
  }
  if (node.localName === 'select' || node.localName === 'textarea') return '';
  let s = '';
  for (const k of kids(node)) {
    const t = textOf(k, view, depth + 1);
    if (t) s += (s && !/\s$/.test(s) && !/^\s/.test(t) && isElement(k) ? ' ' : '') + t;
  }
  return s;
}

/** parentOf is el's parent in the composed tree (a shadow root leads to its host). */
export const parentOf = (el) => {
  const p = el.parentNode;
  return p && p.nodeType === 11 ? p.host : p;
};

/** rootOf is the document or shadow root el is in. */
export function rootOf(el) {
  let n = el;
  while (n.parentNode) n = n.parentNode;
  return n;
}

/** docOf is the document el is in, through shadow hosts (the root interact searches). */
export function docOf(el) {
  let r = rootOf(el);
  while (r.host) r = rootOf(r.host);
  return r;
}

/** hostOf is the shadow host of the tree el is in, null in a document. */
export const hostOf = (el) => rootOf(el).host || null;

/**
 * byId is the element with id in el's tree: its shadow root's (an IDREF
 * such as aria-labelledby does not cross a shadow boundary), else its
 * document's; null for none.
 */
export function byId(el, id) {
  const root = rootOf(el);
  if (typeof root.getElementById === 'function') return root.getElementById(id);
  const doc = el.ownerDocument;
  return doc && typeof doc.getElementById === 'function' ? doc.getElementById(id) : null;
}

/** contains reports whether node is a, or is inside a, in the composed tree. */
export function contains(a, node) {
  for (let n = node; n; n = n.parentNode || n.host) if (n === a) return true;
  return false;
}

/**
 * walk calls visit(el) for every element under root in the composed tree
 * (open shadow roots included), in document order, skipping hidden
 * subtrees; visit returning false skips the element's subtree.
 */
export function walk(root, visit, view) {
  const stack = [...kids(root)].reverse();
  while (stack.length) {
    const n = stack.pop();
    if (!isElement(n) || hidden(n)) continue;
    if (visit(n) === false) continue;
    const k = kids(n);
    for (let i = k.length - 1; i >= 0; i--) stack.push(k[i]);
  }
}

/** queryDeep runs querySelectorAll in root and every shadow root under it (shadowOf). */
export function queryDeep(root, selector) {
  const out = Array.from(root.querySelectorAll(selector));
  walk(root, (el) => {
    const sr = shadowOf(el);
    if (sr) out.push(...sr.querySelectorAll(selector));
  });
  return out;
}
