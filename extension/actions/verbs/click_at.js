// The page verb of click_at (internal/tools/interact_click_at.go), a
// classic script injected after runtime.js (contract.js PAGE_VERB_FILES):
// the click a user's mouse makes at (x, y) of the viewport, sent to the
// element there (through shadow roots), whatever it is: a canvas, a map, a
// point read off a screenshot. It resolves to {x, y, element}: the point
// and the {ref, role, name} of what was clicked.
(() => {
  const rt = globalThis.gasolineRuntime;
  if (!rt?.addAction) return;

  rt.addAction('click_at', { targetless: true }, async (_, o) => {
    const x = Number(o.x);
    const y = Number(o.y);
    if (!(x >= 0 && y >= 0 && x < innerWidth && y < innerHeight)) {
      throw new rt.Failure('bad_target', `(${x}, ${y}) is outside the viewport, which is ${innerWidth}x${innerHeight} CSS px; ` +
        'pass a point inside it (scroll_by first to bring what is below into view)');
    }
    const el = rt.page.hitAt(x, y);
    if (!el) throw new rt.Failure('not_found', `no element is at (${x}, ${y}); take a screenshot to see the page`);
    const element = rt.page.brief(el, o.prefix); // before the click: it may remove el
    rt.page.clickPoint(el, x, y, o);
    await rt.page.nextFrame();
    return { x, y, element };
  });
})();
