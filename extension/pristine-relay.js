// ISOLATED-world end of pristine.js's private channel: runs in the top frame
// at document_start (registered for every frame while an agent works, it
// returns at once in iframes), before pristine.js (registration order), in the extension's isolated
// world, which the page cannot script. It takes the MessagePort
// pristine.js hands over in a "gasoline:pristine-port" MessageEvent on
// window (the first port only; it then cancels the event and stops
// listening) and keeps it on this world's global as gasolinePristineRelay,
// which execute_js's injected function (page.js runInPristine) calls.
//
// gasolinePristineRelay:
//   connected()  whether pristine.js's port arrived in this document
//   markLate()   the worker brought both scripts in after the page's own had
//                run (tabs/reach.js, commands.js): answers say their
//                built-ins are the page's (as they do from the start when
//                this file itself came after the page's scripts)
//   run(runner, body, expr, maxChars)  sends one script to pristine.js and
//                resolves to its answer (see page.js pageRun)
(function gasolinePristineRelay(g) {
  'use strict';
  // node, already here, or an iframe (execute_js runs in the top document
  // only, and pristine.js makes no channel there). The window is g.window:
  // in Firefox an isolated world's global is a sandbox, not the window that
  // top names.
  if (typeof document === 'undefined' || g.gasolinePristineRelay || (g.top && g.top !== (g.window ?? g))) return;
  const EVENT = 'gasoline:pristine-port';
  let port = null;
  // Brought in after the page's scripts could run (a document loaded before
  // the extension started, or a command's fallback): the port that comes
  // may be the page's own, and pristine.js's built-ins the page's; answers
  // say so. At document_start the document is loading and has no script.
  let late = document.readyState !== 'loading' || document.getElementsByTagName('script').length > 0;
  let seq = 0;
  const pending = new Map(); // request id -> resolve

  const onAnswer = (e) => {
    const d = e.data;
    if (!Array.isArray(d) || !pending.has(d[0])) return;
    const resolve = pending.get(d[0]);
    pending.delete(d[0]);
    // Late, the port may be the page's: its answer never gets to claim
    // pristine built-ins.
    const r = d[1];
    resolve(late && r && typeof r === 'object' ? { ...r, builtins: 'page' } : r);
  };
  const onPort = (e) => {
    const p = e.ports && e.ports[0];
    if (port || !p) return;
    e.stopImmediatePropagation();
    e.preventDefault();
    port = p;
    removeEventListener(EVENT, onPort, true);
    port.onmessage = onAnswer;
  };
  addEventListener(EVENT, onPort, true);

  Object.defineProperty(g, 'gasolinePristineRelay', {
    value: Object.freeze({
      connected: () => port !== null,
      markLate() {
        late = true;
      },
      run(runner, body, expr, maxChars) {
        if (!port) return { ok: false, kind: 'no_pristine' };
        const id = ++seq;
        return new Promise((resolve) => {
          pending.set(id, resolve);
          port.postMessage([id, runner, body, expr, maxChars, late]);
        });
      },
    }),
  });
})(globalThis);
