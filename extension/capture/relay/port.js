// Handshake: the relay listens for one "gasoline:capture-port"
// MessageEvent on window, takes its first port, cancels the event (the
// page script reads that as "accepted") and stops listening. If the page
// script ran first, the "gasoline:capture-hello" event this script
// dispatches makes it send the port again. Both scripts run before any
// page script, so the first port is the extension's.
import { checkMessage } from './check.js';
import { flushed } from './flush.js';
import { countDropped, dead, enqueue, linked, port, send } from './forward.js';

const PORT_EVENT = 'gasoline:capture-port';
const HELLO_EVENT = 'gasoline:capture-hello';

/** onPort takes the port of the handshake's event e. */
function onPort(e) {
  if (port) return;
  const p = e.ports && e.ports[0];
  if (!p) return;
  e.stopImmediatePropagation();
  e.preventDefault();
  linked(p);
  Object.defineProperty(globalThis, 'gasolineCaptureLinked', { value: true }); // the MAIN-world capture is here (tabs/reach.js)
  removeEventListener(PORT_EVENT, onPort, true);
  p.onmessage = onPageMessage;
}

/** linkPort waits for the page script's port, and asks for it in case the page script ran first. */
export function linkPort() {
  addEventListener(PORT_EVENT, onPort, true);
  if (!port) dispatchEvent(new CustomEvent(HELLO_EVENT, { cancelable: true }));
}

/** onPageMessage takes one message of the page script: a flush's answer, or records, checked, to forward. */
function onPageMessage(e) {
  if (dead) return;
  const d = e.data;
  if (d && typeof d === 'object' && typeof d.flushed === 'number') {
    flushed(d);
    return;
  }
  const m = checkMessage(d);
  if (!m) return;
  for (const k of Object.keys(m.dropped)) countDropped(k, m.dropped[k]);
  for (const r of m.events) enqueue(r);
  send();
}
