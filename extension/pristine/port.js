// The private channel pristine.js hands to the ISOLATED-world relay
// (pristine-relay.js): see pristine.js's handshake.
import { getter, method } from './builtins.js';

/**
 * offerPort makes the channel on global g, answers each request on its
 * port with handle, and dispatches the port to the relay; the port is
 * dropped when no relay took it.
 */
export function offerPort(g, B, handle) {
  const { apply, isArray } = B;
  const data = getter(g.MessageEvent, 'data');
  const post = method(g.MessagePort, 'postMessage');
  const dispatch = method(g.EventTarget, 'dispatchEvent');
  const ch = new g.MessageChannel();
  const port = ch.port1;
  const send = (id, result) => {
    try {
      apply(post, port, [[id, result]]);
    } catch {
      apply(post, port, [[id, { __proto__: null, ok: false, kind: 'not_serialisable', message: 'the result could not be copied out of the page', builtins: 'pristine' }]]);
    }
  };
  port.onmessage = (e) => {
    const d = apply(data, e, []);
    if (isArray(d) && d.length === 6) handle(d, (result) => send(d[0], result));
  };
  const accepted = !apply(dispatch, g, [new g.MessageEvent('gasoline:pristine-port', { __proto__: null, ports: [ch.port2], cancelable: true })]);
  if (!accepted) port.onmessage = null;
}
