// The pure logic of the draw-mode overlay (overlay.js): rectangles from
// drags, what an annotation says about the element under it, and the body
// of POST /draw-mode/complete. A classic script that defines
// globalThis.gasolineOverlayLogic and nothing else; the worker injects it
// before overlay.js, and the node tests import it.
(() => {
  if (globalThis.gasolineOverlayLogic) return;

  /** MIN_DRAG is the smallest drag, in CSS pixels, that makes a rectangle; less is a click. */
  const MIN_DRAG = 4;
  /** Caps on what is sent: the daemon caps them too (internal/annotate). */
  const MAX_NOTE = 500;
  const MAX_TEXT = 200;
  const MAX_ITEMS = 20;
  /** STYLES are the computed styles reported for an annotated element. */
  const STYLES = ['color', 'background-color', 'font-size', 'font-weight', 'display', 'visibility', 'opacity', 'z-index'];

  /**
   * rectFrom is the rectangle a drag from a to b covers, in page
   * coordinates (both points are {x, y} in the page), whatever direction
   * it went; null when it is smaller than MIN_DRAG either way.
   */
  function rectFrom(a, b) {
    const r = { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), width: Math.abs(b.x - a.x), height: Math.abs(b.y - a.y) };
    if (r.width < MIN_DRAG && r.height < MIN_DRAG) return null;
    return round(r);
  }

  function round(r) {
    return { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
  }

  /** toPage converts a viewport rectangle (getBoundingClientRect) to page coordinates. */
  function toPage(r, scrollX, scrollY) {
    return round({ x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height });
  }

  /** center is the viewport point at the middle of page rectangle r. */
  function center(r, scrollX, scrollY) {
    return { x: r.x + r.width / 2 - scrollX, y: r.y + r.height / 2 - scrollY };
  }

  /** clip cuts s to n characters, marking the cut. */
  function clip(s, n) {
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
  function describeElement(el, { core, refFor, style }) {
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
  function donePost({ id, url, title, viewport, items, maxItems = MAX_ITEMS }) {
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
  function noteText(s) {
    return clip(squash(s), MAX_NOTE);
  }

  /** cancelPost is the body of POST /draw-mode/complete that cancels session id. */
  function cancelPost(id, reason) {
    return { correlation_id: id, cancelled: true, reason: clip(reason, 200) };
  }

  /** instructionText is the line the user reads. */
  function instructionText(p) {
    const what = p.mode === 'pick' ? 'Click the elements' : 'Drag rectangles over what';
    const own = squash(p.instructions);
    return (own ? own + ' — ' : '') + `${what} you want to point out, add a note to each, then press Done (Ctrl+Enter); Esc cancels.`;
  }

  globalThis.gasolineOverlayLogic = Object.freeze({
    rectFrom, toPage, center, clip, describeElement, donePost, noteText, cancelPost, instructionText,
    MIN_DRAG, MAX_NOTE, MAX_ITEMS, STYLES,
  });
})();
