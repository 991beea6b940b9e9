// The recorder's ears from document_start: capture/record.js, with the DOM
// engine it describes elements with, comes only after DOMContentLoaded
// (the worker injects it when webNavigation reports it: a worker's round
// trip, tens of milliseconds on a busy machine or one that starts the
// worker), and a user may act meanwhile.
// This listens, from before any page script, on window's capture phase
// for the event types the recorder records: its listeners come first, so
// no page listener can hide an event from the recorder. Until the
// recorder takes them (gasolineTap(fn)) it holds the trusted ones (at
// most 100, with the element the event was for: composedPath() is empty
// once dispatch ends); from then on it hands every event to fn at once.
// gasolineTap.early says it ran while the document was still parsing (at
// document_start, not brought late by tabs/reach.js).
//
// A classic script in the ISOLATED world of every scripted document, in
// dist/start-isolated.js; it defines globalThis.gasolineTap and nothing
// else.
(() => {
  if (globalThis.gasolineTap || typeof addEventListener !== 'function') return;
  let held = [];
  let to = null;
  for (const type of ['input', 'click', 'dblclick', 'change', 'submit', 'keydown']) {
    addEventListener(type, (e) => {
      const at = e.composedPath()[0] || e.target;
      if (to) to(type, e, at);
      else if (e.isTrusted && held.length < 100) held.push([type, e, at]);
    }, { capture: true, passive: true });
  }
  const tap = (fn) => {
    if (to) return;
    to = fn;
    for (const h of held) fn(...h);
    held = null;
  };
  tap.early = globalThis.document?.readyState === 'loading';
  Object.defineProperty(globalThis, 'gasolineTap', { value: tap });
})();
