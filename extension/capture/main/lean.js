// MAIN-world capture, lean: the entry of the bundle registered while no
// agent is at work (dist/start-main-idle.js; full.js, which says how the
// capture works, is the at-work one's). scripts/bundle builds it with
// import.meta.lean defined true. It leaves out what serves an agent only:
// WebSocket frames and web vitals (this entry does not import websocket.js
// and vitals.js) and the bodies of requests that succeeded (network.js,
// fetch.js and xhr.js read import.meta.lean). Everything else (console with
// the stacks of warnings and errors, errors, requests, the request and
// response bodies of those that failed: status 400 or more, or no response;
// history, secret fields, the work count that settles an action) stays: the
// user reproduces a bug before asking an agent, and an agent may act later
// in a page the user opened before it came. A lean document says so: its
// load record and each request record carry lean: true (the daemon reads a
// failed one's bodies as kept).
import { captureConsole } from './console.js';
import { captureErrors } from './errors.js';
import { hookFetch } from './fetch.js';
import { captureHistory } from './history.js';
import { flushOnLeave, NO_VITALS, watchInput } from './input.js';
import { connectRelay } from './channel.js';
import { trackWork } from './work.js';
import { hookXHR } from './xhr.js';

// In full.js's order, without WebSockets and web vitals.
trackWork();
connectRelay();
captureConsole();
captureErrors();
hookFetch();
hookXHR();
captureHistory();
watchInput(NO_VITALS);
flushOnLeave(NO_VITALS);
//# sourceURL=gasoline-capture.js
