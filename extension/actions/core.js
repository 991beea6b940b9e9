// The pure logic of the DOM runtime beyond what the DOM engine
// (dom/engine.js) says of an element: states and values (core/states.js),
// the outline under a token budget (core/outline.js, writer.js, lines.js),
// key names (core/keys.js). Role, accessible name, target matching and
// locators are the engine's; gasolineCore passes them on, so the runtime
// and the overlay see one set of functions.
//
// This is the entry of its ES modules (core/). Importing it sets
// globalThis.gasolineCore, unless a copy loaded earlier in this world set
// it first, and exports that one object (core). scripts/bundle bundles it,
// with the engine, into dist/runtime.js (actions/runtime.js imports it),
// which the worker injects into a document's ISOLATED world; the worker
// imports it too (actions/dom.js). It touches only the part of the DOM the
// engine's header lists, which the node tests fake (extension/test/fakedom.js).
// Whether an element shows is asked of the caller (view.visible(el)), so
// layout stays in the runtime.
import { engine } from '../dom/engine.js';
import { keyInfo } from './core/keys.js';
import { LANDMARKS, outline } from './core/outline.js';
import { headingLevel, isDisabled, states, valueOf } from './core/states.js';

/** TOKEN_CHARS is the estimate of characters per token (the daemon's too: output.Store.EstimateTokens). */
const TOKEN_CHARS = 4;

/** estimateTokens is the daemon's token estimate of a text: characters/4, rounded up. */
const estimateTokens = (s) => Math.ceil(String(s).length / TOKEN_CHARS);

/** globMatch reports whether url matches pattern: a substring, or a glob where * is any run of characters. */
function globMatch(url, pattern) {
  if (!pattern.includes('*')) return url.includes(pattern);
  const re = new RegExp('^' + pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
  return re.test(url);
}

/** core is this world's gasolineCore: the first copy loaded here. */
export const core = globalThis.gasolineCore ??= Object.freeze({
  ...engine, states, valueOf, isDisabled, outline, estimateTokens, keyInfo, globMatch, headingLevel, LANDMARKS,
  TOKEN_CHARS,
});
