// The outline (actions/core.js): the page under an element as a compact,
// markdown-like text, one line per block, written under a character
// budget (writer.js), each element's line made by lines.js.
import { engine } from '../../dom/engine.js';
import { lineFor, linkFor } from './lines.js';
import { headingLevel, states } from './states.js';
import { addInline, addText, flush, flushPending, gap, newOutline, oneLine, openRun, push } from './writer.js';

const { roleOf, nameOf, textOf, isInteractive, hidden, kids, walk, rowTextOf, norm, clip, isElement, attr,
  NAME_FROM_CONTENT, INLINE_TAGS } = engine;

/** TEXT is a text node's nodeType. */
const TEXT = 3;

// Roles kept as structure in the outline even when they have no name.
export const LANDMARKS = new Set(['main', 'navigation', 'banner', 'contentinfo', 'complementary', 'form',
  'search', 'region', 'dialog', 'alertdialog']);

// Roles kept in the outline without a name, for the structure they give.
const STRUCTURE = new Set(['list', 'table', 'grid', 'treegrid', 'dialog', 'iframe']);

// Roles of a table row's cells: the outline puts a row on one line.
const CELLS = new Set(['cell', 'gridcell', 'columnheader', 'rowheader']);

// Roles whose content the outline does not show (their value says it).
const CLOSED = new Set(['textbox', 'searchbox', 'combobox', 'iframe', 'slider', 'spinbutton', 'progressbar', 'meter']);

// Tags that name another element (a control, a fieldset, a table): the
// outline shows their text as that element's name, not again on its own.
const NAMING_TAGS = new Set(['label', 'legend', 'caption', 'figcaption']);

/**
 * outline renders the tree under root as a compact, markdown-like
 * outline, one line per block, indented one space per level:
 *
 *   # Sign in
 *   Welcome back. Read the [terms](e2) first.
 *   form 'Login'
 *    e3 textbox 'Email' required =ada@example.com
 *    e4 button 'Sign in' disabled
 *
 * Headings are "#" lines (one per level); links are [name](ref states),
 * inline with the text around them; other interactive elements are lines
 * "ref role 'name' states =value"; a table row is one line with its cells
 * between bars ("| a | [b](e2) |"); landmarks, lists, tables and the like
 * are "role 'name'" lines over their indented content. Generic
 * containers are skipped (their children move up); a block's text is cut
 * at maxText characters (marked …). With interactiveOnly, only
 * interactive elements and the landmarks around them are shown.
 *
 * opts: {refFor, view, interactiveOnly, maxText = 100, maxChars, onFrame}
 * where onFrame(el, index) is told of each iframe's line (its document
 * is not read here: the worker splices it in). It returns {lines, interactive, chars, truncated, clipped} where lines
 * stop before maxChars characters (the whole tree when maxChars is
 * absent) and clipped counts the lines whose text was cut.
 */
export function outline(root, opts) {
  const w = newOutline(opts);
  for (const k of isElement(root) && root.localName !== 'html' && root.localName !== 'body' ? [root] : kids(root)) {
    visit(w, k, 0);
  }
  if (!w.truncated) flush(w);
  if (w.truncated) {
    // Count what was left out, for the note.
    w.interactive = 0;
    walk(root, (el) => {
      if (isInteractive(el) && (!w.view || w.view.visible(el, false))) w.interactive++;
    }, w.view);
  }
  const { lines, interactive, chars, truncated, clipped } = w;
  return { lines, interactive, chars, truncated, clipped };
}

/** visitKids visits node's children at depth, as a block of its own when block. */
function visitKids(w, node, depth, block) {
  if (block) flush(w);
  for (const k of kids(node)) visit(w, k, depth);
  if (block) flush(w);
}

/** visit writes node (a text or an element with what it holds) at depth. */
function visit(w, node, depth) {
  if (w.truncated) return;
  if (node.nodeType === TEXT) {
    if (!w.interactiveOnly) addText(w, depth, node.data ?? node.textContent ?? '');
    return;
  }
  if (!isElement(node) || hidden(node)) return;
  if (w.view && !w.view.visible(node, false)) return;
  const block = !w.inLine && !INLINE_TAGS.has(node.localName);
  if (NAMING_TAGS.has(node.localName) && !attr(node, 'role')) {
    for (const k of kids(node)) if (isElement(k) && (isInteractive(k) || hasInteractiveChild(k))) visit(w, k, depth);
    return;
  }
  const role = roleOf(node);
  if (role === 'presentation' && !isInteractive(node, '')) {
    visitKids(w, node, depth, block);
    return;
  }
  const act = role && isInteractive(node, role);
  const name = role ? nameOf(node, w.view, role) : '';
  if (!role || (!act && !name && !LANDMARKS.has(role) && !STRUCTURE.has(role))) {
    visitGeneric(w, node, depth, block);
    return;
  }
  if (w.interactiveOnly && !act && role !== 'iframe') {
    visitAround(w, node, depth, role, name);
    return;
  }
  if (w.interactiveOnly && !flushPending(w)) return;
  visitRoled(w, node, depth, block, role, name, act);
}

