// The MAIN-world end of the dialogs' private channel (see dialogs.js): the
// detached element the runtime takes, the events sent and heard on it, and
// the ring of recent dialogs that "armed" reports.
import { apply, CE, detailOf, dispatch, listen, now, parse, stringify } from './saved.js';

/** node is the channel: a detached element no page listener is on. */
export const node = document.createElement('span');
export const RECENT = 5;
export const RECENT_MS = 60000;
// recent is a ring of the last RECENT dialogs, {type, message, answered,
// at}, written by index (ring.count: how many ever): no Array method.
export const recent = [null, null, null, null, null];
export const ring = { __proto__: null, count: 0 };

/** send dispatches event type with the JSON text json on the channel. */
export const send = (type, json) => apply(dispatch, node, [new CE(type, { __proto__: null, detail: json })]);

/** on calls fn with each event type's detail that parses to an object. */
export const on = (type, fn) => apply(listen, node, [type, (e) => {
  let d;
  try {
    d = parse(apply(detailOf, e, []));
  } catch {
    return;
  }
  if (d !== null && typeof d === 'object') fn(d);
}]);

/** report keeps dialog d in the ring and tells the runtime of it. */
export const report = (d) => {
  recent[ring.count % RECENT] = { __proto__: null, type: d.type, message: d.message, answered: d.answered, at: now() };
  ring.count++;
  send('dialog', stringify(d));
};
