// The dispatch of commands: ACTIONS maps each action a command can ask for
// to its handler (one module per action family under actions/, draw mode in
// overlay/), and runQuery runs one query through it. Each handler takes the
// command's params, an AbortSignal (aborted when the command's final status
// is decided) and {deadlineMs, ...hooks}, and resolves to the "result"
// object of the command or throws CommandError. This table imports the
// handlers, never the other way round.

import * as dom from './actions/dom.js';
import { VERB_ACTIONS } from './actions/verb.js';
import * as tabs from './actions/tabs.js';
import { executeJs } from './actions/execute.js';
import { dialog } from './actions/dialog.js';
import * as moves from './actions/moves.js';
import { screenshot } from './actions/screenshot.js';
import { analyzePerformance } from './perf/worker.js';
import { drawModeShow } from './overlay/worker.js';
import { harBodies } from './har/bodies.js';
import { accessibility } from './audit/audit.js';
import { releaseCapture } from './origins/held.js';
import { CommandError, deadlineOf } from './runner.js';
import { paramsOf } from './params.js';

/**
 * ACTIONS maps each supported action to its implementation. The daemon puts
 * the action in the query's "action" field.
 */
export const ACTIONS = {
  execute_js: executeJs,
  navigate: tabs.navigate,
  refresh: tabs.refresh,
  back: tabs.back,
  forward: tabs.forward,
  new_tab: tabs.newTab,
  switch_tab: tabs.switchTab,
  close_tab: tabs.closeTab,
  ...VERB_ACTIONS, // the DOM actions with a page verb (contract.js DOM_ACTIONS)
  wait_for: dom.waitFor,
  resize: moves.resize,
  dialog,
  dom: dom.dom,
  page_summary: dom.pageSummary,
  performance: analyzePerformance,
  accessibility,
  screenshot,
  draw_mode_show: drawModeShow,
  har_bodies: harBodies,
  release_capture: releaseCapture,
};

/**
 * runQuery executes one query from GET /pending-queries and resolves to its
 * result; it throws CommandError for an unknown type or action. Each action
 * gets (params, signal, {deadlineMs, ...hooks}), params read through the
 * contract (params.js: only what the daemon declares), deadlineMs its execution
 * deadline; hooks.onCreated(tab) is awaited when new_tab has created its tab
 * (tabs/owners.js makes it the agent's there); execute_js calls
 * hooks.onLate() when its script finishes after the command ended, and a
 * DOM action hooks.onWaiting(text) with what it waits for in the page
 * (actions/waiting.js).
 */
export function runQuery(query, signal, hooks = {}) {
  if (query.type && query.type !== 'browser_action') {
    throw new CommandError(`unknown query type ${JSON.stringify(query.type)}; this extension handles "browser_action" only`);
  }
  const action = query.action;
  const impl = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : null;
  if (!impl) {
    throw new CommandError(`unknown action ${action}; this extension supports ${Object.keys(ACTIONS).join(', ')}`);
  }
  return impl(paramsOf(action, query.params), signal, { ...hooks, deadlineMs: deadlineOf(query) });
}

/** timeoutMessage is the "error" text of a command of this action that passed its deadline. */
export function timeoutMessage(action, ms) {
  switch (action) {
    case 'execute_js':
      return `the script ran past its deadline of ${ms} ms and may still be running in the page; ` +
        'its result will be ignored. Make it finish sooner (do not await events that may never come) or pass a larger timeout_ms.';
    case 'navigate':
    case 'new_tab':
    case 'refresh':
    case 'back':
    case 'forward':
      return `the page did not finish loading within ${ms} ms; it may still be loading. ` +
        'execute_js can still run on it, or retry with a larger timeout_ms.';
    default:
      return `${action} did not finish within its deadline of ${ms} ms.`;
  }
}
