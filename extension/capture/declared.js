// The content scripts every page runs (capture, the pristine built-ins, the
// dialog wrappers, the DOM engine), the frames they run in, and in which
// mode which files. The manifest
// declares none: which frames get them changes at run time, which a
// manifest's content_scripts cannot, so the worker registers them
// (chrome.scripting.registerContentScripts) and this module is the one
// place that does. It lives in capture/ because what it declares is, first
// of all, the capture; tabs/reach.js reads the registration it makes.
//
// Two modes, for the whole extension:
//   idle     no agent command or tool call for IDLE_AFTER_MS: the scripts
//            run in top documents only (allFrames false);
//   at work  an agent command arrived, or the daemon reported an agent's
//            tool call (observe included: poller.js onAgent), less than
//            IDLE_AFTER_MS ago: they run in every frame (allFrames true), so
//            an agent's navigate loads its page with every iframe captured
//            from document_start.
// Why: Chrome's own work to run content scripts in a frame (an isolated
// world, its bindings, the injections) costs more than our code there. With
// every frame scripted, each extra iframe of every page cost 4.2 ms of main
// thread (p50, test/e2e/cmd/pagebench); with top documents only 1.6 ms; the
// user pays that all day, agent or no agent. The trade: an iframe that loaded
// while no agent was at work has no capture from before the extension went
// to work, which brings the scripts into every open tab's frames then, in
// the background (onWork: tabs/reach.js reachFramesOfOpenTabs); the daemon's
// capture reads say so (a frames note, from the at-work start the poller
// reports at once).
//
// Each mode has its own files too. At work an entry runs its "js"; idle,
// its "idle_js" when it has one: the lean start bundles (scripts/bundle),
// without what serves an agent only (the bodies of requests that
// succeeded, WebSocket frames and web vitals in the capture (capture/main/lean.js),
// which keeps a failed request's bodies: the user reproduces a bug before
// asking an agent; the pristine built-ins of execute_js and the dialog
// wrappers, with their ISOLATED ends), about 29.2 KB at document_start
// instead of 42. A document loaded
// idle keeps its lean capture until it is loaded again: an agent acting in
// it gets the entry's "agent_js" brought in (tabs/reach.js, never twice,
// and never the capture again, whose hooks must not wrap twice), and its
// records say lean: true (the daemon tells the agent what it lacks).
//
// An entry with "by_worker" (the DOM engine and the recorder, in
// dist/end-isolated.js) is not registered: the worker injects it into each
// document of the mode's frames when webNavigation reports its
// DOMContentLoaded (CaptureMode.loaded), as Chrome would at document_end.
// While idle, only into a top document of a tab the user acted in a moment
// before (ACTED_MS: the page their click or submit led to); any other page
// gets it at the user's first input there, which capture/ask.js reports
// (CaptureMode.asked). A page loaded and left alone (a reload, a typed
// address, a tab opened in the background) never pays for the recorder,
// 20 KB to compile and run, nor the worker for its injection.
// Why: Chrome runs a registered document_end script in a task of its own
// and holds the page's load event until that task has run, and that
// costs the page more than the script: with an empty document_end script
// registered, Python's docs pages fired their load event 10 to 25 ms later
// (p50, test/e2e/cmd/pagebench, which prints the load's phases). An
// injection by the worker runs when it arrives and holds nothing. The
// trade: it arrives a worker's round trip after DOMContentLoaded instead
// of a task (a little later when Chrome has to start the worker), while
// capture/tap.js holds what the user does meanwhile, as before; a frame
// that never reports DOMContentLoaded (an about:blank a script makes and
// writes into) has no recorder. tabs/reach.js brings it, when it looks at
// a tab, into parsed documents that lack it (one that missed the
// injection: the worker failed to start, the page went into the
// back/forward cache first), with the other entries into documents
// lacking those.
//
// What is declared (files, order, worlds, run_at, about:blank and other
// opaque frames through matchOriginAsFallback) is declared.json, which
// extension/test/budget.test.js and scripts/bundle (its staleness test and
// debug copy) read too; this module adds allFrames (the mode) and
// persistAcrossSessions (a browser restart keeps the registration; a stale
// "at work" it kept goes back to idle at the next worker start, as the
// deadline in chrome.storage.session is gone).
//
// The switch is race-free: one updateContentScripts call carries every
// entry, and Chrome applies it whole (or not at all, on an error), so no
// page ever loads between two entries' changes or with nothing registered
// (unregistering and registering again would leave that window). Switches
// run one after another on one chain; atWork changes only once Chrome
// resolved the update; and a command awaits the switch it started (work(),
// at most WORK_WAIT_MS) before it runs. Node-tested with a fake chrome and clock
// (test/declared.test.js).

