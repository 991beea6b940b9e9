// What an action changed on the page, in a few tokens (effects.changed):
// text and controls that appeared or went away (controls with their refs),
// controls whose state changed (expanded, checked, pressed, selected,
// disabled, as their attributes say), the value of the field acted on or
// focused, the focus, the title. An ES module of the DOM runtime (bundled
// into dist/runtime.js by scripts/bundle): the runtime (runtime/act.js)
// starts a watch before each action and reads it once the action has
// settled (op "changed"). watch() (changed/watch.js) needs a DOM;
// summarize() (changed/summary.js) is pure and tested under node.
// Importing it sets globalThis.gasolineChanged, unless a copy loaded
// earlier in this world set it first, and exports that one object (changed).
//
//   watch(target) → {stop(brief), cancel()}: brief(el) is the runtime's {ref, role, name}
//   summarize(seen) → {title?, focus?, value?, state?, appeared?, removed?, more?, all?} | null
//
// seen is {appeared: [item], removed: [item], state?: [item], value?:
// {before, after, ref}, focus?: {before, after}, title?: {before, after}};
// an item is {text} or {role, name, ref} (a control), a state item a
// control with states: ["expanded"]. The answer holds at most MAX_CHARS
// characters of JSON (about 60 tokens at 4 characters a token): items go
// in order, states first, then appeared, each clipped to ITEM_CHARS; what
// does not fit is counted in more. With more, all is the whole list as
// text, a line an item ("~ control states", "+ text" appeared, "- text"
// went away), each clipped to
// FULL_ITEM_CHARS, at most FULL_CHARS characters (a last line counts what
// did not fit): the daemon keeps it in its output store and effects.changed
// then names it in rest, read with observe command_result's modes
// (internal/result/changed.go).
import { FULL_CHARS, MAX_CHARS, summarize } from './changed/summary.js';
import { watch } from './changed/watch.js';

/** changed is this world's gasolineChanged: the first copy loaded here. */
export const changed = globalThis.gasolineChanged ??= { watch, summarize, MAX_CHARS, FULL_CHARS };
