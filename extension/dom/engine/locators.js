// An element's description and its most stable locator (dom/engine.js):
// a test id, its role and name, its label, else a short CSS path; and the
// interact target that finds what a locator names again.
import { attr, attrSelector, clip, cssIdent, isElement, norm } from './basics.js';
import { controlOf, findByRole, findByText } from './find.js';
import { nameOf } from './names.js';
import { roleOf } from './roles.js';
import { docOf, queryDeep, rootOf, shadowOf, textOf } from './tree.js';

/**
 * describe names an element for an agent in a few words, like a short
 * selector: tag, id, first classes, role and name
 * (`div#overlay.modal-backdrop`, `button "Close"`).
 */
export function describe(el, view) {
  if (!isElement(el)) return String(el?.nodeName || 'node').toLowerCase();
  let s = el.localName;
  if (el.id) s += '#' + cssIdent(el.id);
  const cls = norm(typeof el.className === 'string' ? el.className : attr(el, 'class')).split(' ').filter(Boolean);
  for (const c of cls.slice(0, 2)) s += '.' + cssIdent(c);
  const role = roleOf(el);
  const name = clip(nameOf(el, view, role), 40);
  if (name) s += ` "${name}"`;
  return s;
}

// --- locators ------------------------------------------------------------

/**
 * TEST_ATTRS are the test id attributes a locator uses, in this order:
 * data-testid (Playwright's getByTestId default), then data-test-id,
 * data-test, data-cy (Cypress) and data-qa.
 */
export const TEST_ATTRS = ['data-testid', 'data-test-id', 'data-test', 'data-cy', 'data-qa'];

/** MAX_LOCATOR_NAME is the longest accessible name or label a locator relies on. */
const MAX_LOCATOR_NAME = 100;

/** MAX_SELECTOR is the longest CSS path cssOf builds (the capture keeps 400 characters). */
const MAX_SELECTOR = 400;

/**
 * countAttr returns how many elements under root (hidden ones included)
 * have the attribute name equal to value, stopping at 2; deep goes into
 * open shadow roots, as queryDeep does. The browser's querySelectorAll
 * answers when there is one (the fake DOM of the tests has none).
 */
function countAttr(root, name, value, deep) {
  if (typeof root.querySelectorAll === 'function') {
    const sel = attrSelector(name, value);
    return Math.min(2, deep ? queryDeep(root, sel).length : root.querySelectorAll(sel).length);
  }
  return count(root, (c) => attr(c, name) === value, deep);
}

// count is countAttr's walk for any predicate.
function count(root, pred, deep) {
  let n = 0;
  const stack = [...(root.childNodes || [])];
  while (stack.length && n < 2) {
    const c = stack.pop();
    if (!isElement(c)) continue;
    if (pred(c)) n++;
    stack.push(...(c.childNodes || []));
    const sr = deep && shadowOf(c);
    if (sr) stack.push(...sr.childNodes);
  }
  return n;
}

// stableId says whether an id looks written by a person rather than
// generated (React's ":r1:", long digit runs, hashes).
const stableId = (id) => id.length <= 64 && !/^[:\d]|:|\d{4,}|[0-9a-f]{8,}/i.test(id);

/**
 * cssOf returns a short CSS selector that matches el alone in its
 * document (or shadow root): its person-written id, else a child path
 * (tag:nth-of-type) from the nearest ancestor with such an id, or from
 * body. A path over MAX_SELECTOR keeps its shortest tail that matches el
 * alone, else is "". "" for a non-element.
 */
export function cssOf(el) {
  if (!isElement(el)) return '';
  const root = rootOf(el);
  const steps = [];
  for (let n = el; isElement(n); n = n.parentNode) {
    const id = attr(n, 'id');
    if (id && stableId(id) && countAttr(root, 'id', id) === 1) {
      steps.unshift({ text: '#' + cssIdent(id) });
      break;
    }
    const parent = n.parentNode;
    const step = { text: n.localName, tag: n.localName, nth: 0 };
    if (isElement(parent) && step.tag !== 'body' && step.tag !== 'html') {
      const same = sameOf(n);
      if (same.length > 1) {
        step.nth = same.indexOf(n) + 1;
        step.text += `:nth-of-type(${step.nth})`;
      }
    }
    steps.unshift(step);
    if (step.tag === 'body' || step.tag === 'html') break;
  }
  const path = steps.map((s) => s.text).join(' > ');
  return path.length <= MAX_SELECTOR ? path : shortTail(root, steps);
}

