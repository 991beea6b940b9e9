// The page verb of scroll_by (internal/tools/interact_scroll_by.go), a
// classic script injected after runtime.js (contract.js PAGE_VERB_FILES):
// scrolls the page, or the element the target names, by (dx, dy) CSS
// pixels at once, then waits two frames, so that a page listening to
// scroll (an infinite or virtualized list) has rendered what it brings.
// It resolves to {scroll_x, scroll_y, moved, at_end?}: where it ended,
// whether it moved, and at_end when it can go no further that way.
(() => {
  const rt = globalThis.gasolineRuntime;
  if (!rt?.addAction) return;

  rt.addAction('scroll_by', { targetless: true }, async (el, o) => {
    const box = el || document.scrollingElement || document.documentElement;
    const dx = Number(o.dx) || 0;
    const dy = Number(o.dy) || 0;
    const at = () => (el ? [box.scrollLeft, box.scrollTop] : [scrollX, scrollY]);
    const [x0, y0] = at();
    (el || window).scrollBy({ left: dx, top: dy, behavior: 'instant' });
    await rt.page.nextFrame();
    await rt.page.nextFrame();
    const [x, y] = at();
    const out = { scroll_x: Math.round(x), scroll_y: Math.round(y), moved: x !== x0 || y !== y0 };
    if (atEnd(box, dx, dy)) out.at_end = true;
    if (!out.moved && el && box.scrollHeight <= box.clientHeight && box.scrollWidth <= box.clientWidth) {
      out.note = `${rt.describe(el)} does not scroll (its content fits); target the element that scrolls, or none for the page`;
    }
    return out;
  });

  /** atEnd says whether box can scroll no further the way (dx, dy) goes. */
  function atEnd(box, dx, dy) {
    const end = (pos, size, view, d) => (d > 0 ? pos + view >= size - 1 : pos <= 0);
    return (dy === 0 || end(box.scrollTop, box.scrollHeight, box.clientHeight, dy)) &&
      (dx === 0 || end(box.scrollLeft, box.scrollWidth, box.clientWidth, dx));
  }
})();
