// The one way the worker builds a message to a document's DOM runtime
// ({gasoline: "dom", op, ...}): checked against the ops' one declaration
// (page-ops.js, generated from internal/tools/interact_pageops.go), which
// the runtime checks again on arrival, and act's opts against the
// contract's params of its action. A typo in an op or a field name fails
// here, in the worker and in node tests, not as a puzzling answer.

import { CONTRACT } from '../contract.js';
import { PAGE_OPS } from '../page-ops.js';
import { invalid, messageFault } from './runtime/message.js';

/**
 * ADDRESS are the params that say where an action runs (the tab, the
 * frame, the element: the canonical target) or how long it follows its
 * effects: the worker reads them itself; every other param of a DOM
 * action is its page verb's option (act's opts: PAGE_OPS params "action").
 */
export const ADDRESS = new Set(['target', 'frame', 'tab_id', 'force', 'settle_ms']);

/** takes says whether the runtime's op takes the field name (PAGE_OPS). */
export const takes = (op, name) => Object.hasOwn(PAGE_OPS, op) && Object.hasOwn(PAGE_OPS[op], name);

/**
 * pageMessage returns fields ({op, ...}) as the message to send the
 * runtime, {gasoline: "dom", op, ...}, with the fields that are undefined or
 * null left out. It throws an Error (an extension bug) when PAGE_OPS does
 * not declare the op or a field, a field has the wrong type or a required
 * one is missing, or an option in a field declared with params "action"
 * (act's opts) is not a param CONTRACT declares for the message's action
 * outside ADDRESS, or breaks its declaration.
 */
export function pageMessage(fields) {
  const msg = { gasoline: 'dom' };
  for (const [name, v] of Object.entries(fields)) {
    if (v !== undefined && v !== null) msg[name] = v;
  }
  let fault = messageFault(msg);
  for (const [name, spec] of Object.entries(fault ? {} : PAGE_OPS[msg.op])) {
    if (spec.params && msg[name] !== undefined) fault ||= optionsFault(msg.op, msg[spec.params], name, msg[name]);
  }
  if (fault) throw new Error(`extension bug: ${fault}`);
  return msg;
}

/** optionsFault says what is wrong with opts, the options (field name of op) of the page verb of action, or ''. */
function optionsFault(op, action, name, opts) {
  const declared = Object.hasOwn(CONTRACT, action) ? CONTRACT[action] : null;
  if (!declared) return `op ${op}: the contract declares no action ${JSON.stringify(action)}`;
  for (const [opt, v] of Object.entries(opts)) {
    if (!Object.hasOwn(declared, opt) || ADDRESS.has(opt)) {
      const own = Object.keys(declared).filter((p) => !ADDRESS.has(p));
      return `op ${op}: ${name}.${opt} is not an option of ${action} (its page verb takes ${own.join(', ') || 'none'}: the params its Go declaration gives it)`;
    }
    const why = v === undefined || v === null ? '' : invalid(declared[opt], v);
    if (why) return `op ${op}: ${name}.${opt} of ${action} ${why}, got ${JSON.stringify(v)}`;
  }
  return '';
}
