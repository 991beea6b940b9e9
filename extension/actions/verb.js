// The one worker path of the DOM actions the daemon declares with a page
// verb (contract.js DOM_ACTIONS, from internal/tools/interact_dom.go): it
// hands the runtime the verb, the target and the action's own params as
// the verb's options, and follows what the action started (dom.js acting).
// A new DOM action needs no code here: its Go declaration and its page verb
// (runtime.js, or a file of its own under actions/verbs/) are all.

import { CONTRACT, DOM_ACTIONS } from '../contract.js';
import { acting } from './dom.js';
import { ADDRESS } from './page-message.js';

/**
 * verbCall is how the generic path runs the DOM action named action (a key
 * of DOM_ACTIONS) with params: the page verb, its options (every param of
 * the action but ADDRESS: the contract declares text only where it is the
 * text to enter, the daemon sending the target canonically), and
 * acting's options (an action without settle_ms reads: it is not followed).
 */
export function verbCall(action, params) {
  const spec = DOM_ACTIONS[action];
  const declared = Object.keys(CONTRACT[action]);
  const opts = {};
  for (const name of declared) {
    if (ADDRESS.has(name)) continue;
    if (params[name] !== undefined) opts[name] = params[name];
  }
  return {
    verb: spec.verb,
    opts,
    how: { needsTarget: spec.target === 'required', targetless: spec.target === 'none', reads: !declared.includes('settle_ms') },
  };
}

/** verbHandler returns the ACTIONS handler of the DOM action named action: (params, signal, ctx) resolving to the command's result. */
export function verbHandler(action) {
  return (params, signal, ctx) => {
    const { verb, opts, how } = verbCall(action, params);
    return acting(verb, params, signal, ctx, opts, how);
  };
}

/** VERB_ACTIONS are the ACTIONS handlers of every action of DOM_ACTIONS. */
export const VERB_ACTIONS = Object.fromEntries(Object.keys(DOM_ACTIONS).map((a) => [a, verbHandler(a)]));
