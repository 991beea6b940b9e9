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
 * With textIsValue (fill, type), "text" is what to enter, not a target.
 * It throws CommandError for a malformed ref or two kinds at once.
 */
export function targetOf(params, { textIsValue = false } = {}) {
  const kinds = [];
  if (has(params.ref)) kinds.push('ref');
  if (has(params.selector)) kinds.push('selector');
  if (has(params.role)) kinds.push('role');
  if (!textIsValue && has(params.text)) kinds.push('text');
  if (kinds.length > 1) {
    throw new CommandError(`pass one target, not ${kinds.join(' and ')}: a ref, a selector, a role (with name), or text`);
  }
  if (has(params.name) && !kinds.includes('role')) {
    throw new CommandError('"name" goes with "role" (e.g. role:"button", name:"Sign in"); pass a role too');
  }
  const exact = params.exact === true ? { exact: true } : {};
  switch (kinds[0]) {
    case 'ref':
      if (frameOfRef(params.ref) === null) {
        throw new CommandError(`${JSON.stringify(params.ref)} is not a ref; refs look like "e12" (from analyze({what:"dom"}) or query)`);
      }
      return { ref: String(params.ref) };
    case 'selector':
      return { selector: String(params.selector) };
    case 'role':
      return { role: String(params.role).toLowerCase(), ...(has(params.name) ? { name: String(params.name) } : {}), ...exact };
    case 'text':
      return { text: String(params.text), ...exact };
  }
  return null;
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
