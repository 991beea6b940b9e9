// The pure logic of the draw-mode overlay (overlay.js): rectangles from
// drags, what an annotation says about the element under it, and the body
// of POST /draw-mode/complete. An ES module: the worker, the overlay
// (bundled into dist/overlay.js), the note frame (dist/note.js) and the node
// tests import it.

/** MIN_DRAG is the smallest drag, in CSS pixels, that makes a rectangle; less is a click. */
export const MIN_DRAG = 4;
/** Caps on what is sent: the daemon caps them too (internal/annotate). */
export const MAX_NOTE = 500;
const MAX_TEXT = 200;
export const MAX_ITEMS = 20;
/** STYLES are the computed styles reported for an annotated element. */
export const STYLES = ['color', 'background-color', 'font-size', 'font-weight', 'display', 'visibility', 'opacity', 'z-index'];

/**
 * rectFrom is the rectangle a drag from a to b covers, in page
 * coordinates (both points are {x, y} in the page), whatever direction
 * it went; null when it is smaller than MIN_DRAG either way.
 */
export function rectFrom(a, b) {
  const r = { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), width: Math.abs(b.x - a.x), height: Math.abs(b.y - a.y) };
  if (r.width < MIN_DRAG && r.height < MIN_DRAG) return null;
  return round(r);
}

function round(r) {
  return { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
}

/** toPage converts a viewport rectangle (getBoundingClientRect) to page coordinates. */
export function toPage(r, scrollX, scrollY) {
  return round({ x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height });
}

/** center is the viewport point at the middle of page rectangle r. */
export function center(r, scrollX, scrollY) {
  return { x: r.x + r.width / 2 - scrollX, y: r.y + r.height / 2 - scrollY };
}

/** clip cuts s to n characters, marking the cut. */
export function clip(s, n) {
  s = String(s ?? '');
  return s.length <= n ? s : s.slice(0, n - 1) + '…';
}

const squash = (s) => String(s ?? '').replace(/\s+/g, ' ').trim();

/**
 * describeElement says what el is for the agent: selector, ref (usable
 * with interact), role, accessible name, text and a few computed styles.
 * core is gasolineCore, refFor the DOM runtime's (or null), style the
 * element's computed style.
 */
export function describeElement(el, { core, refFor, style }) {
  if (!el || el.nodeType !== 1) return undefined;
  const out = { tag: el.localName };
  try { out.selector = clip(core.cssOf(el), MAX_TEXT); } catch { /* no selector */ }
  if (refFor) {
    try { out.ref = refFor(el); } catch { /* no ref */ }
  }
  try {
    const role = core.roleOf(el);
    if (role) out.role = role;
    const name = squash(core.nameOf(el, null, role));
    if (name) out.name = clip(name, MAX_TEXT);
  } catch { /* no role */ }
  const text = squash(el.innerText ?? el.textContent);
  if (text) out.text = clip(text, MAX_TEXT);
  if (style) {
    out.styles = {};
    for (const p of STYLES) {
      const v = style.getPropertyValue(p);
      if (v) out.styles[p] = clip(v, 100);
    }
  }
  return out;
}

/**
 * donePost is the body the overlay sends for the annotations
 * [{note_key, rect, element?}], at most maxItems of them. The overlay
 * never holds the notes: each is typed in its own extension frame, and
 * the worker replaces note_key with what the user typed there (noteText)
 * before it posts /draw-mode/complete.
 */
export function donePost({ id, url, title, viewport, items, maxItems = MAX_ITEMS }) {
  return {
    correlation_id: id,
    url: clip(url, 2000),
    title: clip(title, MAX_TEXT),
    viewport,
    annotations: items.slice(0, Math.min(maxItems, MAX_ITEMS)).map((a) => {
      const out = { note_key: String(a.note_key), rect: a.rect };
      if (a.element) out.element = a.element;
      return out;
    }),
  };
}

/** noteText is a note as the agent receives it: one line, at most MAX_NOTE characters. */
export function noteText(s) {
  return clip(squash(s), MAX_NOTE);
}

/** cancelPost is the body of POST /draw-mode/complete that cancels session id. */
export function cancelPost(id, reason) {
  return { correlation_id: id, cancelled: true, reason: clip(reason, 200) };
}

/** instructionText is the line the user reads. */
export function instructionText(p) {
  const what = p.mode === 'pick' ? 'Click the elements' : 'Drag rectangles over what';
  const own = squash(p.instructions);
  return (own ? own + ' — ' : '') + `${what} you want to point out, add a note to each, then press Done (Ctrl+Enter); Esc cancels.`;
}

/**
 * editKey is what keydown e does to a note when typed: its character,
 * 'Backspace', or '' for anything else (shortcuts, arrows, composing).
 */
export function editKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return '';
  if (e.key === 'Backspace' || [...String(e.key)].length === 1) return e.key;
  return '';
}

