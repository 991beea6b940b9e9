// The DOM engine: the one place that says what an element is and how to
// find it again. Role and accessible name (the W3C accname 1.2 rules),
// target matching (role + name, text, CSS selector), and the best stable
// locator of an element with its resolution back to the element. The
// capture recorder (capture/record.js) describes user actions with it, the
// action runtime (actions/runtime.js) matches targets with it and the
// outline (actions/core/outline.js) names elements with it, so what
// `observe actions` records is what `interact` matches.
//
// This is the entry of the engine's ES modules (engine/, one concern a
// file: basics, roles, tree, names, rows, find, locators, secret, view).
// Importing it sets globalThis.gasolineEngine, unless a copy loaded
// earlier in this world set it first, and exports that one object (engine):
// content scripts cannot be ES modules, so scripts/bundle bundles this
// entry into the classic scripts that carry it, and a document may get two
// copies: dist/end-isolated.js, where it comes before capture/record.js
// (which uses the global) in the ISOLATED world of every scripted document
// once parsed, and dist/runtime.js, which the worker injects on an agent's
// first use (actions/inject.js). Whichever comes first is the one every
// part of the document uses. The worker imports it (actions/dom.js).
//
// It touches only this part of the DOM, which the node tests fake
// (extension/test/fakedom.js):
//   node:     nodeType, childNodes, parentNode, textContent / data
//   element:  localName, getAttribute, hasAttribute, id, shadowRoot, labels,
//             value, checked, selected, disabled, multiple, options,
//             ownerDocument.getElementById
//   root:     a shadow root's host and getElementById
// and, to resolve a CSS selector, querySelectorAll. Shadow DOM is read
// as the page shows it: open roots, and closed ones where the extension's
// isolated world can open them (chrome.dom.openOrClosedShadowRoot, on
// custom elements), with slots showing what is assigned to them. Whether an element
// shows is asked of the caller (view.visible(el)); pageView is the
// browser's answer.
import { INLINE_TAGS, SKIP_TAGS, attr, clip, isElement, norm, textMatches } from './engine/basics.js';
import { controlOf, findByRole, findByText, resolve } from './engine/find.js';
import { TEST_ATTRS, cssOf, describe, locatorOf, targetOf } from './engine/locators.js';
import { nameOf } from './engine/names.js';
import { INTERACTIVE_ROLES, NAME_FROM_CONTENT, inputType, isInteractive, roleOf } from './engine/roles.js';
import { labelOf, partOf, rowTextOf } from './engine/rows.js';
import { isSecret } from './engine/secret.js';
import { contains, hidden, kids, queryDeep, shadowOf, textOf, walk } from './engine/tree.js';
import { pageView } from './engine/view.js';

/** engine is this world's DOM engine: the first copy loaded here, which set globalThis.gasolineEngine. */
export const engine = globalThis.gasolineEngine ??= Object.freeze({
  roleOf, nameOf, textOf, labelOf, rowTextOf, isInteractive, hidden, kids, walk, contains, inputType, shadowOf, partOf,
  textMatches, findByRole, findByText, controlOf, describe, cssOf, locatorOf, targetOf, resolve, queryDeep, isSecret,
  norm, clip, isElement, attr, pageView, TEST_ATTRS, INTERACTIVE_ROLES, NAME_FROM_CONTENT, INLINE_TAGS, SKIP_TAGS,
});
