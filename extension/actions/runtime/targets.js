// The DOM runtime's targets: the elements a target names, and its failures.
import { shows, view } from './geometry.js';
import { core, engine } from './globals.js';
import { byRef, counter, refFor } from './refs.js';

// --- targets -----------------------------------------------------------------

export class Failure extends Error {
  constructor(reason, message, extra = {}) {
    super(message);
    this.reason = reason;
    this.extra = extra;
  }
}

/** what describes a target for messages: ref e3, selector "#x", text "Go", role button "Go". */
export function what(t) {
  if (t.ref) return `ref ${t.ref}`;
  if (t.selector) return `selector ${JSON.stringify(t.selector)}`;
  if (t.role) return `role ${t.role}${t.name ? ` named ${JSON.stringify(t.name)}` : ''}`;
  return `text ${JSON.stringify(t.text)}`;
}

/**
 * candidates returns the elements target names now; a ref to an element
 * that is gone throws stale_ref.
 */
export function candidates(t, prefix) {
  if (t.ref) {
    const w = byRef.get(t.ref);
    const el = w?.deref();
    if (!el || !el.isConnected) {
      const known = w || (t.ref.startsWith(prefix) && Number(t.ref.slice(prefix.length)) <= counter);
      throw new Failure('stale_ref', known
        ? `${t.ref} names an element that was removed from the page since it was given out; take a new snapshot with analyze({what:"dom"}) or query, and use the new ref`
        : `${t.ref} is not a ref of this page (it may be from before the page reloaded or navigated); take a new snapshot with analyze({what:"dom"}) and use its refs`);
    }
    return [el];
  }
  if (!t.selector && !t.role && !t.text) throw new Failure('bad_target', 'no target: pass one of ref, selector, text, or role (with name)');
  try {
    return engine.resolve(t, document, view);
  } catch (e) {
    if (!t.selector) throw e;
    throw new Failure('bad_target', `${JSON.stringify(t.selector)} is not a valid CSS selector (${e.message}); fix it or target by text, role and name, or ref`);
  }
}

/** brief is how a candidate or result names an element: {ref, role, name}. */
export function brief(el, prefix) {
  const role = core.roleOf(el);
  const out = { ref: refFor(el, prefix), role: role || el.localName };
  const name = core.clip(core.labelOf(el, view, role) || core.norm(core.textOf(el, view)), 60);
  if (name) out.name = name;
  return out;
}

/**
 * pick chooses the one element a target names among els: the only one,
 * or the only visible one. It returns null when there is none (yet) and
 * throws ambiguous with up to 5 candidates when several show.
 */
export function pick(t, els, prefix) {
  if (els.length <= 1) return els[0] || null;
  const showing = els.filter(shows);
  if (showing.length === 1) return showing[0];
  if (showing.length === 0) return els[0];
  throw new Failure('ambiguous',
    `${what(t)} matches ${showing.length} visible elements; pass the ref of the one you mean (candidates below), or a more precise target (exact:true, a role and name, or a selector)`,
    { candidates: showing.slice(0, 5).map((el) => brief(el, prefix)) });
}
