// execute_js on pages whose Content-Security-Policy forbids eval: the same
// pageRun (page.js), run through chrome.userScripts in a USER_SCRIPT world,
// which is exempt from the page's CSP and shares the page's DOM but not its
// JavaScript globals.
//
// actions/execute.js executeJs runs the script in the MAIN world first; only when
// that answer says the page refused eval (evalRefused) does it call
// runInUserScriptWorld, once, and read its answer as it reads MAIN's
// (readPageResult with world "USER_SCRIPT").
//
// The world is a named one (WORLD_ID), configured by this module with a CSP
// that allows eval, since pageRun compiles the script with the
// AsyncFunction constructor as in MAIN (the page's CSP does not apply there;
// the world's own is set explicitly rather than left to Chrome's default,
// the extension's isolated-world CSP). One such world
// exists per document; globals a script sets there stay for the next script
// in the same document, as they do in MAIN. pristine.js is injected before
// each run, after USER_WORLD_MARK, which tells it this is the USER_SCRIPT
// world (no channel to make, nothing to dispatch on the page's window): it
// saves the world's built-ins on gasolineUserWorld the first time only, so
// results are read with built-ins no page script (and no earlier agent
// script in that document) has touched.
//
// chrome.userScripts exists only when the user has allowed user scripts for
// the extension: the "Allow User Scripts" toggle on its details page (Chrome
// 138 and later) or Developer mode (earlier). Without it the command fails
// with the words an agent needs to ask the user for that.

import { CommandError } from '../runner.js';
import { PAGE_RUN_SOURCE } from '../page.js';
import { allowUserScriptsText } from '../platform.js';

/** WORLD_ID names the USER_SCRIPT world execute_js runs in. */
export const WORLD_ID = 'gasoline-execute-js';

/**
 * WORLD_CSP is that world's CSP: eval allowed (pageRun compiles with the
 * AsyncFunction constructor), nothing else loosened.
 */
export const WORLD_CSP = "script-src 'self' 'unsafe-eval'; object-src 'self'";

/**
 * evalRefused reports whether pageRun's answer r says the page refused to
 * compile the script because of its CSP: an EvalError, or a Trusted Types
 * refusal ("requires 'TrustedScript' assignment").
 */
export function evalRefused(r) {
  if (!r || r.ok !== false || r.kind !== 'compile') return false;
  return r.cls === 'eval' || /unsafe-eval|Content Security Policy|TrustedScript/i.test(String(r.message ?? ''));
}

/**
 * userScriptsApi returns chrome.userScripts, or null when the user has not
 * allowed user scripts (Chrome leaves it undefined; before Chrome 138
 * reading it throws).
 */
export function userScriptsApi(c = globalThis.chrome) {
  try {
    const api = c?.userScripts;
    return api && typeof api === 'object' ? api : null;
  } catch {
    return null;
  }
}

/**
 * notAllowedText is the error of a strict-CSP page when user scripts are not
 * allowed: what happened, where the user switches them on, and what works
 * without them.
 */
export function notAllowedText(url, extensionId) {
  const page = url || 'this page';
  return `the page's Content-Security-Policy blocks eval, so execute_js cannot run the script in the page's MAIN world on ${page}, ` +
    'and user scripts, which would run it in a USER_SCRIPT world exempt from that CSP, are not allowed for the gasoline extension. ' +
    `Ask the user to ${allowUserScriptsText(extensionId)}, then run the script again. The DOM actions (click, fill, get_text, ` +
    'query, analyze dom) need no eval and work on this page as it is.';
}

/**
 * notAllowedNow reports whether Chrome refused a chrome.userScripts call
 * because user scripts are not allowed: a worker that was running when the
 * user switched them off keeps the object, and its calls then fail with
 * "'userScripts.execute' is not available in this context" (Chrome before
 * 138 says it is "only available for users in developer mode").
 */
