// The outline being written (actions/core/outline.js): its lines under the
// maxChars budget, and the run, the line a block's inline content (text
// and links) is gathered on before it is pushed.
import { engine } from '../../dom/engine.js';

const { clip, norm } = engine;

/**
 * newOutline is the state of one outline being written (w below): the
 * options, the lines so far and their characters, the interactive
 * elements counted, truncated (maxChars reached), clipped (lines whose
 * text was cut); run, the line being built from a block's inline content
 * (text and links): {depth, s, prefix, text (characters of text so far),
 * cut (its text was cut: no more text), wasCut (some text was cut)};
 * pending, the landmark lines of interactive_only mode, printed when a
 * descendant is; inLine, set while a heading's or a table row's content
 * is read: all of it goes on one line, whatever blocks it is wrapped in.
 */
export function newOutline(opts) {
  const { refFor, view, interactiveOnly = false, maxText = 100, onFrame } = opts;
  return {
    refFor, view, interactiveOnly, maxText, onFrame, maxChars: opts.maxChars ?? Infinity,
    lines: [], chars: 0, interactive: 0, truncated: false, clipped: 0, run: null, pending: [], inLine: false,
  };
}

/** push adds the line s at depth, or reports false (and marks w truncated) when it would pass maxChars. */
export function push(w, depth, s) {
  const line = ' '.repeat(depth) + s;
  if (w.chars + line.length + 1 > w.maxChars) {
    w.truncated = true;
    return false;
  }
  w.lines.push(line);
  w.chars += line.length + 1;
  return true;
}

/** flush ends the run being built, pushing it unless it holds nothing; false when it did not fit. */
export function flush(w) {
  if (!w.run) return true;
  const r = w.run;
  w.run = null;
  const line = norm(r.s);
  if (r.wasCut) w.clipped++;
  return !line || line === norm(r.prefix) || push(w, r.depth, line);
}

/** openRun starts a run at depth (starting with prefix) unless one is open there. */
export function openRun(w, depth, prefix = '') {
  if (w.run && w.run.depth !== depth) flush(w);
  if (!w.run) w.run = { depth, s: prefix, prefix, text: 0, cut: false };
}

/**
 * gap puts a space before an element's piece when nothing separates it
 * from what the line holds (as textOf does between elements).
 */
export function gap(w) {
  if (w.run.s && !/\s$/.test(w.run.s)) w.run.s += ' ';
}

/** addText adds text t (an element's when element) to the run at depth, cut at maxText. */
export function addText(w, depth, t, element = false) {
  t = String(t).replace(/\s+/g, ' ');
  if (t === '' || (t === ' ' && (!w.run || w.run.depth !== depth))) return;
  openRun(w, depth);
  const run = w.run;
  if (run.cut) return;
  if (element && !t.startsWith(' ')) gap(w);
  if (run.text + t.length > w.maxText) {
    run.s += clip(t, Math.max(1, w.maxText - run.text));
    run.cut = run.wasCut = true;
    return;
  }
  run.s += t;
  run.text += t.length;
}

/** addInline adds s (a link, a control) to the run at depth. */
export function addInline(w, depth, s) {
  openRun(w, depth);
  gap(w);
  w.run.s += s;
}

/** flushPending prints the pending landmark lines not printed yet; false when one did not fit. */
export function flushPending(w) {
  for (const p of w.pending) {
    if (!p.printed) {
      if (!push(w, p.depth, p.text)) return false;
      p.printed = true;
    }
  }
  return true;
}

/** oneLine runs fn with w.inLine set. */
export function oneLine(w, fn) {
  const was = w.inLine;
  w.inLine = true;
  try {
    fn();
  } finally {
    w.inLine = was;
  }
}
