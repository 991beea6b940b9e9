// Accessible names by the W3C accname 1.2 rules (dom/engine.js): the text
// alternative of an element, step by step (2A to 2I), and the labels HTML
// gives its controls, those of a custom element's inner control included.
import { INLINE_TAGS, SKIP_TAGS, TEXT, attr, attrSelector, isElement, norm } from './basics.js';
import { NAME_FROM_CONTENT, inputType, roleOf } from './roles.js';
import { byId, hidden, hostOf, kids, rootOf, textOf, walk } from './tree.js';

// --- accessible names (W3C accname 1.2) ------------------------------------

// Roles that are embedded controls: inside another element's label or
// content they stand for their value, not their own name (accname 2E).
export const EMBEDDED = new Set(['textbox', 'searchbox', 'combobox', 'listbox', 'slider', 'spinbutton']);

/** hiddenNode reports an element that is hidden from users (accname 2A). */
export const hiddenNode = (el, view) => hidden(el) || Boolean(view && !view.visible(el, true));

/** controlValue is an embedded control's value, as a name reads it (accname 2E). */
function controlValue(el, role) {
  const tag = el.localName;
  if (role === 'combobox' || role === 'listbox') {
    if (tag === 'select') return Array.from(el.options || []).filter((o) => o.selected).map((o) => norm(textOf(o, null))).join(' ');
    return norm(attr(el, 'aria-valuetext') ?? '');
  }
  if (role === 'slider' || role === 'spinbutton') {
    return String(attr(el, 'aria-valuetext') ?? attr(el, 'aria-valuenow') ?? el.value ?? '');
  }
  if (tag === 'input' || tag === 'textarea') return String(el.value ?? '');
  return textOf(el, null);
}

/**
 * textAlt computes the text alternative of node (accname 1.2 step 2) in
 * the traversal c: {root, labelledby (inside an aria-labelledby
 * traversal), content (inside a name from content), hiddenOk (inside a
 * hidden node aria-labelledby names), depth}.
 */
function textAlt(node, view, c, role) {
  if (node.nodeType === TEXT) return node.data ?? node.textContent ?? ''; // 2G
  if (!isElement(node) || c.depth > 30) return '';
  const el = node;
  const inside = el !== c.root;
  if (inside && !c.hiddenOk && hiddenNode(el, view)) return ''; // 2A
  if (SKIP_TAGS.has(el.localName)) return '';
  const r = role ?? roleOf(el);
  // 2B: aria-labelledby, not followed again inside one.
  if (!c.labelledby) {
    const ids = norm(attr(el, 'aria-labelledby'));
    if (ids) {
      const parts = [];
      for (const id of ids.split(' ')) {
        const t = byId(el, id);
        if (!t) continue;
        const hid = c.hiddenOk || hiddenNode(t, view);
        parts.push(norm(textAlt(t, view, { root: t, labelledby: true, content: true, hiddenOk: hid, depth: c.depth + 1 })));
      }
      const s = parts.filter(Boolean).join(' ');
      if (s) return s;
    }
  }
  const embedded = inside && (c.labelledby || c.content) && EMBEDDED.has(r);
  // 2C: aria-label (an embedded control in a label reads its value instead).
  if (!embedded) {
    const label = norm(attr(el, 'aria-label'));
    if (label) return label;
  }
  // 2D: the host language's own label, unless presentational.
  if (r !== 'presentation') {
    const n = nativeName(el, view, c, r);
    if (n) return n;
  }
  // 2E: an embedded control reads as its value.
  if (embedded) return controlValue(el, r);
  // 2F: name from content, for roles that take it and anywhere inside a
  // label, a labelledby traversal or another name from content.
  if (NAME_FROM_CONTENT.has(r) || c.labelledby || c.content) {
    const s = contentName(el, view, c);
    if (s.trim()) return s;
  }
  // 2I: the tooltip.
  return norm(attr(el, 'title'));
}