/**
 * timedKeys is keys as a note takes them from another frame: at most
 * MAX_NOTE of {k, t} (a character or 'Backspace', when it was typed);
 * anything else is dropped.
 */
export function timedKeys(keys) {
  if (!Array.isArray(keys)) return [];
  return keys.filter((x) => (x?.k === 'Backspace' || (typeof x?.k === 'string' && [...x.k].length === 1)) && Number.isFinite(x.t))
    .slice(0, MAX_NOTE).map((x) => ({ k: x.k, t: x.t }));
}

/**
 * typedText is the text keys make (characters and 'Backspace', in the
 * order given), at most max characters; a Backspace takes back the
 * character before it.
 */
export function typedText(keys, max = MAX_NOTE) {
  let v = '';
  for (const k of keys) {
    if (k === 'Backspace') v = v.slice(0, v.length - ([...v].at(-1)?.length ?? 0));
    else if (typeof k === 'string' && [...k].length === 1 && v.length + k.length <= max) v += k;
  }
  return v;
}

/**
 * makeNote is what a note frame knows of its note while the user only
 * types at its end: every key typed for it, {k, t}, wherever it landed
 * (this frame, the overlay, another note's frame), kept in the order
 * typed (t, on the clock all frames share; keys of equal t in the order
 * they came). text() is those keys applied in that order, so a key that
 * comes late lands where it was typed, whatever was added since: the
 * order is the typing's, not the order the routes deliver in.
 *
 * Once the user edits the note otherwise (moves the caret, selects,
 * pastes, composes), release() makes it free: the input's value is the
 * note, nothing is tracked, add() returns false and the caller puts the
 * keys where it can.
 */
export function makeNote(max = MAX_NOTE) {
  let keys = []; // {k, t}, ascending t
  let free = false;
  return {
    get free() { return free; },
    text: () => typedText(keys.map((x) => x.k), max),
    /** add files timed keys in the order typed; false (and nothing done) when free. */
    add(list) {
      if (free) return false;
      for (const x of list) {
        let i = keys.length;
        while (i > 0 && keys[i - 1].t > x.t) i--;
        keys.splice(i, 0, { k: x.k, t: x.t });
      }
      return true;
    },
    /** takeFrom removes and returns the keys typed at or after at, in order ([] when free). */
    takeFrom(at) {
      if (free) return [];
      const i = keys.findIndex((x) => x.t >= at);
      return i < 0 ? [] : keys.splice(i);
    },
    release() { free = true; keys = []; },
  };
}

/**
 * handBack is the index in log (a frame's keys, {t} in the order typed)
 * of the first key typed at or after at, when the box of another note
 * was begun, while the frame had not had the focus since: that key and
 * those after it are the other note's. -1 for none.
 */
export function handBack(log, at, lastFocus) {
  if (!(lastFocus < at)) return -1;
  return log.findIndex((x) => x.t >= at);
}
