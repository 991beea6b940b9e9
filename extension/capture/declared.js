// The content scripts every page runs (capture, the pristine built-ins, the
// dialog wrappers, the DOM engine) and the frames they run in. The manifest
// declares none: which frames get them changes at run time, which a
// manifest's content_scripts cannot, so the worker registers them
// (chrome.scripting.registerContentScripts) and this module is the one
// place that does. It lives in capture/ because what it declares is, first
// of all, the capture; tabs/reach.js reads the registration it makes.
//
// Two modes, for the whole extension:
//   idle     no agent command for IDLE_AFTER_MS: the scripts run in top
//            documents only (allFrames false);
//   at work  an agent command arrived less than IDLE_AFTER_MS ago: they run
//            in every frame (allFrames true), so an agent's navigate loads
//            its page with every iframe captured from document_start.
// Why: Chrome's own work to run content scripts in a frame (an isolated
// world, its bindings, the injections) costs more than our code there. With
// every frame scripted, each extra iframe of every page cost 4.2 ms of main
// thread (p50, test/e2e/cmd/pagebench); with top documents only 1.6 ms; the
// user pays that all day, agent or no agent. The trade: an iframe that loaded
// while no agent was at work has no capture from before the agent's first
// command in its tab, which brings the scripts into that tab's frames then
// (tabs/reach.js withFrames).
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
// resolved the update; and a command awaits the switch it started (work())
// before it runs. Node-tested with a fake chrome and clock
// (test/declared.test.js).

/**
 * IDLE_AFTER_MS is how long after the last agent command the extension goes
 * back to idle: 15 minutes, longer than an agent's pauses between steps of
 * one task (it reads, thinks, asks the user), so a task's iframes stay
 * captured throughout, and short enough that the user's browsing after the
 * agent is done is light again soon.
 */
export const IDLE_AFTER_MS = 15 * 60 * 1000;

/**
 * RENEW_MS bounds how often a command moves the idle deadline: at most once
 * a minute (a storage write and an alarm), so the extension goes idle
 * between IDLE_AFTER_MS and IDLE_AFTER_MS + RENEW_MS after the last command,
 * and the commands in between pay a comparison only.
 */
export const RENEW_MS = 60 * 1000;

/** IDLE_ALARM is the chrome.alarms name that wakes the worker at the idle deadline. */
export const IDLE_ALARM = 'gasoline-idle';

/** DEADLINE_KEY is the chrome.storage.session key of the idle deadline (ms since the epoch); absent while idle. */
export const DEADLINE_KEY = 'capture:at_work_until';

const DONE = Promise.resolve();

/** loadDeclared resolves to declared.json's entries. */
export async function loadDeclared(api = chrome) {
  const res = await fetch(api.runtime.getURL('capture/declared.json'));
  return res.json();
}

/** registrations returns declared's entries as registerContentScripts takes them in a mode. Pure. */
export function registrations(declared, atWork) {
  return declared.map((d) => ({ ...d, allFrames: atWork, persistAcrossSessions: true }));
}

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
 * worker instance left; work() marks an agent command; onAlarm(alarm) goes
 * idle at the deadline. atWork is true once the at-work registration is in
 * place. onWork() is called each time the extension goes from idle to at
 * work. now is injectable for tests.
 */
export class CaptureMode {
  constructor({ api = globalThis.chrome, now = Date.now, load = () => loadDeclared(api), onWork = () => {}, log = console } = {}) {
    Object.assign(this, { api, now, load, onWork, log });
    this.atWork = false;
    this.deadline = 0; // the idle deadline this instance last wrote or read; 0 while idle
    this.chain = DONE; // the switches, one after another
    this.started = null; // start()'s promise, until it failed
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
   * work marks an agent command: it resolves once the extension is at work
   * (every frame gets the scripts), with the idle deadline moved to
   * IDLE_AFTER_MS from now. While at work it resolves at once without
   * touching Chrome (a comparison), but once a minute. It never rejects: a
   * refused switch is logged and the command runs anyway.
   */
  work() {
    if (this.atWork && this.now() < this.deadline - IDLE_AFTER_MS + RENEW_MS) return DONE;
    return this.start()
      .then(() => this.#serial(() => this.#toWork()))
      .catch((err) => this.log.warn('gasoline: capturing every frame for the agent:', err));
  }

  /** onAlarm goes idle when alarm is IDLE_ALARM and the deadline has passed (else sets the alarm again). */
  onAlarm(alarm) {
    if (alarm?.name !== IDLE_ALARM) return DONE;
    return this.start()
      .then(() => this.#serial(() => this.#toIdleIfDue()))
      .catch((err) => this.log.warn('gasoline: going back to top documents only:', err));
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
      this.deadline = until;
      await this.#arm(until);
      return;
    }
    await this.#apply(false);
    await this.#clear();
  }

  async #toWork() {
    if (this.atWork && this.now() < this.deadline - IDLE_AFTER_MS + RENEW_MS) return;
    const until = this.now() + IDLE_AFTER_MS;
    // The deadline first: a worker stopped mid-switch finds it and completes the switch at its start.
    await this.api.storage.session.set({ [DEADLINE_KEY]: until });
    this.deadline = until;
    await this.#arm(until);
    if (!this.atWork) {
      await this.#apply(true);
      this.onWork();
    }
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
      // of the extension): a page loading meanwhile gets what the
      // worker's reach brings afterwards.
      if (registered.length) await this.api.scripting.unregisterContentScripts({ ids: registered.map((s) => s.id) });
      await this.api.scripting.registerContentScripts(wanted);
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
    await this.api.storage.session.remove(DEADLINE_KEY);
    await this.api.alarms.clear(IDLE_ALARM);
  }
}