/** contentName joins the text alternatives of el's children (accname 2F). */
function contentName(el, view, c) {
  const inner = { ...c, content: true, depth: c.depth + 1 };
  let s = '';
  for (const k of kids(el)) {
    if (isElement(k) && k === c.root) continue;
    let t = textAlt(k, view, inner);
    if (!t) continue;
    // Block-level children read as separate words; inline ones run on.
    if (isElement(k) && !INLINE_TAGS.has(k.localName)) t = ` ${t} `;
    s += t;
  }
  return s;
}

/**
 * nativeName is the name HTML gives el (accname 2D, HTML-AAM): a button
 * input's value, a control's labels, then its title and placeholder, an
 * image's alt, a fieldset's legend, a table's caption, a figure's
 * figcaption, an svg's title.
 */
function nativeName(el, view, c, role) {
  const tag = el.localName;
  if (tag === 'input' || tag === 'textarea' || tag === 'select' || tag === 'button' || tag === 'meter' || tag === 'progress' || tag === 'output') {
    const t = tag === 'input' ? inputType(el) : '';
    if (t === 'submit' || t === 'reset' || t === 'button') {
      return norm(el.value) || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '');
    }
    if (t === 'image') return norm(attr(el, 'alt')) || norm(attr(el, 'value')) || norm(attr(el, 'title')) || 'Submit';
    const labels = el.labels && el.labels.length ? Array.from(el.labels) : hostLabels(el);
    if (labels.length) {
      const s = norm(labels.map((l) => norm(textAlt(l, view, { root: el, labelledby: c.labelledby, content: true, hiddenOk: c.hiddenOk, depth: c.depth + 1 }))).join(' '));
      if (s) return s;
    }
    if (tag === 'button') return '';
    return norm(attr(el, 'title')) || norm(attr(el, 'placeholder')) || norm(attr(el, 'aria-placeholder'));
  }
  if (tag === 'img' || tag === 'area') return norm(attr(el, 'alt'));
  const first = { fieldset: 'legend', table: 'caption', figure: 'figcaption', svg: 'title' }[tag];
  if (first) {
    const cap = Array.from(el.childNodes || []).find((k) => isElement(k) && k.localName === first);
    if (cap) return norm(tag === 'svg' ? cap.textContent : contentName(cap, view, { ...c, root: null }));
  }
  return '';
}

/**
 * hostLabels are the <label>s of the custom element whose shadow tree
 * holds the control el: a label around the host, or one whose for names
 * the host's id (a form-associated custom element, such as md-checkbox,
 * is labelled as a native control is, but its inner control's own
 * labels cannot reach past the shadow boundary). [] when el is not in a
 * custom element's shadow tree or the host has none.
 */
function hostLabels(el) {
  const host = hostOf(el);
  if (!host || !String(host.localName).includes('-')) return [];
  const out = [];
  for (let p = host.parentNode; isElement(p); p = p.parentNode) {
    if (p.localName === 'label' && !p.hasAttribute('for')) out.push(p);
  }
  const id = attr(host, 'id');
  if (id) {
    const root = rootOf(host);
    if (typeof root.querySelectorAll === 'function') out.push(...root.querySelectorAll(attrSelector('for', id)));
    else walk(root, (c) => { if (c.localName === 'label' && attr(c, 'for') === id) out.push(c); });
  }
  return out;
}

/**
 * nameOf returns the element's accessible name by the W3C accname 1.2
 * rules: aria-labelledby (hidden targets included), aria-label, the
 * host language's label (label[for], a wrapping label, a button input's
 * value, alt, legend, caption, figcaption), name from content for the
 * roles that take it (hidden content left out; embedded controls inside
 * read as their values), then title, and placeholder for fields.
 */
export function nameOf(el, view, role = roleOf(el)) {
  return norm(textAlt(el, view, { root: el, labelledby: false, content: false, hiddenOk: false, depth: 0 }, role));
}
