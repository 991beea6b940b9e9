// What a control without a name is known by (dom/engine.js): the text of
// the row or card it sits in; and whether a hit over an element belongs to
// its own component.
import { INLINE_TAGS, TEXT, attr, isElement, norm } from './basics.js';
import { EMBEDDED, hiddenNode, nameOf } from './names.js';
import { isInteractive, roleOf } from './roles.js';
import { contains, hostOf, kids, parentOf, walk } from './tree.js';

/**
 * partOf reports whether hit, the element at a point over el, belongs to
 * el's own component rather than covering it: a shadow host el is inside
 * (the browser's hit test stops at the host over slotted text), or
 * anything inside the host of el's shadow tree (its parts, nested
 * components such as an icon, slotted content) when that host is a widget (at most
 * WIDGET_CONTROLS interactive elements: a checkbox's painted box over its
 * hidden input, a button's ripple), not a whole app in one root.
 */
export function partOf(el, hit) {
  if (!isElement(hit)) return false;
  for (let h = hostOf(el); h; h = hostOf(h)) if (h === hit) return true;
  const host = hostOf(el);
  return Boolean(host && contains(host, hit) && controlsIn(host, WIDGET_CONTROLS + 1) <= WIDGET_CONTROLS);
}

/** WIDGET_CONTROLS is how many interactive elements a shadow host may hold and still be one widget. */
const WIDGET_CONTROLS = 3;

// --- the row's text -------------------------------------------------------------

// Roles of a container that is one row of a collection: a control without
// a name is known by the row's text.
const ROW_ROLES = new Set(['listitem', 'row', 'article', 'treeitem']);

// Roles a row never reaches past: the collection, or a region of its own.
const ROW_STOPS = new Set(['list', 'table', 'grid', 'treegrid', 'rowgroup', 'tree', 'listbox', 'menu',
  'menubar', 'tablist', 'radiogroup', 'group', 'form', 'main', 'navigation', 'banner', 'contentinfo',
  'complementary', 'search', 'region', 'dialog', 'alertdialog']);

/** ROW_TEXT is the longest row text kept; a container with more is not a row. */
const ROW_TEXT = 200;

/** ROW_CONTROLS is how many controls a container without a row role may hold and still be a card. */
const ROW_CONTROLS = 3;

/**
 * rowTextOf returns the text of the row control sits in, for a control
 * without an accessible name ("" when it has none): the closest list
 * item, table row or article, or a card-like container (few controls,
 * a little text), without the text of its other buttons. It climbs at
 * most 6 levels and stops at a list, table, form or landmark.
 */
export function rowTextOf(control, view) {
  let n = control;
  for (let level = 0; level < 6; level++) {
    n = parentOf(n);
    if (!isElement(n) || n.localName === 'body' || n.localName === 'html') return '';
    const r = roleOf(n);
    if (ROW_STOPS.has(r)) return '';
    const row = ROW_ROLES.has(r);
    if (!row && controlsIn(n, ROW_CONTROLS + 1) > ROW_CONTROLS) return '';
    const t = norm(rowText(n, control, view, { left: ROW_TEXT + 1 }));
    if (t.length > ROW_TEXT) return '';
    if (t || row) return t;
  }
  return '';
}

/** controlsIn counts the interactive elements under el, stopping at max. */
function controlsIn(el, max) {
  let n = 0;
  walk(el, (c) => {
    if (n >= max) return false;
    if (isInteractive(c)) n++;
  });
  return n;
}

/** rowText is the visible text under node, without skip's and the buttons', at most budget.left characters. */
function rowText(node, skip, view, budget) {
  if (budget.left <= 0) return '';
  if (node.nodeType === TEXT) {
    const t = node.data ?? node.textContent ?? '';
    budget.left -= t.trim().length;
    return t;
  }
  if (!isElement(node) || node === skip || hiddenNode(node, view)) return '';
  const r = roleOf(node);
  if (r === 'button' || EMBEDDED.has(r)) return '';
  if (node.localName === 'img') return attr(node, 'alt') || '';
  let s = '';
  for (const k of kids(node)) {
    const t = rowText(k, skip, view, budget);
    if (t) s += isElement(k) && !INLINE_TAGS.has(k.localName) ? ` ${t} ` : t;
  }
  return s;
}

/**
 * labelOf is what the outline and role matching know a control by: its
 * accessible name, else (an interactive element without one) the text of
 * its row (rowTextOf).
 */
export function labelOf(el, view, role = roleOf(el)) {
  const n = nameOf(el, view, role);
  return n || (isInteractive(el, role) ? rowTextOf(el, view) : '');
}
