// Saves, before any page script runs, the built-ins execute_js reads a result
// with, so a page that later replaces JSON.stringify, Map, Object.keys, the
// AsyncFunction constructor or Promise.prototype.then cannot change what the
// agent is told about its script, and runs the agent's scripts with them.
//
// A MAIN-world content script at document_start (registered by the worker,
// capture/declared.js), working in the top document only (in an iframe,
// which gets it while an agent works, it returns at once: execute_js never
// runs there). An ES module (its parts in pristine/), shipped as the classic
// script dist/pristine.js and first in dist/start-main.js (scripts/bundle),
// whose one function keeps everything: it leaves nothing on the page's
// global: the built-ins stay in that closure, and the only way in is a
// private MessageChannel port handed to the ISOLATED-world relay
// (pristine-relay.js), which Chrome runs first (registration order).
//
// Handshake: this script creates the channel and dispatches one synchronous,
// cancelable MessageEvent "gasoline:pristine-port" carrying port2 on window;
// the relay takes the first port it is given, cancels the event (read here
// as "accepted") and stops listening. Both happen before the page has run a
// line, so the page can neither see the event nor reach the port. When no
// relay took it (none in this world), the port is dropped and nothing is
// left behind.
//
// Requests (relay -> here): [id, runner, body, expr, maxChars, late], where
// runner is the source of page.js's pageRun. It is compiled here with the
// saved Function constructor (once per source) and called with the saved
// built-ins; the answer goes back as [id, answer]. Data is read with saved
// getters and sent with the saved postMessage, so a page that hooks
// MessageEvent.prototype.data, MessagePort.prototype.postMessage,
// addEventListener or Object.defineProperty sees neither the script nor its
// result.
//
// In a document that was loaded before the extension started, the worker
// injects the relay and this file late and tells the relay so (markLate):
// the built-ins are then the page's own at that moment, and execute_js
// results say so.
//
// In the USER_SCRIPT world (userscripts/execute.js), which the page cannot
// script, the code run before this file defines gasolineUserWorld on that
// world's global; the built-ins are saved there (the first time only) for
// the code run after it, and no port is made. Under node (no document) the
// built-ins and the request handler are exposed as gasolinePristineKit for
// the unit tests; a page cannot reach that branch because window.document
// is unforgeable.
import { saveBuiltins } from './pristine/builtins.js';
import { handlerOf } from './pristine/run.js';
import { offerPort } from './pristine/port.js';

/** start saves the built-ins of global g and opens the way in that g's world calls for. */
function start(g) {
  const O = Object;
  // execute_js runs in the top document only: an iframe saves nothing.
  if (typeof document !== 'undefined' && g.top && g.top !== g && !O.getOwnPropertyDescriptor(g, 'gasolineUserWorld')) return;
  const B = saveBuiltins(g);
  const handle = handlerOf(B);
  const user = O.getOwnPropertyDescriptor(g, 'gasolineUserWorld');
  if (user && user.value !== null && typeof user.value === 'object') {
    if (!B.hasOwn(user.value, 'builtins')) Reflect.defineProperty(user.value, 'builtins', { value: B });
    return;
  }
  if (typeof document === 'undefined') {
    g.gasolinePristineKit = { builtins: B, handle }; // node unit tests only
    return;
  }
  offerPort(g, B, handle);
}

start(globalThis);
