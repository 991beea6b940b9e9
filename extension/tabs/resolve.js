// The tab a command names. Every action that works in a tab asks here; which
// tab a command of an agent without tab_id goes to is decided before, by the
// ownership rules (tabs/owners.js), which use activeTab for their last resort.

import { CommandError } from '../runner.js';
import { tabFacts } from './facts.js';

/**
 * resolveTab returns the tab named by tabId, or, when tabId is absent, the
 * active tab of the last focused normal window. (A command from an agent
 * always arrives here with the tab_id tabs/owners.js chose for it.) It
 * throws CommandError saying what to pass instead. The worker's own
 * chrome answers from tabs/facts.js: what the command's earlier steps
 * asked of the tab, unless it changed since.
 */
export async function resolveTab(tabId, api = globalThis.chrome) {
  if (tabId === undefined || tabId === null || tabId === '') return activeTab(api);
  const id = Number(tabId);
  if (!Number.isInteger(id) || id < 0) throw new CommandError(`tab_id must be a tab's integer id, got ${JSON.stringify(tabId)}`);
  try {
    return await (api === globalThis.chrome ? tabFacts.get(id) : api.tabs.get(id));
  } catch {
    throw new CommandError(`no tab with id ${id} (it may have been closed); observe({what:"tabs"}) lists the open tabs`);
  }
}

/** activeTab is the active tab of the last focused normal window; it throws CommandError when there is none. */
export async function activeTab(api = globalThis.chrome) {
  let win;
  try {
    win = await api.windows.getLastFocused({ populate: true, windowTypes: ['normal'] });
  } catch {
    throw new CommandError('no browser window is open; open one (or use new_tab) and try again');
  }
  const tab = win?.tabs?.find((t) => t.active);
  if (!tab) throw new CommandError('the last focused window has no active tab; pass tab_id or use new_tab');
  return tab;
}
