// Frozen tabs. A command that runs long is either a busy script (awaiting
// a fetch, a timer: the page's main thread still answers) or a frozen tab
// (a script in an endless loop: nothing runs in the page any more). A
// trivial chrome.scripting.executeScript into the tab tells them apart: it
// needs the page's main thread, so a frozen tab never answers it.
//
// HungTabs remembers the tabs that did not answer. A command to such a tab
// fails at once with reason "tab_unresponsive" unless the tab answers a
// new probe (the loop ended); refresh, navigate and close_tab still run,
// since they are how the tab recovers. A frozen page cannot be reloaded in
// place (its renderer never lets the new document in), so refresh and
// navigate on a tab already found frozen probe it again and, when it still
// does not answer, discard it
// (chrome.tabs.discard ends its renderer; the tab keeps its id and
// reloads). A tab showing a native dialog (alert, confirm) is waiting for
// the user, not frozen: a command to a tab whose page told the worker of
// one (actions/dialogs.js at work, capture/lean-dialogs.js in a document
// loaded idle) fails at once naming it (dialog_showing); one it was not
// told of (an iframe loaded idle, a page older than the extension) looks
// frozen, which unresponsiveText says.
//
// A command that ran into its deadline (status timeout: a script in an
// endless loop, with a deadline too short for the probe) makes its tab a
// suspect, and so does a command still running there (the daemon may tell
// the agent of the timeout before this worker's own deadline passes): the
// next command there probes it first (RECHECK_MS), so a frozen tab is
// refused within a second instead of costing another deadline, and a tab
// that answers is cleared at once. State is per worker
// instance: a restarted worker learns again at the next deadline.

import { CommandError } from '../runner.js';
import { within } from '../backoff.js';

/** PROBE_MS bounds the probe before a command's deadline (runner.js PROBE_LEAD_MS leaves room for it and the post). */
export const PROBE_MS = 900;

/** RECHECK_MS bounds the probe of a tab already known frozen, before a command is refused. */
export const RECHECK_MS = 500;

/** RECOVERS are the actions that run on a frozen tab: they are how it recovers (or needs no page). */
export const RECOVERS = new Set(['refresh', 'navigate', 'close_tab', 'new_tab', 'switch_tab']);

/**
 * probeTab resolves to true when tab tabId's top document runs a trivial
 * script within ms, false when it does not. A refusal (a page Chrome does
 * not let extensions script, a closed tab) is not a frozen page: true.
 */
export function probeTab(tabId, ms, api = chrome) {
  const answered = api.scripting.executeScript({
    target: { tabId, frameIds: [0] },
    injectImmediately: true,
    func: () => 1,
  }).then(() => true, () => true);
  return within(answered, ms, () => false);
}

/**
 * unresponsiveText is the error of a command stopped or refused because tab
 * tabId is frozen. The probe cannot tell an endless loop from a native
 * dialog the worker was not told of (one a page loaded while idle opened:
 * the idle registration has no dialogs.js, capture/declared.js), and a
 * refresh discards the page, so the text names both and asks first.
 */
export function unresponsiveText(tabId, refused) {
  return `tab ${tabId} does not answer: its page's main thread is blocked (a script in an endless loop, or a native dialog ` +
    '(alert, confirm, prompt, "Leave site?") the extension was not told of (one an iframe opened while no agent worked, or a page loaded before the extension started), which it cannot close)' +
    (refused ? ', so the command was not started' : ', so the command was stopped waiting for it') +
    '; commands to this tab fail at once until it answers. If a dialog may show in it, ask the user to answer it, then retry; ' +
    `else reload it with interact({action:"refresh", tab_id:${tabId}}) (it discards the page first: what the user did not save is lost) ` +
    `or close it with interact({action:"close_tab", tab_id:${tabId}}).`;
}

/** UNFREEZE are the actions that discard a tab that does not answer before they run. */
export const UNFREEZE = new Set(['refresh', 'navigate']);

/** HungTabs tracks which tabs did not answer a probe. */
export class HungTabs {
  /**
   * probe(tabId, ms) resolves to whether the tab answered (default
   * probeTab); dialogShown(tabId) to a truthy value when a native dialog
   * holds the tab (actions/dialog.js nativeDialog); discard(tabId) ends a
   * frozen tab's renderer (chrome.tabs.discard); dialogText(tabId, d) is
   * the error of a command refused because the tab shows dialog d
   * (actions/dialog.js nativeDialogText).
   */
  constructor({ probe = probeTab, dialogShown = async () => null, discard = (tabId) => chrome.tabs.discard(tabId), dialogText = (tabId, d) => `dialog_showing: tab ${tabId} shows a native ${d.type}` } = {}) {
    this.probe = probe;
    this.dialogShown = dialogShown;
    this.dialogText = dialogText;
    this.discard = discard;
    this.frozen = new Set(); // tab ids that did not answer their last probe, or suspects
    this.running = new Map(); // tab id → how many commands run there now
  }

