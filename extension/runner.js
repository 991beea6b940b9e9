// The lifecycle of one delivered command, as the daemon's tracker defines it
// (pkg/tracker; POST /query-result in docs/http-api.md): a slow command reports "pending" within 2 s, every command
// reports exactly one final status, and the deadline wins over a late finish.
// No chrome.* dependency: tested under node.

import { EXEC_TIMEOUT_MS, MAX_EXEC_TIMEOUT_MS } from './contract.js';

/**
 * PENDING_AFTER_MS is how long a command may run before "pending" is posted.
 * The daemon's ack timer (3 s) started when it handed the command over, and
 * a busy machine delays the delivery, this timer and the post: at 2 s a
 * new_tab still loading was seen expired as unacknowledged at load 40, so
 * the post leaves 2 s for those delays.
 */
export const PENDING_AFTER_MS = 1000;

/**
 * DEFAULT_TIMEOUT_MS is the execution deadline of a command without
 * timeout_ms, and MAX_TIMEOUT_MS the largest honoured: the daemon's own
 * (contract.js, from pkg/tracker), which it applied already to the
 * timeout_ms it sends.
 */
export const DEFAULT_TIMEOUT_MS = EXEC_TIMEOUT_MS;
export const MAX_TIMEOUT_MS = MAX_EXEC_TIMEOUT_MS;

/**
 * PROBE_LEAD_MS is how long before its deadline a command still running
 * has its tab probed (runCommand's probe): early enough that a probe
 * bounded to well under it reports before the daemon's own deadline timer,
 * which started when the command left the daemon, before it arrived here
 * (a busy machine delays both the delivery and the timers).
 */
export const PROBE_LEAD_MS = 2500;

/** PROBE_MIN_DEADLINE_MS is the shortest deadline whose command is probed (a shorter one just times out). */
export const PROBE_MIN_DEADLINE_MS = 4000;

/**
 * AFTER_MARGIN_MS is how long before its deadline a command's after() work
 * (the capture flush) must be done, so its final status reaches the daemon
 * before the daemon's own deadline timer, which started earlier.
 */
export const AFTER_MARGIN_MS = 500;

/**
 * CommandError is a failure of the command itself (bad params, no such tab,
 * the script threw): it becomes status "error" with its message.
 */
export class CommandError extends Error {
  /**
   * reason, when set, is the failure reason the daemon records instead of
   * "command_error": "navigated" (the page navigated away while it ran),
   * "tab_unresponsive" (the tab's main thread did not answer a probe), or
   * an element action's reason (actions/target.js REASONS). The daemon
   * refuses any other, so a reason must be one pkg/tracker accepts.
   */
  constructor(message, { reason } = {}) {
    super(message);
    this.name = 'CommandError';
    if (reason) this.reason = reason;
  }
}

/** deadlineOf returns the execution deadline in ms for a query, clamped to [1, MAX_TIMEOUT_MS]. */
export function deadlineOf(query) {
  const t = Number(query?.timeout_ms);
  if (!Number.isFinite(t) || t <= 0) return DEFAULT_TIMEOUT_MS;
  return Math.min(Math.max(1, Math.round(t)), MAX_TIMEOUT_MS);
}

/** errorText renders any thrown value as the "error" string of a result post. */
export function errorText(err) {
  if (err instanceof CommandError) return err.message;
  if (err instanceof Error) return err.name && err.name !== 'Error' ? `${err.name}: ${err.message}` : err.message;
  return String(err);
}

/**
 * runCommand runs one delivered command and reports its statuses.
 *
 *   execute(signal, {extend})  does the work and resolves to the "result"
 *                        object; signal aborts once the final status is
 *                        decided, so waits can stop (a page script cannot be
 *                        stopped). extend(ms) moves the deadline to ms from
 *                        now and stops the probe (false once settled).
 *   report(body, {signal})  posts one status body ({correlation_id, status,
 *                        result?, error?, reason?}); for "pending" the signal
 *                        aborts when the final status supersedes it. Bodies
 *                        are posted in order, one at a time.
 *   onStatus(status)     optional; observes "pending" and the final status.
 *   timeoutMessage(ms)   the "error" text of a timeout.
 *   probe()              optional; at PROBE_LEAD_MS before the deadline of a
 *                        command still running (deadlines of at least
 *                        PROBE_MIN_DEADLINE_MS), asks whether its tab still
 *                        answers. It must settle well within PROBE_LEAD_MS.
 *                        It resolves to null (the tab answers: the command
 *                        runs on to its deadline) or to {reason, error}, the
 *                        final status "error" to report at once (a frozen
 *                        tab: "tab_unresponsive"). Once execute has
 *                        settled, no probe starts and a verdict is ignored.
 *   after(outcome, budgetMs)  optional; runs once execute has settled, with
 *                        outcome {result} or {error}, before the final status
 *                        is posted (the capture flush). It may add to
 *                        outcome.result. It gets the time left before the
 *                        deadline minus AFTER_MARGIN_MS (at least 0) and is
 *                        waited for no longer: the action ran, so its
 *                        outcome is reported, never "timeout".
 *
 * Within PENDING_AFTER_MS of the call nothing is posted; a command still
 * running then gets "pending". At timeoutMs after the call the status is
 * "timeout" and a later completion is ignored. Exactly one final status is
 * reported. The returned promise resolves when the final report is done; it
 * never rejects.
 */
