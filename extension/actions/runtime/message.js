// The check of the worker's messages to the DOM runtime against their one
// declaration (page-ops.js, generated from internal/tools/interact_pageops.go):
// the runtime refuses a message it fails (ops.js handle), and the worker
// builds every message through it (actions/page-message.js), so a typo in
// an op or a field name fails at once, in node tests too. Pure: the page
// and the worker both load it.
import { PAGE_OPS } from '../../page-ops.js';

/**
 * invalid says how the value v breaks spec ({type, enum?, min?, max?}, a
 * field of PAGE_OPS or a param of CONTRACT), or '' when it does not.
 */
export function invalid(spec, v) {
  switch (spec.type) {
    case 'string':
      if (typeof v !== 'string') return 'must be a string';
      break;
    case 'boolean':
      if (typeof v !== 'boolean') return 'must be a boolean';
      break;
    case 'integer':
      if (!Number.isInteger(v)) return 'must be an integer';
      break;
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) return 'must be a number';
      break;
    case 'array':
      if (!Array.isArray(v)) return 'must be an array';
      break;
    case 'object':
      if (typeof v !== 'object' || Array.isArray(v)) return 'must be an object';
      break;
  }
  if (spec.enum && !spec.enum.includes(v)) return `must be one of ${spec.enum.join(', ')}`;
  if (spec.min !== undefined && v < spec.min) return `must be at least ${spec.min}`;
  if (spec.max !== undefined && v > spec.max) return `must be at most ${spec.max}`;
  return '';
}

/**
 * messageFault says what is wrong with msg, a {gasoline: "dom", op, ...}
 * message, by PAGE_OPS: an op it does not declare, a field the op does not
 * declare, a field of the wrong type, a required field missing (null
 * counts as missing); '' when nothing is. It does not look inside act's
 * opts, whose names the worker checks against the contract
 * (page-message.js).
 */
export function messageFault(msg) {
  if (!msg || typeof msg !== 'object') return 'the message is not an object';
  const fields = Object.hasOwn(PAGE_OPS, msg.op) ? PAGE_OPS[msg.op] : null;
  if (!fields) return `unknown runtime op ${JSON.stringify(msg.op)}; the runtime answers ${Object.keys(PAGE_OPS).join(', ')}`;
  for (const name of Object.keys(msg)) {
    if (name === 'gasoline' || name === 'op') continue;
    if (!Object.hasOwn(fields, name)) {
      return `op ${msg.op} has no field ${JSON.stringify(name)} (it takes ${Object.keys(fields).join(', ') || 'none'}; internal/tools/interact_pageops.go declares them)`;
    }
  }
  for (const [name, field] of Object.entries(fields)) {
    const v = msg[name];
    if (v === undefined || v === null) {
      if (field.required) return `op ${msg.op} needs field ${name}`;
      continue;
    }
    const why = invalid(field, v);
    if (why) return `op ${msg.op}: field ${name} ${why}, got ${JSON.stringify(v)}`;
  }
  return '';
}
