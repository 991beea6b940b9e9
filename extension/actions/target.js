// What the worker knows about targets and refs, without chrome.*: tested
// under node. A ref is "e12" in a tab's top document and "f7e12" in the
// document of frame 7; the frame part tells the worker where to send it.

import { CommandError } from '../runner.js';

const REF = /^(?:f(\d+))?e(\d+)$/;

/** prefixFor is the ref prefix of the document in frame frameId. */
export const prefixFor = (frameId) => (frameId ? `f${frameId}e` : 'e');

/** frameOfRef returns the frame id a ref belongs to, or null when ref is not one. */
export function frameOfRef(ref) {
  const m = REF.exec(String(ref));
  if (!m) return null;
  return m[1] ? Number(m[1]) : 0;
}

/**
 * targetOf returns the runtime target the params name, or null when they
 * name none: {ref} | {selector} | {role, name?, exact?} | {text, exact?}.
 * params.target is a ref ("e5", "f7e12"), a CSS selector, or an object
 * {role, name?, exact?} / {text, exact?}; the flat ref, selector, role
 * (with name) and text name one too. With textIsValue (fill, type), the
 * flat "text" is what to enter, not a target.
 * It throws CommandError for a malformed target or two kinds at once.
 */
export function targetOf(params, { textIsValue = false } = {}) {
  const kinds = [];
  if (has(params.target)) kinds.push('target');
  if (has(params.ref)) kinds.push('ref');
  if (has(params.selector)) kinds.push('selector');
  if (has(params.role)) kinds.push('role');
  if (!textIsValue && has(params.text)) kinds.push('text');
  if (kinds.length > 1) {
    throw new CommandError(`pass one target, not ${kinds.join(' and ')}: ${TARGET_FORMS}`);
  }
  if (has(params.name) && !kinds.includes('role')) {
    throw new CommandError('"name" goes with "role" (e.g. target:{role:"button", name:"Sign in"}); pass a role too');
  }
  switch (kinds[0]) {
    case 'target':
      return parseTarget(params.target);
    case 'ref':
      if (frameOfRef(params.ref) === null) {
        throw new CommandError(`${JSON.stringify(params.ref)} is not a ref; refs look like "e12" (from analyze({what:"dom"}) or query)`);
      }
      return { ref: String(params.ref) };
    case 'selector':
      return { selector: String(params.selector) };
    case 'role':
      return { role: String(params.role).toLowerCase(), ...(has(params.name) ? { name: String(params.name) } : {}) };
    case 'text':
      return { text: String(params.text) };
  }
  return null;
}

/** TARGET_FORMS says what a target is, for errors. */
const TARGET_FORMS = 'target is a ref ("e5" from analyze({what:"dom"}) or query), a CSS selector ("#save"), {role:"button", name:"Save"} or {text:"Save"}';

/**
 * parseTarget reads the target argument: a string is a ref when it looks
 * like one ("e5", "f7e12"), else a CSS selector; an object has role (and
 * name) or text, and exact.
 */
export function parseTarget(t) {
  if (typeof t === 'string') {
    const s = t.trim();
    if (!s) throw new CommandError(`target is empty; ${TARGET_FORMS}`);
    return frameOfRef(s) !== null ? { ref: s } : { selector: s };
  }
  if (!t || typeof t !== 'object' || Array.isArray(t)) {
    throw new CommandError(`target ${JSON.stringify(t)} is not a string or an object; ${TARGET_FORMS}`);
  }
  const extra = Object.keys(t).filter((k) => !['role', 'name', 'text', 'exact'].includes(k));
  if (extra.length) throw new CommandError(`target has unknown fields ${extra.join(', ')}; ${TARGET_FORMS}`);
  const exact = t.exact === true ? { exact: true } : {};
  if (has(t.role) && has(t.text)) throw new CommandError(`target has both role and text; pass one: ${TARGET_FORMS}`);
  if (has(t.role)) return { role: String(t.role).toLowerCase(), ...(has(t.name) ? { name: String(t.name) } : {}), ...exact };
  if (has(t.name)) throw new CommandError(`target's name goes with role, e.g. {role:"button", name:${JSON.stringify(String(t.name))}}`);
  if (has(t.text)) return { text: String(t.text), ...exact };
  throw new CommandError(`target needs role (with name) or text; ${TARGET_FORMS}`);
}

const has = (v) => v !== undefined && v !== null && v !== '';

/** describeTarget names a target in a message. */
export function describeTarget(t) {
  if (!t) return 'the page';
  if (t.ref) return `ref ${t.ref}`;
  if (t.selector) return `selector ${JSON.stringify(t.selector)}`;
  if (t.role) return `role ${t.role}${t.name ? ` named ${JSON.stringify(t.name)}` : ''}`;
  return `text ${JSON.stringify(t.text)}`;
}

/**
 * REASONS are the runtime's failure reasons the daemon records as the
 * command's reason (pkg/tracker's element-action reasons); others (timeout,
 * internal) stay "command_error".
 */
export const REASONS = new Set(['not_found', 'ambiguous', 'not_visible', 'disabled', 'covered', 'stale_ref', 'detached', 'not_editable', 'bad_target', 'bad_option']);

/** reasonOf is the command's failure reason for a runtime failure answer, or undefined. */
export const reasonOf = (resp) => (REASONS.has(resp?.reason) ? resp.reason : undefined);

/**
 * failureText renders a runtime failure as the command's error text:
 * "reason: message", then the candidates of an ambiguous target, one a line.
 */
export function failureText(resp) {
  let s = `${resp.reason}: ${resp.message}`;
  if (Array.isArray(resp.candidates) && resp.candidates.length) {
    s += '\ncandidates:\n' + resp.candidates.map((c) => `  ${c.ref} ${c.role}${c.name ? ` ${JSON.stringify(c.name)}` : ''}`).join('\n');
  }
  return s;
}

/**
 * pageBudget is how long the page may wait for a target within a command
 * deadline of deadlineMs: the rest (a quarter, at most 1.5 s) is left to
 * report why it failed before the deadline does.
 */
export const pageBudget = (deadlineMs) => Math.max(0, Math.round(deadlineMs - Math.min(1500, deadlineMs / 4)));

/** modifiersOf checks a modifiers argument: a list of Control, Shift, Alt, Meta. */
export function modifiersOf(v) {
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? v : String(v).split('+');
  for (const m of list) {
    if (!['Control', 'Shift', 'Alt', 'Meta'].includes(m)) {
      throw new CommandError(`unknown modifier ${JSON.stringify(m)}; modifiers are Control, Shift, Alt and Meta`);
    }
  }
  return list;
}
