// MAIN-world capture, the entry of the at-work bundle (dist/start-main.js;
// lean.js is the idle one's). It runs at document_start in the frames
// capture/declared.js registers, before any of the page's own scripts, in
// the page's JavaScript world ("world": "MAIN"). It records what the page
// does (console, errors, fetch and XHR, WebSockets, SPA navigations, web
// vitals; user actions are capture/record.js's) and hands the records to
// the ISOLATED-world relay (relay.js) over a private MessageChannel
// (channel.js).
//
// Source as ES modules, shipped as a script: scripts/bundle (esbuild)
// bundles this entry and the modules it imports into one self-contained
// function, which leaves nothing on the page's global object. Every module
// saves the built-ins it calls later when the bundle starts (builtins.js,
// page.js, and each hook's own), so a page that replaces console, fetch,
// JSON, Array methods or addEventListener after this point changes nothing
// for it. The modules only declare: what hooks the page is done here, in
// this order. The page never waits on it: hooks record and return, bodies
// are read from clones after the page got its response, and the buffer
// drops its oldest records (counted) when full.
//
// The sourceURL comment at the end names the bundle "gasoline-capture.js"
// in stack traces (scripts/bundle ends the bundle with it). It matters for
// speed: Chrome captures a full stack trace and sends it to the browser
// process for every console message whose calling frame is an extension
// script (for chrome://extensions' error list), which made each hooked
// console.log about twice as costly; under a plain name the console call
// costs what the page's own would.
//
// Lean: import.meta.lean is true in the lean bundle and false in this one
// (scripts/bundle defines it in both, so the minifier drops the branches
// each leaves out; under node, where the unit tests import the modules, it
// is undefined: the full capture). See lean.js.
import { captureConsole } from './console.js';
import { captureErrors } from './errors.js';
import { hookFetch } from './fetch.js';
import { captureHistory } from './history.js';
import { flushOnLeave, NO_VITALS, watchInput } from './input.js';
import { connectRelay, emit, on, settings } from './channel.js';
import { addListener, isTop, win } from './page.js';
import { finalizeLCP, sendPendingVitals, captureVitals } from './vitals.js';
import { hookWebSockets } from './websocket.js';
import { trackWork } from './work.js';
import { hookXHR } from './xhr.js';

// In this order: the count of what an agent's action started, the port to
// the relay, then console, errors, fetch and XHR, WebSockets, history, web
// vitals (the top document's only: vitals.js) and the user's input.
trackWork();
connectRelay();
captureConsole();
captureErrors();
hookFetch();
hookXHR();
hookWebSockets(win, emit, () => on('network'), () => settings.bodyCap, addListener);
captureHistory();
let vitals = NO_VITALS;
if (isTop()) {
  captureVitals();
  vitals = { finalizeLCP, sendPendingVitals };
}
watchInput(vitals);
flushOnLeave(vitals);
//# sourceURL=gasoline-capture.js
