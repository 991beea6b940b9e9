// The DOM runtime: one per document, in the extension's ISOLATED world,
// injected with chrome.scripting on an agent's first action in that
// document (actions/inject.js; no page pays for it before). It
// answers the worker's chrome.tabs.sendMessage requests, which always name
// one document ({documentId} or {frameId}):
//
//   {gasoline: "dom", op, ...}  →  {ok: true, ...} | {ok: false, reason, message, ...}
//
//   op "act"      {action, target, opts, timeout_ms, prefix}  click, hover, type, fill, select,
//                 check, uncheck, key_press, scroll_to, get_text, drag {to},
//                 fill_form {fields} (no target), and what
//                 action modules add with addAction (upload-page.js: upload)
//   op "changed"  → {changed}: what the last act changed (actions/changed.js), once
//   op "query"    {target, limit, prefix}
//   op "wait"     {target?, state?, text?, gone?, timeout_ms, prefix}
//   op "outline"  {scope?, interactive_only, max_chars, prefix}  → {text, interactive, clipped, truncated,
//                 frames: [{line, nonce}]}: each iframe's line, and the nonce posted into its document
//   op "summary"  {prefix}
//   op "frame"    {selector, nonce}  posts nonce into that iframe's document → {src}
//   op "probe"    {nonce}  → {match}: whether this document's parent posted nonce to it
//   op "probed"   → {nonce}: the nonce this document's parent last posted to it
//   op "metrics"  → {width, height, scroll_height, scroll_y} of the viewport and page (CSS pixels)
//   op "scroll"   {y} scrolls the page to y and waits two frames → {y} reached
//   op "ping"
//
// reason is one of not_found, ambiguous, not_visible, disabled, covered,
// stale_ref, detached, not_editable, bad_target, bad_option, timeout.
// Refs ("e12"; prefix + number) name elements through weak references, so a
// ref to a removed element answers stale_ref and holds nothing alive. Facts
// about the tab (url, title, id) are the worker's, from chrome.tabs: this
// script never reports them. It imports what it is built on: the DOM
// engine (dom/engine.js: targets), the pure logic (core.js), what an action
// changed (changed.js) and custom selects' options (combobox.js), each of
// which sets its global (gasolineEngine, gasolineCore, ...) unless this
// world has it already, and uses the copy there (the engine's comes first
// from dist/end-isolated.js in a parsed page).
//
// This is the entry of the runtime's ES modules (runtime/): scripts/bundle
// bundles it with all it imports into one classic script, dist/runtime.js,
// the file actions/inject.js injects. Each built-in verb is a module of
// runtime/verbs/ that registers itself with addAction, as the page verbs of
// actions/verbs/ do; they register in this order (verbs() lists them so).
import { NEEDS, addAction } from './runtime/act.js';
import { listenDialogs } from './runtime/dialogs.js';
import { clickPoint } from './runtime/events.js';
import { fieldOutcome } from './runtime/fields.js';
import { hitAt, nextFrame, view } from './runtime/geometry.js';
import { core } from './runtime/globals.js';
import { handle } from './runtime/ops.js';
import { byRef, refFor } from './runtime/refs.js';
import { Failure, brief } from './runtime/targets.js';
import { fillText, held, selectOptions, sentText } from './runtime/text.js';
import './runtime/verbs/click.js';
import './runtime/verbs/hover.js';
import './runtime/verbs/check.js';
import './runtime/verbs/fill.js';
import './runtime/verbs/type.js';
import './runtime/verbs/select.js';
import './runtime/verbs/key_press.js';
import './runtime/verbs/scroll_to.js';
import './runtime/verbs/get_text.js';
import './runtime/verbs/drag.js';
import './runtime/verbs/fill_form.js';

/**
 * install makes this document's runtime: it lists the dialogs actions
 * cause, answers the worker's {gasoline: "dom"} messages and sets
 * globalThis.gasolineRuntime. A document that has one already keeps it.
 */
function install() {
  listenDialogs();
  chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
    // Only the extension's own worker and pages can reach here (content
    // scripts cannot call tabs.sendMessage); the id check is the guard.
    if (sender.id !== chrome.runtime.id || msg?.gasoline !== 'dom') return false;
    handle(msg).then(sendResponse);
    return true;
  });

  // refFor is the draw-mode overlay's: the annotated element's ref (top
  // frame); addAction, Failure and describe are the action modules', and
  // page (hitAt, clickPoint, brief in a frame, nextFrame) the page verbs'
  // (actions/verbs/); verbs names every verb, for the tests; held,
  // fieldOutcome, fillText, selectOptions and sentText are there for the
  // unit tests; brief and element are the accessibility audit's
  // (audit/audit.js): an element's {ref, role, name}, and the live element
  // of a top-frame ref.
  globalThis.gasolineRuntime = {
    handle, refFor: (el) => refFor(el, 'e'), addAction, Failure, describe: (el) => core.describe(el, view), held, fieldOutcome, fillText, selectOptions, sentText,
    brief: (el) => brief(el, 'e'), element: (ref) => byRef.get(ref)?.deref() ?? null,
    page: { hitAt, clickPoint, brief, nextFrame }, verbs: () => Object.keys(NEEDS),
  };
}

if (!globalThis.gasolineRuntime) install();