// sameOf lists n and its siblings of n's tag, in order.
const sameOf = (n) => Array.from(n.parentNode.childNodes).filter((c) => isElement(c) && c.localName === n.localName);

// shortTail is the shortest tail of a path too long for MAX_SELECTOR
// (its steps from the front dropped) that still matches the path's
// element alone in root and fits; "" when none does. Cutting the text
// instead would cut the element's own step and name another element.
function shortTail(root, steps) {
  for (let k = steps.length - 1; k >= 1; k--) {
    const tail = steps.slice(k);
    const text = tail.map((s) => s.text).join(' > ');
    if (text.length > MAX_SELECTOR) break;
    if (count(root, (c) => tailMatches(c, tail), false) === 1) return text;
  }
  return '';
}

// tailMatches says whether el matches tail's child path (in its root).
function tailMatches(el, tail) {
  let n = el;
  for (let i = tail.length - 1; i >= 0; i--, n = n.parentNode) {
    if (!isElement(n) || n.localName !== tail[i].tag) return false;
    if (tail[i].nth && sameOf(n).indexOf(n) + 1 !== tail[i].nth) return false;
  }
  return true;
}

/**
 * @typedef {{by: 'testid', attr: string, value: string} | {by: 'role', role: string, name: string} |
 *   {by: 'label', name: string} | {by: 'css', selector: string}} Locator
 */

/**
 * locatorOf returns the most stable way to find el again (a Locator), the first of:
 *   {by: "testid", attr, value}  a test id attribute (TEST_ATTRS) unique in the document
 *   {by: "role", role, name}     its role and accessible name, when exactly el matches them
 *   {by: "label", name}          the text of its label, when that text finds el alone
 *   {by: "css", selector}        cssOf(el)
 * Every field is a string (the capture records it as such); targetOf
 * turns it into an interact target, and a test generator maps it to
 * getByTestId / getByRole / getByLabel / locator(css).
 */
export function locatorOf(el, view) {
  const doc = docOf(el);
  for (const a of TEST_ATTRS) {
    const v = attr(el, a);
    if (v && countAttr(doc, a, v, true) === 1) return { by: 'testid', attr: a, value: v };
  }
  const role = roleOf(el);
  if (role && role !== 'presentation') {
    const name = nameOf(el, view, role);
    if (name && name.length <= MAX_LOCATOR_NAME && only(findByRole(doc, role, name, true, view), el)) {
      return { by: 'role', role, name };
    }
  }
  const label = el.labels && el.labels[0];
  if (label) {
    const name = norm(textOf(label, view));
    if (name && name.length <= MAX_LOCATOR_NAME && only(findByText(doc, name, true, view), el, controlOf)) {
      return { by: 'label', name };
    }
  }
  return { by: 'css', selector: cssOf(el) };
}

// only reports whether found holds one match and it stands for el.
const only = (found, el, to = (x) => x) => found.length === 1 && to(found[0].el) === el;

/**
 * targetOf is the interact target that finds what a locator names: a CSS
 * selector string, {role, name, exact: true} or {text, exact: true} (a
 * label's text: fill and type act on its control, a click on a label
 * reaches its control). null for what is not a locator.
 */
export function targetOf(loc) {
  switch (loc?.by) {
    case 'testid': return TEST_ATTRS.includes(loc.attr) && loc.value ? attrSelector(loc.attr, loc.value) : null;
    case 'role': return loc.role && loc.name ? { role: loc.role, name: loc.name, exact: true } : null;
    case 'label': return loc.name ? { text: loc.name, exact: true } : null;
    case 'css': return loc.selector || null;
    default: return null;
  }
}