  /**
   * answers probes tabId (bounded by ms), records the outcome and resolves
   * to it. A tab a native dialog holds counts as answering.
   */
  async answers(tabId, ms = PROBE_MS) {
    const ok = await this.probe(tabId, ms) || Boolean(await this.dialogShown(tabId).catch(() => null));
    if (ok) this.frozen.delete(tabId);
    else this.frozen.add(tabId);
    return ok;
  }

  /**
   * suspect marks tabId (ignored when undefined) to be probed before its
   * next command: a command there ran into its deadline.
   */
  suspect(tabId) {
    if (tabId !== undefined) this.frozen.add(tabId);
  }

  /** forget drops what is known about tabId (it was closed, reloaded or navigated). */
  forget(tabId) {
    this.frozen.delete(tabId);
  }

  /**
   * guard wraps exec(query, signal, hooks), the executor tabs/owners.js
   * calls with the query's tab_id filled in. A command to a tab a native
   * dialog holds (dialogShown) is refused at once with dialogText, but for
   * RECOVERS actions (a navigation closes the dialog) and the dialog action
   * (which answers it where Chrome lets it: actions/dialog.js). A command to a tab known
   * frozen that does not answer a new probe is refused at once
   * (CommandError, reason "tab_unresponsive"), but for RECOVERS actions;
   * refresh and navigate discard a tab known frozen that still does not
   * answer first (and go
   * to the tab's new id if Chrome gives it one), and clear it once they
   * complete. A tab with a command still running is probed before
   * another command (not RECOVERS) starts there, as a known frozen one is.
   * onTab(tabId) is told the tab each command
   * goes to.
   */
  guard(exec, onTab = () => {}) {
    return async (query, signal, hooks) => {
      const params = query.params && typeof query.params === 'object' ? query.params : {};
      const action = query.action;
      const tabId = Number.isInteger(Number(params.tab_id)) && params.tab_id !== '' && params.tab_id !== null ? Number(params.tab_id) : undefined;
      onTab(tabId);
      if (tabId !== undefined && !RECOVERS.has(action) && action !== 'dialog') {
        const d = await this.dialogShown(tabId).catch(() => null);
        if (d) throw new CommandError(this.dialogText(tabId, d));
      }
      const suspect = this.frozen.has(tabId) || this.running.get(tabId) > 0;
      if (tabId !== undefined && suspect && !RECOVERS.has(action) && !(await this.answers(tabId, RECHECK_MS))) {
        throw new CommandError(unresponsiveText(tabId, true), { reason: 'tab_unresponsive' });
      }
      // Only a tab already found frozen is discarded: a discard reloads the
      // page and loses what the user had not saved, so one short probe of a
      // healthy tab that was slow to answer (a busy machine, a page still
      // loading) must never cause it.
      if (tabId !== undefined && UNFREEZE.has(action) && this.frozen.has(tabId) && !(await this.answers(tabId, RECHECK_MS))) {
        const fresh = await Promise.resolve().then(() => this.discard(tabId)).catch(() => null);
        this.forget(tabId);
        // Chrome may give a discarded tab a new id: the command goes there.
        if (Number.isInteger(fresh?.id) && fresh.id !== tabId) query = { ...query, params: { ...params, tab_id: fresh.id } };
      }
      this.running.set(tabId, (this.running.get(tabId) || 0) + 1);
      let result;
      try {
        result = await exec(query, signal, hooks);
      } finally {
        const n = this.running.get(tabId) - 1;
        if (n > 0) this.running.set(tabId, n);
        else this.running.delete(tabId);
      }
      if (tabId !== undefined && (action === 'refresh' || action === 'navigate' || action === 'close_tab')) this.forget(tabId);
      return result;
    };
  }

  /**
   * verdict probes tabId at a command's deadline (runner.js probe): null
   * when it answers or is unknown, else the final {reason, error}.
   */
  async verdict(tabId) {
    if (tabId === undefined) return null;
    if (await this.answers(tabId)) return null;
    return { reason: 'tab_unresponsive', error: unresponsiveText(tabId, false) };
  }
}
