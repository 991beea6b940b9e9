// The long-poll loop: GET /pending-queries, hand each command to dispatch,
// poll again at once. No chrome.* dependency (injected): tested under node.

import { Backoff, sleep } from './backoff.js';
import { DaemonError, NetworkError, POLL_WAIT_MS } from './daemon.js';

/** UNAUTHORIZED_RETRY_MS is how long the loop waits after a 401 before trying the token again. */
export const UNAUTHORIZED_RETRY_MS = 30000;

/**
 * Poller runs at most one poll loop per worker instance.
 *
 *   loadConfig()        resolves to {token, port}; called once per loop turn.
 *                       In the worker it is a chrome.storage call, which also
 *                       resets the service worker's idle timer.
 *   makeClient(config)  returns a DaemonClient for that config.
 *   dispatch(query)     starts a command; it must not block (commands run
 *                       concurrently while the next poll is in flight).
 *   status              a StatusStore (update(patch) only).
 *
 * The loop ends when there is no token (start() or reconfigure() begins it
 * again) or on stop(). A 401 marks the extension unpaired and retries every
 * UNAUTHORIZED_RETRY_MS; an unreachable daemon is retried with backoff.
 */
export class Poller {
  constructor({ loadConfig, makeClient, dispatch, status, backoff = new Backoff(), waitMs = POLL_WAIT_MS,
    unauthorizedRetryMs = UNAUTHORIZED_RETRY_MS, log = console }) {
    Object.assign(this, { loadConfig, makeClient, dispatch, status, backoff, waitMs, unauthorizedRetryMs, log });
    this.running = false;
    this.stopped = false;
    this.turn = null; // AbortController of the current poll or wait; aborting it re-reads the config
    this.done = Promise.resolve();
  }

  /** start begins the loop unless it is already running. Idempotent; never throws. */
  start() {
    this.stopped = false;
    if (this.running) return;
    this.running = true;
    this.done = this.#loop()
      .catch((err) => this.log.error('gasoline: poll loop failed:', err))
      .finally(() => {
        this.running = false;
      });
  }

  /** reconfigure abandons the current poll or wait so the new token/port take effect now. */
  reconfigure() {
    this.turn?.abort(new Error('reconfigured'));
    this.start();
  }

  /** stop ends the loop after the current turn; done settles when it has. */
  stop() {
    this.stopped = true;
    this.turn?.abort(new Error('stopped'));
    return this.done;
  }

  async #loop() {
    while (!this.stopped) {
      const config = await this.loadConfig();
      if (!config.token) {
        this.status.update({ paired: false, token_rejected: false });
        return;
      }
      const turn = (this.turn = new AbortController());
      try {
        const queries = await this.makeClient(config).pendingQueries({ waitMs: this.waitMs, signal: turn.signal });
        this.backoff.reset();
        this.status.update({ paired: true, token_rejected: false, daemon_reachable: true, last_error: null });
        for (const q of queries) {
          try {
            this.dispatch(q);
          } catch (err) {
            this.log.error('gasoline: dispatching', q?.correlation_id, err);
          }
        }
      } catch (err) {
        if (turn.signal.aborted) continue;
        await this.#recover(err, turn.signal).catch(() => {});
      }
    }
  }

  // recover records what went wrong and waits before the next turn.
  #recover(err, signal) {
    if (err instanceof DaemonError && err.status === 401) {
      this.status.update({
        paired: false,
        token_rejected: true,
        daemon_reachable: true,
        last_error: `the daemon rejected this extension's token (${err.message}); run "gasoline pair" and enter the new code`,
      });
      return sleep(this.unauthorizedRetryMs, signal);
    }
    if (err instanceof NetworkError) {
      this.status.update({
        daemon_reachable: false,
        last_error: `${err.message}; is it running? Start it with "gasoline daemon start"`,
      });
    } else if (err instanceof DaemonError) {
      this.status.update({
        daemon_reachable: true,
        last_error: `GET /pending-queries failed: ${err.message}${err.hint ? ` (${err.hint})` : ''}`,
      });
    } else {
      this.log.error('gasoline: poll:', err);
      this.status.update({ last_error: `polling failed: ${err?.message || err}` });
    }
    return sleep(this.backoff.next(), signal);
  }
}