export function runCommand({ correlationId, timeoutMs, execute, report, onStatus = () => {}, timeoutMessage, probe, after }) {
  const started = Date.now();
  let acted = false; // execute settled: the action ran, its outcome is the status
  const finished = new AbortController();
  let posting = Promise.resolve();
  const send = (body, opts) => {
    posting = posting.then(() => report(body, opts)).catch(() => {});
    return posting;
  };

  let resolveDone;
  const done = new Promise((resolve) => {
    resolveDone = resolve;
  });

  const finish = (body) => {
    if (finished.signal.aborted) return; // a final status was already decided
    finished.abort(new Error('command finished'));
    clearTimeout(pendingTimer);
    clearTimeout(deadlineTimer);
    clearTimeout(probeTimer);
    onStatus(body.status);
    send({ correlation_id: correlationId, ...body }).then(resolveDone);
  };

  const pendingTimer = setTimeout(() => {
    if (finished.signal.aborted) return;
    onStatus('pending');
    send({ correlation_id: correlationId, status: 'pending' }, { signal: finished.signal });
  }, PENDING_AFTER_MS);

  let deadlineAt = started + timeoutMs;
  let deadlineTimer = setTimeout(() => {
    finish({ status: 'timeout', error: timeoutMessage(timeoutMs) });
  }, timeoutMs);

  // extend moves the deadline to ms from now (the origin rule asks the
  // user: origins/rule.js, the daemon moves its own alike). A command that
  // waits for a person is not probed as a frozen tab.
  const extend = (ms) => {
    if (finished.signal.aborted || acted) return false;
    clearTimeout(deadlineTimer);
    clearTimeout(probeTimer);
    deadlineAt = Date.now() + ms;
    deadlineTimer = setTimeout(() => {
      finish({ status: 'timeout', error: timeoutMessage(deadlineAt - started) });
    }, ms);
    return true;
  };

  const probeTimer = probe && timeoutMs >= PROBE_MIN_DEADLINE_MS ? setTimeout(() => {
    if (finished.signal.aborted || acted) return;
    Promise.resolve().then(probe).then((verdict) => {
      if (verdict && !acted) finish({ status: 'error', error: verdict.error, reason: verdict.reason });
    }, () => {});
  }, timeoutMs - PROBE_LEAD_MS) : undefined;

  const settled = async (outcome) => {
    if (finished.signal.aborted) return;
    acted = true;
    clearTimeout(probeTimer);
    if (after) {
      // The deadline no longer applies: after() is bounded to end before it.
      clearTimeout(deadlineTimer);
      await runAfter(after, outcome, Math.max(0, deadlineAt - Date.now() - AFTER_MARGIN_MS));
    }
    finish(finalBody(outcome));
  };

  Promise.resolve()
    .then(() => execute(finished.signal, { extend }))
    .then((result) => settled({ result }), (error) => settled({ error }));

  return done;
}

/** runAfter runs a command's after(outcome, budgetMs) and waits for it no longer than budgetMs; it never rejects. */
async function runAfter(after, outcome, budgetMs) {
  let timer;
  await Promise.race([
    Promise.resolve().then(() => after(outcome, budgetMs)).catch(() => {}),
    new Promise((resolve) => {
      timer = setTimeout(resolve, budgetMs);
    }),
  ]);
  clearTimeout(timer);
}

/** finalBody is the final status a settled execute's outcome ({result} or {error}) reports. */
function finalBody(outcome) {
  if (!('error' in outcome)) return { status: 'complete', result: outcome.result ?? {} };
  const err = outcome.error;
  return { status: 'error', error: errorText(err), ...(err instanceof CommandError && err.reason ? { reason: err.reason } : {}) };
}
