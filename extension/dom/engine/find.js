// Target matching (dom/engine.js): the elements a role and name, a text or
// a CSS selector names, and the control a label stands for.
import { attr, isElement, norm, textMatches } from './basics.js';
import { labelOf } from './rows.js';
import { roleOf } from './roles.js';
import { byId, hidden, kids, queryDeep, shadowOf, textOf, walk } from './tree.js';

/**
 * findByRole returns the elements under root with role whose name
 * matches name (any name when name is empty): the accessible name, or
 * for a control without one the text of its row, as the outline shows
 * it. Exact name matches win: when some candidates match exactly, the
 * others are dropped.
 */
export function findByRole(root, role, name, exact, view) {
  const found = [];
  walk(root, (el) => {
    const r = roleOf(el);
    if (r !== role) return;
    const n = labelOf(el, view, r);
    if (!name || textMatches(n, name, exact)) found.push({ el, name: n });
  }, view);
  return preferExact(found, name, exact);
}

/**
 * findByText returns the innermost elements under root whose visible
 * text matches text: an element is dropped when a child element also
 * matches. Without exact, exact matches win over substring matches.
 */
export function findByText(root, text, exact, view) {
  const found = [];
  const visit = (el) => {
    if (hidden(el) || (view && !view.visible(el, true))) return;
    const t = textOf(el, view);
    if (!textMatches(t, text, false)) return; // no descendant can match either
    const before = found.length;
    for (const k of kids(el)) if (isElement(k)) visit(k);
    if (found.length === before && textMatches(t, text, exact)) found.push({ el, name: norm(t) });
  };
  for (const k of kids(root)) if (isElement(k)) visit(k);
  return preferExact(found, text, exact);
}

// preferExact keeps the exact matches of want when there are some.
function preferExact(found, want, exact) {
  if (exact || !want || found.length < 2) return found;
  const w = norm(want).toLowerCase();
  const exacts = found.filter((f) => norm(f.name).toLowerCase() === w);
  return exacts.length ? exacts : found;
}

/**
 * controlOf returns the form control a label (or an element inside one)
 * stands for, else el itself; fill, select and check act on it.
 */
export function controlOf(el) {
  for (let n = el; n && isElement(n); n = n.parentNode) {
    if (n.localName === 'label') {
      if (n.control) return innerControl(n.control);
      const f = attr(n, 'for');
      if (f) return innerControl(byId(n, f) || el);
      let inner = null;
      walk(n, (c) => {
        if (!inner && (['input', 'select', 'textarea'].includes(c.localName) || (String(c.localName).includes('-') && shadowOf(c)))) inner = c;
        if (inner) return false;
      });
      return innerControl(inner || el);
    }
  }
  return el;
}

// Roles of the control a labelled custom element stands for.
const CONTROL_ROLES = new Set(['textbox', 'searchbox', 'checkbox', 'radio', 'switch', 'combobox', 'listbox', 'slider', 'spinbutton']);

/**
 * innerControl is the control in a labelled custom element's shadow tree
 * (the first with a form control's role: md-checkbox's input), else el.
 */
function innerControl(el) {
  if (!shadowOf(el)) return el;
  let inner = null;
  walk(el, (c) => {
    if (inner) return false;
    if (CONTROL_ROLES.has(roleOf(c))) inner = c;
  });
  return inner || el;
}

/**
 * resolve returns the elements under root a target names: a CSS
 * selector (a string or {selector}; an invalid one throws the browser's
 * SyntaxError), {role, name?, exact?} or {text, exact?}. A locator goes
 * through targetOf first. Refs are the runtime's.
 */
export function resolve(target, root, view) {
  const t = typeof target === 'string' ? { selector: target } : target || {};
  if (t.selector) return queryDeep(root, t.selector);
  if (t.role) return findByRole(root, t.role, t.name || '', Boolean(t.exact), view).map((f) => f.el);
  if (t.text) return findByText(root, t.text, Boolean(t.exact), view).map((f) => f.el);
  return [];
}
