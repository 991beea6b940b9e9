// The DOM engine's smallest parts (dom/engine.js): node types, the tags it
// reads specially, and the string helpers every other part uses.

/** ELEMENT and TEXT are the nodeTypes of an element and a text node. */
const ELEMENT = 1;
export const TEXT = 3;

// Tags whose content is never shown or read.
export const SKIP_TAGS = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title']);

/** norm collapses white space and trims. */
export const norm = (s) => String(s ?? '').replace(/\s+/g, ' ').trim();

/** clip cuts s to n characters, marking the cut with an ellipsis. */
export const clip = (s, n) => (s.length > n ? s.slice(0, n - 1) + '…' : s);

/** isElement reports whether n is an element node. */
export const isElement = (n) => n && n.nodeType === ELEMENT;

/** attr is el's attribute name, null when absent or when el has no attributes (a text node). */
export const attr = (el, name) => (el.getAttribute ? el.getAttribute(name) : null);

/**
 * textMatches reports whether have matches want: case-insensitive
 * substring, or exact (after collapsing white space) when exact.
 */
export function textMatches(have, want, exact) {
  const h = norm(have);
  const w = norm(want);
  if (!w) return false;
  return exact ? h === w : h.toLowerCase().includes(w.toLowerCase());
}

/** cssIdent escapes s as a CSS identifier (an id or a class in a selector). */
export const cssIdent = (s) => String(s).replace(/[^a-zA-Z0-9_-]/g, (c) => '\\' + c).replace(/^(\d)/, '\\3$1 ');

/** attrSelector is [name="value"] with value escaped for a CSS string. */
export const attrSelector = (name, value) => `[${name}="${String(value).replace(/["\\]/g, (c) => '\\' + c)}"]`;

// Tags whose content flows inline: their text and links join the line of
// the block around them, as on the page.
export const INLINE_TAGS = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'br', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i',
  'kbd', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'wbr']);