import { within } from '../backoff.js';

/**
 * IDLE_AFTER_MS is how long after an agent's last command or tool call the
 * extension goes back to idle: 15 minutes, longer than an agent's pauses
 * between steps of one task (it reads, thinks, asks the user), so a task's
 * iframes stay captured throughout, and short enough that the user's
 * browsing after the agent is done is light again soon. The daemon's
 * apitype.AgentActiveFor is the same: it sends the time of an agent's last
 * tool call (observe included) in its poll answers while that is less than
 * 15 minutes ago (poller.js onAgent).
 */
export const IDLE_AFTER_MS = 15 * 60 * 1000;

/**
 * RENEW_MS bounds how often a command moves the idle deadline: at most once
 * a minute (a storage write and an alarm), so the extension goes idle
 * between IDLE_AFTER_MS and IDLE_AFTER_MS + RENEW_MS after the last command,
 * and the commands in between pay a comparison only.
 */
export const RENEW_MS = 60 * 1000;

/**
 * WORK_WAIT_MS bounds how long a command waits for the switch to every
 * frame: a Chrome call that never settles must not hold every command. A
 * switch takes a few ms; past this the command runs anyway (logged), its
 * iframes perhaps without the scripts.
 */
export const WORK_WAIT_MS = 2000;

/**
 * ACTED_MS is how long after the user's last action in a tab the next
 * document loaded there gets the recorder at its DOMContentLoaded while
 * idle (CaptureMode.loaded): long enough for a submit's answer or a
 * link's page to arrive, so the recorder sees what the action led to.
 */
export const ACTED_MS = 10 * 1000;

/** IDLE_ALARM is the chrome.alarms name that wakes the worker at the idle deadline. */
export const IDLE_ALARM = 'gasoline-idle';

/** DEADLINE_KEY is the chrome.storage.session key of the idle deadline (ms since the epoch); absent while idle. */
export const DEADLINE_KEY = 'capture:at_work_until';

/**
 * SINCE_KEY is the chrome.storage.session key of when the at-work
 * registration came into place (ms since the epoch), written once Chrome
 * accepted it and removed on going idle: what the popup shows.
 */
export const SINCE_KEY = 'capture:at_work_since';

const DONE = Promise.resolve();

/** loadDeclared resolves to declared.json's entries. */
export async function loadDeclared(api = chrome) {
  const res = await fetch(api.runtime.getURL('capture/declared.json'));
  return res.json();
}

/**
 * registrations returns declared's entries as registerContentScripts takes
 * them in a mode: at work each entry's js in every frame, idle its idle_js
 * (else its js) in top documents. Pure.
 */
export function registrations(declared, atWork) {
  // agent_js is the worker's (tabs/reach.js): Chrome refuses a field it does not know.
  return declared.filter((d) => !d.by_worker).map(({ idle_js: idleJs, agent_js: _late, ...d }) => ({
    ...d, js: (!atWork && idleJs) || d.js, allFrames: atWork, persistAcrossSessions: true,
  }));
}

/**
 * byWorker returns declared's entries the worker injects itself at a
 * document's DOMContentLoaded ("by_worker": not registered) as
 * executeScript takes them: [{world, files}], in declared's order. Pure.
 */
export function byWorker(declared) {
  return (declared || []).filter((d) => d.by_worker).map((d) => ({ world: d.world === 'MAIN' ? 'MAIN' : 'ISOLATED', files: d.js }));
}

/**
 * LOADED_FILTER is the webNavigation event filter of CaptureMode.loaded's
 * listener: the schemes the registered entries run in (about:, data: and
 * blob: frames through matchOriginAsFallback), so Chrome's own pages do
 * not wake the worker.
 */
export const LOADED_FILTER = { url: [{ schemes: ['http', 'https', 'file', 'about', 'data', 'blob'] }] };

/**
 * plan compares Chrome's registration (getRegisteredContentScripts) with
 * the one wanted: "none" when they agree, "update" when the same ids in the
 * same order differ in a field (a mode switch, or files changed by an
 * update of the extension), "replace" otherwise (nothing registered yet, or
 * other ids). Pure.
 */
export function plan(registered, wanted) {
  const ids = (list) => list.map((s) => s.id).join('\n');
  if (ids(registered) !== ids(wanted)) return 'replace';
  const value = (v) => JSON.stringify(v ?? false);
  const same = wanted.every((w, i) => Object.keys(w).every((k) => value(registered[i][k]) === value(w[k])));
  return same ? 'none' : 'update';
}

