// An element's accessible role (dom/engine.js): its role attribute, else
// the implicit role HTML gives its tag; and which roles an agent acts on.
import { attr, isElement, norm } from './basics.js';

const INPUT_ROLES = {
  button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button',
  checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton',
  search: 'searchbox', email: 'textbox', tel: 'textbox', text: 'textbox', url: 'textbox',
  password: 'textbox', date: 'textbox', 'datetime-local': 'textbox', month: 'textbox',
  time: 'textbox', week: 'textbox', color: 'button', hidden: '',
};

const TAG_ROLES = {
  button: 'button', textarea: 'textbox', option: 'option', nav: 'navigation', main: 'main',
  aside: 'complementary', form: 'form', article: 'article', dialog: 'dialog', ul: 'list',
  ol: 'list', menu: 'list', li: 'listitem', table: 'table', tr: 'row', td: 'cell', th: 'columnheader',
  p: 'paragraph', details: 'group', fieldset: 'group', summary: 'button', progress: 'progressbar',
  meter: 'meter', iframe: 'iframe', frame: 'iframe', hr: 'separator', blockquote: 'blockquote',
  figure: 'figure', thead: 'rowgroup', tbody: 'rowgroup', tfoot: 'rowgroup', dl: 'list', dt: 'term',
  dd: 'definition', search: 'search', output: 'status', label: 'label', legend: 'legend',
  pre: 'code', code: 'code',
};

/** INTERACTIVE_ROLES are the roles an agent acts on: each gets a ref in the outline. */
export const INTERACTIVE_ROLES = new Set([
  'button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'option',
  'slider', 'spinbutton', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem',
]);

// Roles whose name comes from their content (WAI-ARIA "name from: contents").
export const NAME_FROM_CONTENT = new Set([
  'button', 'link', 'heading', 'option', 'cell', 'gridcell', 'columnheader', 'rowheader', 'checkbox', 'radio',
  'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'tooltip', 'term',
  'legend', 'caption', 'label', 'row',
]);

/** inputType is the lower-case type of an input, "text" when absent or unknown. */
export function inputType(el) {
  const t = String(attr(el, 'type') || 'text').toLowerCase();
  return Object.hasOwn(INPUT_ROLES, t) ? t : 'text';
}

/** hasAncestor reports whether el has an ancestor with one of the tags. */
function hasAncestor(el, tags) {
  for (let p = el.parentNode; p; p = p.parentNode) {
    if (isElement(p) && tags.includes(p.localName)) return true;
  }
  return false;
}

/**
 * roleOf returns the element's accessible role: its role attribute's first
 * token, else the implicit role of its tag, else "" (a generic element).
 */
export function roleOf(el) {
  const explicit = norm(attr(el, 'role')).split(' ')[0];
  if (explicit) return explicit === 'none' ? 'presentation' : explicit;
  const tag = el.localName;
  switch (tag) {
    case 'a':
    case 'area':
      return el.hasAttribute('href') ? 'link' : '';
    case 'input':
      return INPUT_ROLES[inputType(el)] ?? 'textbox';
    case 'select':
      return el.multiple || Number(attr(el, 'size')) > 1 ? 'listbox' : 'combobox';
    case 'img':
      return attr(el, 'alt') === '' ? 'presentation' : 'img';
    case 'svg':
      return attr(el, 'aria-label') || attr(el, 'aria-labelledby') ? 'img' : '';
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6':
      return 'heading';
    case 'header':
      return hasAncestor(el, ['article', 'aside', 'main', 'nav', 'section']) ? '' : 'banner';
    case 'footer':
      return hasAncestor(el, ['article', 'aside', 'main', 'nav', 'section']) ? '' : 'contentinfo';
    case 'section':
      return attr(el, 'aria-label') || attr(el, 'aria-labelledby') ? 'region' : '';
    case 'th':
      return attr(el, 'scope') === 'row' ? 'rowheader' : 'columnheader';
  }
  if (Object.hasOwn(TAG_ROLES, tag)) return TAG_ROLES[tag];
  const ce = attr(el, 'contenteditable');
  if (ce !== null && ce !== 'false') return 'textbox';
  return '';
}

/** isInteractive reports an element an agent can act on. */
export function isInteractive(el, role = roleOf(el)) {
  if (INTERACTIVE_ROLES.has(role)) return true;
  const ti = attr(el, 'tabindex');
  return ti !== null && Number(ti) >= 0 && role !== 'dialog' && role !== 'region' && role !== 'main';
}
