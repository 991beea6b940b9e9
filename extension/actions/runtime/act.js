// The DOM runtime's actions: the verbs table (each verb registers itself
// with addAction, runtime/verbs/), and op "act" that runs one.
import { changed as whatChanged } from '../changed.js';
import { dialogs, toMain } from './dialogs.js';
import { Failure, brief } from './targets.js';
import { actionable } from './waits.js';

/** NEEDS says what each action waits for before acting (addAction fills it). */
export const NEEDS = {};

/** ACTS holds each action's function, fn(el, opts) resolving to its result (addAction fills it). */
const ACTS = {};

/**
 * addAction adds an action that runs in act like the built-in ones, for
 * action modules loaded after this script (upload-page.js): needs says
 * what to wait for, fn(el, opts) acts and resolves to its result.
 */
export function addAction(name, needs, fn) {
  if (Object.hasOwn(NEEDS, name)) return;
  NEEDS[name] = needs;
  ACTS[name] = fn;
}

// changes is what the last action changed (actions/changed.js), read
// once by op "changed" after the worker has followed its consequences.
let changes = null;

/** changed answers {changed} of the last action, once (null: nothing changed, or no action since). */
export function changed() {
  const c = changes;
  changes = null;
  try {
    return { changed: c?.watch?.stop((el) => brief(el, c.prefix)) ?? null };
  } catch {
    return { changed: null }; // what changed is a hint: never an action's failure
  }
}

/** act runs msg.action on the target once it is actionable, and gives its result with the target named and the dialogs it caused. */
export async function act(msg) {
  const needs = Object.hasOwn(NEEDS, msg.action) ? NEEDS[msg.action] : null;
  if (!needs) throw new Failure('bad_target', `the runtime has no action ${JSON.stringify(msg.action)}`);
  const o = { ...(msg.opts || {}), prefix: msg.prefix, timeout_ms: msg.timeout_ms };
  const t = msg.target;
  let el = null;
  if (t) {
    el = await actionable(t, msg.prefix, msg.timeout_ms, needs, true);
  } else if (!needs.targetless && msg.action !== 'key_press' && msg.action !== 'get_text') {
    throw new Failure('bad_target', `${msg.action} needs a target: ref, selector, text, or role (with name)`);
  }
  const named = el ? brief(el, msg.prefix) : null; // before acting: the action may remove it
  changes?.watch?.cancel();
  changes = msg.action === 'get_text' ? null : { watch: whatChanged.watch(el), prefix: msg.prefix };
  const mark = dialogs.length;
  toMain('acting', { on: true, dialog: o.dialog, prompt_text: o.prompt_text });
  let result;
  try {
    result = await ACTS[msg.action](el, o);
  } finally {
    toMain('acting', { on: false });
  }
  if (dialogs.length > mark) result.dialogs = dialogs.slice(mark);
  return named ? { target: named, ...result } : result;
}
