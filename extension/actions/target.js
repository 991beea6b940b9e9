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
 * targetOf returns the runtime target a command's params name, or null when
 * they name none: params.target, which the daemon sends in its one
 * canonical form (internal/tools targetArgs.canonical), {ref} | {selector}
 * | {role, name?, exact?} | {text, exact?}. It throws CommandError for any
 * other shape: the daemon and the extension then run different contracts.
 */
export function targetOf(params) {
  const t = params.target;
  if (t === undefined || t === null) return null;
  const kinds = t && typeof t === 'object' && !Array.isArray(t) ? Object.keys(t).filter((k) => k !== 'exact') : [];
  const ok = kinds.length === 1 && typeof t[kinds[0]] === 'string' && t[kinds[0]] !== '' && CANONICAL.has(kinds[0]) ||
    (kinds.length === 2 && typeof t.role === 'string' && t.role && typeof t.name === 'string');
  if (!ok || (t.exact !== undefined && t.exact !== true) || (t.ref !== undefined && frameOfRef(t.ref) === null)) {
    throw new CommandError(`the daemon sent the target ${JSON.stringify(t)}, which is not in its canonical form ({ref}, {selector}, {role, name?} or {text}): the daemon and the extension run different argument contracts; update both`);
  }
  return { ...t };
}

/** CANONICAL are the kinds of a canonical target. */
const CANONICAL = new Set(['ref', 'selector', 'role', 'text']);

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