/**
 * visitGeneric writes a generic or unnamed element: its text when it
 * holds nothing with a role (one line of its own for a block), else its
 * children move up.
 */
function visitGeneric(w, node, depth, block) {
  if (!w.interactiveOnly && !hasRoledChild(node)) {
    if (block) flush(w);
    addText(w, depth, textOf(node, w.view), true);
    if (block) flush(w);
    return;
  }
  visitKids(w, node, depth, block);
}

/**
 * visitAround writes, in interactive_only mode, an element that is not
 * interactive: a landmark's line waits in pending for a descendant to be
 * printed; another's children move up.
 */
function visitAround(w, node, depth, role, name) {
  if (LANDMARKS.has(role)) {
    const p = { depth, text: lineFor(node, role, name, null, w.maxText), printed: false };
    w.pending.push(p);
    for (const k of kids(node)) visit(w, k, depth + 1);
    w.pending.pop();
  } else {
    for (const k of kids(node)) visit(w, k, depth);
  }
}

/** visitRoled writes an element with a role worth a line (act: it is interactive, counted and given a ref). */
function visitRoled(w, node, depth, block, role, name, act) {
  let ref = null;
  if (act) {
    w.interactive++;
    ref = w.refFor ? w.refFor(node) : null;
  }
  if (role === 'link') return visitLink(w, node, depth, block, name, ref);
  if (role === 'heading' && !w.inLine) return visitHeading(w, node, depth, name);
  if (role === 'row' && !act && !w.inLine) return visitRow(w, node, depth);
  const leaf = (NAME_FROM_CONTENT.has(role) || role === 'img') && name && norm(textOf(node, w.view)) === name &&
    !hasInteractiveChild(node);
  const closed = leaf || CLOSED.has(role) || (role === 'listbox' && node.localName === 'select');
  if (w.inLine && role !== 'iframe') {
    addInline(w, depth, lineFor(node, role, name, ref, w.maxText));
    if (!closed) for (const k of kids(node)) visit(w, k, depth);
    return;
  }
  flush(w);
  // A control without a name is shown with the text of its row
  // (in a table row, the line already holds it).
  const row = act && !name ? rowTextOf(node, w.view) : '';
  if (!push(w, depth, lineFor(node, role, name, ref, w.maxText, row))) return;
  if (role === 'iframe' && w.onFrame) w.onFrame(node, w.lines.length - 1);
  if (!closed) visitKids(w, node, depth + 1, true);
}

/** visitLink writes a link as markdown, inline with the text around it unless it is a block or holds controls. */
function visitLink(w, node, depth, block, name, ref) {
  const inner = hasInteractiveChild(node);
  const md = linkFor(node, name, ref, w.maxText);
  if (!block && !inner && !w.interactiveOnly) {
    addInline(w, depth, md);
    return;
  }
  flush(w);
  if (!push(w, depth, md)) return;
  if (inner) visitKids(w, node, depth + 1, true);
}

/** visitHeading writes a heading as a "#" line: its name, or its text and links when it holds controls. */
function visitHeading(w, node, depth, name) {
  flush(w);
  const hashes = '#'.repeat(headingLevel(node));
  const st = states(node, 'heading').filter((s) => !/^h\d$/.test(s));
  if (!hasInteractiveChild(node)) {
    push(w, depth, `${hashes} ${clip(name, w.maxText)}${st.length ? ' ' + st.join(' ') : ''}`);
    return;
  }
  openRun(w, depth, hashes + ' '); // its text and links on the heading's line
  oneLine(w, () => {
    for (const k of kids(node)) visit(w, k, depth);
  });
  flush(w);
}

/** visitRow writes a table row as one line, its cells between bars: | a | [b](e2) | */
function visitRow(w, node, depth) {
  flush(w);
  openRun(w, depth, '|');
  oneLine(w, () => {
    for (const k of kids(node)) {
      const cell = isElement(k) && !hidden(k) && (!w.view || w.view.visible(k, false)) && CELLS.has(roleOf(k));
      if (cell) visitCell(w, k, depth);
      else visit(w, k, depth);
    }
  });
  flush(w);
}

/** visitCell writes a row's cell k and the bar after it; each cell's text has maxText. */
function visitCell(w, k, depth) {
  openRun(w, depth, '|');
  gap(w);
  w.run.text = 0;
  w.run.cut = false;
  if (isInteractive(k)) visit(w, k, depth);
  else for (const c of kids(k)) visit(w, c, depth);
  if (w.run?.depth === depth) {
    gap(w);
    w.run.s += '|';
  }
}

/** hasRoledChild reports whether an element under el has a role (not presentation) or is interactive. */
function hasRoledChild(el) {
  let found = false;
  walk(el, (c) => {
    if (found) return false;
    const r = roleOf(c);
    if ((r && r !== 'presentation') || isInteractive(c, r)) found = true;
  });
  return found;
}

/** hasInteractiveChild reports whether an element under el is interactive. */
function hasInteractiveChild(el) {
  let found = false;
  walk(el, (c) => {
    if (found) return false;
    if (isInteractive(c)) found = true;
  });
  return found;
}
