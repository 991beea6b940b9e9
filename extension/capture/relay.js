// ISOLATED-world relay: at document_start in the frames capture/declared.js registers,
// before the MAIN-world capture (capture/main/; registration order), in the extension's isolated world. It takes
// the private MessagePort the MAIN-world script hands over, treats everything
// that arrives on it as untrusted data (shape checked, sizes capped), and
// forwards it to the worker in batches with chrome.runtime.sendMessage. The
// worker's reply acknowledges a batch (it is then stored in the worker) and
// carries the capture settings, which the relay passes back to the page
// script.
//
// Source as ES modules (capture/relay/), shipped as a script: scripts/bundle
// (esbuild) bundles this entry and the modules it imports into one
// self-contained function of dist/start-isolated.js and
// start-isolated-idle.js. The modules only declare; what the relay sets up
// is done here, in this order: the handshake with the page script
// (relay/port.js), gasolineRecord (relay/forward.js, which batches to the
// worker), leaving the page (relay/leave.js), and the worker's flushes
// (relay/flush.js). relay/check.js checks what the page sends.
//
// Messages (see extension/README.md, "Capture"):
//   page script -> relay (port):  CaptureMessage {events: [record], dropped?: {kind: n}}
//   relay -> page script (port):  {config: {version, body_cap, kinds}}
//   relay -> worker:              {type: "gasoline.capture", batch, events, dropped?}
//   worker -> relay (reply):      {ok: true, config} | {ok: false, error}
//   capture/record.js -> relay:   gasolineRecord(record), in this world
//
// Under node (no document) it installs nothing: the unit tests import the
// modules.
import { answerFlushes, flushAnswer, watchNavigation } from './relay/flush.js';
import { exposeRecord } from './relay/forward.js';
import { watchLeaving } from './relay/leave.js';
import { linkPort } from './relay/port.js';

// gasolineRelay marks this world as relayed (tabs/reach.js looks for it);
// a second copy brought in late leaves the first to relay. It is the
// relay's flush (relay/flush.js flushAnswer), which execute_js's injected
// function calls (page.js runInPristine), and so does the DOM runtime after
// an action that asked for it (actions/runtime/ops.js flushHere).
if (typeof document !== 'undefined' && !globalThis.gasolineRelay) {
  Object.defineProperty(globalThis, 'gasolineRelay', { value: flushAnswer });
  linkPort();
  exposeRecord();
  watchLeaving();
  watchNavigation();
  answerFlushes();
}
