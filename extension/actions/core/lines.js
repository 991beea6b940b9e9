// How one element reads on a line of the outline (actions/core/outline.js):
// "ref role 'name' states =value", a native select's options, a link as
// markdown.
import { engine } from '../../dom/engine.js';
import { states, valueOf } from './states.js';

const { attr, clip, norm, textOf } = engine;

/** MAX_OPTIONS is how many of a native select's options its outline line lists. */
const MAX_OPTIONS = 8;

/**
 * quote wraps outline text in single quotes, unescaped: the outline
 * travels inside JSON, where double quotes would cost a backslash each.
 */
const quote = (s) => `'${s}'`;

/**
 * lineFor is one outline line: ref role 'name' states =value (an iframe:
 * its src); a control without a name shows its row's text as in 'row'.
 */
export function lineFor(el, role, name, ref, maxText, row = '') {
  let s = ref ? `${ref} ${role}` : role;
  if (name) s += ' ' + quote(clip(name, maxText));
  else if (row) s += ' in ' + quote(clip(row, Math.min(60, maxText)));
  const st = states(el, role);
  if (st.length) s += ' ' + st.join(' ');
  const v = norm(valueOf(el, role));
  if (v && v !== name) s += ' =' + clip(v, maxText);
  if (role === 'iframe') {
    const src = attr(el, 'src');
    if (src) s += ' ' + clip(src, 80);
  }
  if (el.localName === 'select') s += ' ' + optionsOf(el);
  return s;
}

/**
 * optionsOf lists a native select's options as {a|b|c}, the labels select
 * takes: at most MAX_OPTIONS, then +N for the rest, each clipped.
 */
function optionsOf(el) {
  const labels = Array.from(el.options || []).map((o) => clip(norm(textOf(o, null)) || String(o.value ?? ''), 30));
  const shown = labels.slice(0, MAX_OPTIONS);
  if (labels.length > MAX_OPTIONS) shown.push('+' + (labels.length - MAX_OPTIONS));
  return '{' + shown.join('|') + '}';
}

/** linkFor is a link as markdown: [name](ref states), with its href when it has no name. */
export function linkFor(el, name, ref, maxText) {
  const parts = ref ? [ref] : [];
  parts.push(...states(el, 'link'));
  if (!name) {
    const href = attr(el, 'href');
    if (href && !href.startsWith('javascript:') && href !== '#') parts.push(clip(href, 80));
  }
  return `[${clip(name, maxText)}](${parts.join(' ')})`;
}