export function notAllowedNow(message) {
  return /is not available in this context|only available for users in developer mode/i.test(String(message ?? ''));
}

/** tooOldText is the error when chrome.userScripts has no execute (Chrome before 135). */
export function tooOldText(url) {
  return `the page's Content-Security-Policy blocks eval, so execute_js cannot run the script in the page's MAIN world on ${url || 'this page'}, ` +
    'and this Chrome is too old to run it as a user script (chrome.userScripts.execute needs Chrome 135). ' +
    'Update Chrome, or use the DOM actions (click, fill, get_text, query, analyze dom), which need no eval.';
}

/**
 * USER_WORLD_MARK is the source userScripts.execute runs before pristine.js:
 * it defines gasolineUserWorld, once, on the USER_SCRIPT world's global,
 * where pristine.js leaves its built-ins.
 */
export const USER_WORLD_MARK = "Object.getOwnPropertyDescriptor(globalThis, 'gasolineUserWorld') || " +
  "Object.defineProperty(globalThis, 'gasolineUserWorld', { value: Object.create(null) });";

/**
 * userWorldCode is the source userScripts.execute runs after pristine.js: a
 * call of pageRun with the saved built-ins and the script's two forms, its
 * value the promise of pageRun's answer (which Chrome awaits).
 */
export function userWorldCode(body, expr, maxChars) {
  return `(${PAGE_RUN_SOURCE})(gasolineUserWorld.builtins, ${JSON.stringify(body)}, ${JSON.stringify(expr)}, ${Number(maxChars)}, false)`;
}

/**
 * runInUserScriptWorld runs pageRun with body and expr in the USER_SCRIPT
 * world WORLD_ID of target (a chrome.scripting-style target of the tab's top
 * document), immediately, and resolves to the first InjectionResult
 * ({result, documentId, frameId}; {} when there is none), as actions/execute.js
 * inject does for MAIN. It throws CommandError when user scripts are not
 * allowed (notAllowedText), when Chrome is too old, when the document is
 * gone (reason "navigated"), or when Chrome refuses the injection. url is
 * the page's URL, for messages only.
 */
export async function runInUserScriptWorld(tab, target, { body, expr, maxChars, url }) {
  const api = userScriptsApi();
  if (!api) throw new CommandError(notAllowedText(url, chrome.runtime?.id));
  if (typeof api.execute !== 'function' || typeof api.configureWorld !== 'function') throw new CommandError(tooOldText(url));
  let results;
  try {
    // Cheap and idempotent: done on every run, so nothing depends on what
    // Chrome kept of an earlier configuration.
    await api.configureWorld({ worldId: WORLD_ID, csp: WORLD_CSP, messaging: false });
    results = await api.execute({
      target,
      js: [{ code: USER_WORLD_MARK }, { file: 'dist/pristine.js' }, { code: userWorldCode(body, expr, maxChars) }],
      world: 'USER_SCRIPT',
      worldId: WORLD_ID,
      injectImmediately: true,
    });
  } catch (err) {
    const msg = err?.message || String(err);
    if (!userScriptsApi() || notAllowedNow(msg)) throw new CommandError(notAllowedText(url, chrome.runtime?.id));
    if (target.documentIds && /no document with id/i.test(msg)) {
      throw new CommandError(`tab ${tab.id} navigated (a new document) before the script started, so it did not run; ` +
        'run it again on the new page if it is still needed', { reason: 'navigated' });
    }
    throw new CommandError(`the page's Content-Security-Policy blocks eval in its MAIN world, and running the script as a user script ` +
      `(USER_SCRIPT world) in tab ${tab.id} failed too: ${msg}`);
  }
  const first = results?.[0] ?? {};
  if (first.error) {
    throw new CommandError(`the page's Content-Security-Policy blocks eval in its MAIN world, and the USER_SCRIPT world ` +
      `could not run the script in tab ${tab.id}: ${first.error}`);
  }
  return first;
}