/**
 * CaptureMode keeps the registration in step with the mode. Its zero state
 * is idle; start() (idempotent) registers and restores the mode a previous
 * worker instance left; work() marks an agent command or tool call;
 * onAlarm(alarm) goes idle at the deadline. atWork is true once the at-work
 * registration is in place, since when it came (ms; 0 while idle).
 * onWork() is called each time the extension goes from idle to at work;
 * onReplace() after the registration was replaced (a first start, an
 * update of the extension). now is injectable for tests; chain settles
 * once every switch asked for so far has.
 */
export class CaptureMode {
  constructor({ api = globalThis.chrome, now = Date.now, load = () => loadDeclared(api), onWork = () => {}, onReplace = () => {}, log = console, waitMs = WORK_WAIT_MS } = {}) {
    Object.assign(this, { api, now, load, onWork, onReplace, log, waitMs });
    this.atWork = false;
    this.since = 0; // when the at-work registration came into place; 0 while idle
    this.deadline = 0; // the idle deadline this instance last wrote or read; 0 while idle
    this.chain = DONE; // the switches, one after another
    this.started = null; // start()'s promise, until it failed
    this.slow = null; // a switch a command stopped waiting for, until it settles
    this.acts = new Map(); // tab id -> when the user last acted there (acted), for ACTED_MS
  }

  /**
   * start resolves once the registration matches the mode (at work if a
   * previous instance's deadline is still ahead, else idle), to true, or to
   * false when Chrome refused (logged; the next start() tries again). It
   * never rejects; calls share one attempt.
   */
  start() {
    if (!this.started) {
      this.started = this.#serial(() => this.#init()).then(() => true, (err) => {
        this.log.warn('gasoline: registering the content scripts:', err);
        this.started = null;
        return false;
      });
    }
    return this.started;
  }

  /**
   * work marks an agent command (at: now) or an agent's tool call the
   * daemon reported (at: its time): the extension is at work (every frame
   * gets the scripts) until IDLE_AFTER_MS after at. The first switch from
   * idle is waited for, up to WORK_WAIT_MS (then it goes on, logged, and the
   * command runs anyway); while at work it resolves at once: a comparison,
   * and once a minute a renewal of the deadline the command does not wait
   * for. It never rejects: a refused switch is logged.
   */
  work(at = this.now()) {
    if (!this.#due(at)) return DONE;
    const switching = this.start()
      .then(() => this.#serial(() => this.#toWork(at)))
      .catch((err) => this.log.warn('gasoline: capturing every frame for the agent:', err));
    // A renewal (the deadline still ahead, so no switch to idle can be
    // queued before it) does not hold the command.
    if (this.atWork && this.now() < this.deadline) return DONE;
    // A switch that already outlasted waitMs holds the chain: later
    // commands do not wait for it again, each for as long.
    if (this.slow) return DONE;
    return within(switching, this.waitMs, () => {
      const slow = (this.slow = switching);
      slow.finally(() => {
        if (this.slow === slow) this.slow = null;
      });
      this.log.warn(`gasoline: the switch to every frame took over ${this.waitMs} ms; the command runs meanwhile`);
    });
  }

  // due says whether at moves the mode: idle, or the deadline by RENEW_MS or more.
  #due(at) {
    const until = at + IDLE_AFTER_MS;
    if (until <= this.now()) return false;
    return !this.atWork || until >= this.deadline + RENEW_MS;
  }

  /** onAlarm goes idle when alarm is IDLE_ALARM and the deadline has passed (else sets the alarm again). */
  onAlarm(alarm) {
    if (alarm?.name !== IDLE_ALARM) return DONE;
    return this.start()
      .then(() => this.#serial(() => this.#toIdleIfDue()))
      .catch((err) => this.log.warn('gasoline: going back to top documents only:', err));
  }

  /**
   * loaded injects the by_worker entries (byWorker) into the document
   * whose DOMContentLoaded webNavigation reported (d: {tabId, frameId,
   * parentFrameId, documentId}) when it needs them from the start: while
   * at work, in every frame; while idle, in a top document (a prerendered
   * one included, whose frameId is not 0 until it is shown) of a tab the
   * user acted in less than ACTED_MS before (acted): the page their click
   * or submit led to, whose arrival the recorder watches. Any other
   * document gets them when the user's first input there asks (asked).
   * It resolves once injected, or once Chrome refused (the document is
   * gone, or is one Chrome does not let extensions script): it never
   * rejects. The engine and the recorder install themselves once per
   * document, so a document that has them already (tabs/reach.js) is
   * unchanged.
   */
  async loaded(d) {
    if (!d?.documentId || !(await this.start())) return;
    if (!this.atWork && (d.frameId !== 0 && d.parentFrameId !== -1 || !(this.now() - (this.acts.get(d.tabId) ?? -Infinity) < ACTED_MS))) return;
    await this.#inject(d.tabId, d.documentId);
  }

  /**
   * asked injects the by_worker entries into the document of sender (a
   * chrome.runtime.MessageSender) whose capture/ask.js asked for the
   * recorder at the user's first input there, and notes that the user
   * acts in its tab (acted). It never rejects.
   */
  async asked(sender) {
    const tabId = sender?.tab?.id;
    if (!Number.isInteger(tabId) || typeof sender.documentId !== 'string') return;
    this.acted(tabId);
    if (!(await this.start())) return;
    await this.#inject(tabId, sender.documentId);
  }

  /** acted notes that the user acted in tab tabId now (a recorded action, or a recorder asked for). */
  acted(tabId) {
    const now = this.now();
    for (const [id, at] of this.acts) if (now - at >= ACTED_MS) this.acts.delete(id);
    this.acts.set(tabId, now);
  }

  async #inject(tabId, documentId) {
    for (const { world, files } of byWorker(this.declared)) {
      try {
        await this.api.scripting.executeScript({ target: { tabId, documentIds: [documentId] }, world, files, injectImmediately: true });
      } catch {
        return; // gone, or not scriptable: nothing to record there
      }
    }
  }

  #serial(fn) {
    const next = this.chain.then(fn);
    this.chain = next.catch(() => {});
    return next;
  }

  async #init() {
    this.declared = await this.load();
    const until = await this.#storedDeadline();
    if (until > this.now()) {
      await this.#apply(true);
      const got = await this.api.storage.session.get(SINCE_KEY);
      await this.#arrived(Number(got?.[SINCE_KEY]) || 0);
      this.deadline = until;
      await this.#arm(until);
      return;
    }
    await this.#apply(false);
    await this.#clear();
  }

  async #toWork(at) {
    if (!this.#due(at)) return;
    const until = at + IDLE_AFTER_MS;
    if (until > this.deadline) {
      // The deadline first: a worker stopped mid-switch finds it and completes the switch at its start.
      await this.api.storage.session.set({ [DEADLINE_KEY]: until });
      this.deadline = until;
      await this.#arm(until);
    }
    if (!this.atWork) {
      await this.#apply(true);
      await this.#arrived(0);
      this.onWork();
    }
  }

  // arrived notes when the at-work registration came into place (since, or
  // now), for the popup and the daemon, once Chrome accepted it.
  async #arrived(since) {
    this.since = since || this.now();
    await this.api.storage.session.set({ [SINCE_KEY]: this.since });
  }

  async #toIdleIfDue() {
    const until = await this.#storedDeadline();
    if (until > this.now()) {
      this.deadline = until;
      await this.#arm(until);
      return;
    }
    await this.#apply(false);
    await this.#clear();
  }

  async #apply(atWork) {
    const wanted = registrations(this.declared, atWork);
    const registered = await this.api.scripting.getRegisteredContentScripts();
    const step = plan(registered, wanted);
    if (step === 'update') {
      await this.api.scripting.updateContentScripts(wanted);
    } else if (step === 'replace') {
      // Only when the declaration's ids changed (a first start, an update
      // of the extension, which clears the registration): a page that
      // began loading before it is in place gets nothing from Chrome, so
      // onReplace (background.js) reaches the tabs still loading once they
      // have loaded (tabs/reach.js reachWhenLoaded).
      if (registered.length) await this.api.scripting.unregisterContentScripts({ ids: registered.map((s) => s.id) });
      await this.api.scripting.registerContentScripts(wanted);
      this.onReplace();
    }
    this.atWork = atWork;
  }

  async #storedDeadline() {
    const got = await this.api.storage.session.get(DEADLINE_KEY);
    return Number(got?.[DEADLINE_KEY]) || 0;
  }

  #arm(until) {
    return this.api.alarms.create(IDLE_ALARM, { when: until });
  }

  async #clear() {
    this.deadline = 0;
    this.since = 0;
    await this.api.storage.session.remove([DEADLINE_KEY, SINCE_KEY]);
    await this.api.alarms.clear(IDLE_ALARM);
  }
}
