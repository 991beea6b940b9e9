// The long-poll loop: GET /pending-queries, hand each command to dispatch,
// poll again once the commands have chosen their tab (HEAD_START_MS at
// most). No chrome.* dependency (injected): tested under node.

import { Backoff, reconnectDelay, sleep } from './backoff.js';
import { DaemonError, NetworkError, SignatureError, POLL_WAIT_MS } from './daemon.js';

/** UNAUTHORIZED_RETRY_MS is how long the loop waits after a 401 before trying the token again. */
export const UNAUTHORIZED_RETRY_MS = 30000;

/**
 * HEAD_START_MS is the longest the next poll waits for the commands the
 * last one brought to reach their tab. Sealing and sending a poll takes the
 * worker's thread about 1.5 ms (fetch alone 1.2: browserbench
 * -worker-profile); sent at once, it came while the command was choosing
 * its tab (received → tab chosen 0.5 → 1.2 ms p50, browserbench -stages),
 * and once the command waits on the page, it costs it nothing. A command
 * submitted meanwhile waits for the poll that much longer.
 */
export const HEAD_START_MS = 5;

/**
 * Poller runs at most one poll loop per worker instance.
 *
 *   loadConfig()        resolves to {token, port}; called once per loop turn.
 *                       In the worker it is a chrome.storage call (at most
 *                       once every 5 s: background.js pollConfig), which
 *                       also resets the service worker's idle timer.
 *   makeClient(config)  returns a DaemonClient for that config.
 *   dispatch(query)     starts a command; it must not block (commands run
 *                       concurrently while the next poll is in flight). It
 *                       may return a promise that settles once the command
 *                       has reached its tab: the next poll waits for it, at
 *                       most HEAD_START_MS.
 *   status              a StatusStore (update(patch) and dropped(message)).
 *   ready()             awaited before the loop's first turn (the worker's
 *                       content-script registration); optional.
 *   frames()            since when every frame is captured (ms; 0: top
 *                       documents only), sent with each poll with when it
 *                       was read (now()); optional.
 *   held()              what the extension holds of origins the user has
 *                       not allowed (origins/held.js counts), sent with
 *                       each poll; optional.
 *   onAgent(at)         called with an agent's last tool call (ms) when the
 *                       daemon's answer has one (the worker goes at work);
 *                       optional, must not block or throw.
 *   onAllow(origins)    called with the origins the user allowed in a
 *                       terminal ('gasoline allow') when an answer has some,
 *                       before its commands are dispatched; optional.
 *
 * Every reconfigure() (and stop()) starts a new generation. A turn belongs to
 * the generation in which it read its config: a config read, a poll answer
 * or an error that arrives after the generation changed is thrown away and
 * the turn starts again with a fresh config. So a poll never goes out with a
 * token or port older than the last reconfigure(), and once reconfigure() has
 * returned (as Unpair calls it after removing the token) no command of an
 * earlier poll is dispatched.
 *
 * The loop ends when there is no token (start() or reconfigure() begins it
 * again) or on stop(). A 401 marks the extension unpaired and retries every
 * UNAUTHORIZED_RETRY_MS; an unreachable daemon is retried with backoff,
 * capped low while it answered a short while ago (reconnectDelay), so a
 * restarted daemon is found within RECONNECT_CAP_MS; an answer that is not
 * signed by the paired daemon is dropped, counted, and retried with backoff.
 * onLost() is called each time the daemon cannot be reached (it may come
 * back as a new process that knows nothing of this browser yet), and when
 * an answer comes from a daemon that started at another time than the
 * last one (restarted between two polls).
 * now and wait (a clock and sleep) are injectable for tests.
 */
export class Poller {
  constructor({ loadConfig, makeClient, dispatch, status, ready = () => undefined, frames = () => undefined, held = () => undefined, onAgent = () => {}, onAllow = () => {}, onLost = () => {},
    backoff = new Backoff(), waitMs = POLL_WAIT_MS, unauthorizedRetryMs = UNAUTHORIZED_RETRY_MS, log = console, now = Date.now, wait = sleep }) {
    Object.assign(this, { loadConfig, makeClient, dispatch, status, ready, frames, held, onAgent, onAllow, onLost, backoff, waitMs, unauthorizedRetryMs, log, now, wait });
    this.seenAt = -Infinity; // when the daemon last answered a poll
    this.daemonStarted = ''; // when the daemon that last answered started (a new value: a new daemon)
    this.running = false;
    this.stopped = false;
    this.generation = 0; // bumped by reconfigure() and stop()
    this.turn = null; // AbortController of the current turn; aborted when the generation changes
    this.done = Promise.resolve();
  }

  /** start begins the loop unless it is already running. Idempotent; never throws. */
  start() {
    this.stopped = false;
    if (this.running) return;
    this.running = true;
    let endedAt; // the generation in which the loop decided to end
    this.done = this.#loop()
      .then((gen) => {
        endedAt = gen;
      })
      .catch((err) => this.log.error('gasoline: poll loop failed:', err))
      .finally(() => {
        this.running = false;
        // A reconfigure() that came while the ending loop was still marked
        // running found nothing to start: start now, so it is not lost.
        if (!this.stopped && endedAt !== undefined && endedAt !== this.generation) this.start();
      });
  }

  /**
   * reconfigure starts a new generation: the current poll or wait is
   * abandoned, nothing it returns is dispatched, and the next turn reads the
   * config again.
   */
  reconfigure() {
    this.generation++;
    this.turn?.abort(new Error('reconfigured'));
    this.start();
  }

  /**
   * tell sends a poll that does not wait (beside the held one, which goes
   * on), carrying frames() and held(), and dispatches what it brings: the
   * worker calls it when either changed (going to work, capture held or
   * released), so the daemon learns it now
   * and not when the held poll ends (up to waitMs later). The daemon
   * delivers each command once, to whichever poll takes it, so nothing is
   * lost or run twice. It never rejects; it does nothing while not running.
   */
  async tell() {
    if (!this.running || this.stopped) return;
    const gen = this.generation;
    try {
      const config = await this.loadConfig();
      if (!config.token || gen !== this.generation) return;
      const queries = await this.makeClient(config).pendingQueries({ waitMs: 0, frames: this.frames(), framesAt: this.now(), held: this.held(), onAllow: this.onAllow, onStarted: this.#started });
      if (gen !== this.generation) return;
      for (const q of queries) {
        try {
          this.dispatch(q);
        } catch (err) {
          this.log.error('gasoline: dispatching', q?.correlation_id, err);
        }
      }
    } catch (err) {
      this.log.warn('gasoline: telling the daemon how capture stands (frames, held):', err?.message || err);
    }
  }

  /** stop ends the loop; nothing more is dispatched. done settles when it has ended. */
  stop() {
    this.stopped = true;
    this.generation++;
    this.turn?.abort(new Error('stopped'));
    return this.done;
  }

  // loop runs turns until stopped or unpaired; it resolves to the generation
  // in which it ended.
  async #loop() {
    await this.ready();
    while (!this.stopped) {
      const gen = this.generation;
      const turn = (this.turn = new AbortController());
      const config = await this.loadConfig();
      if (gen !== this.generation) continue; // read before a reconfigure: read again
      if (!config.token) {
        this.status.update({ paired: false, token_rejected: false });
        return gen;
      }
      try {
        let agentAt = 0;
        const queries = await this.makeClient(config).pendingQueries({ waitMs: this.waitMs, signal: turn.signal, frames: this.frames(), framesAt: this.now(), held: this.held(),
          onAgent: (at) => {
            agentAt = at;
          },
          onAllow: this.onAllow,
          onStarted: this.#started });
        if (gen !== this.generation) continue; // for a token or port that is gone: run nothing
        if (agentAt) {
          try {
            this.onAgent(agentAt);
          } catch (err) {
            this.log.error('gasoline: onAgent:', err);
          }
        }
        this.backoff.reset();
        this.seenAt = this.now();
        this.status.update({ paired: true, token_rejected: false, daemon_reachable: true, last_error: null });
        const reached = [];
        for (const q of queries) {
          try {
            reached.push(this.dispatch(q));
          } catch (err) {
            this.log.error('gasoline: dispatching', q?.correlation_id, err);
          }
        }
        if (reached.length) await this.#headStart(reached, turn.signal);
      } catch (err) {
        if (gen !== this.generation || turn.signal.aborted) continue;
        await this.#recover(err, config, turn.signal).catch(() => {});
      }
    }
    return this.generation;
  }

  // headStart resolves once every promise of reached settled (each
  // command reached its tab, or ended), or after HEAD_START_MS.
  #headStart(reached, signal) {
    const cap = new AbortController();
    const capped = this.wait(HEAD_START_MS, AbortSignal.any([signal, cap.signal])).catch(() => {});
    return Promise.race([Promise.allSettled(reached), capped]).finally(() => cap.abort());
  }

  // started notes when the answering daemon started: another start than
  // the last one seen is a daemon that knows nothing of this browser yet.
  #started = (at) => {
    if (this.daemonStarted && at !== this.daemonStarted) this.#lost();
    this.daemonStarted = at;
  };

  #lost() {
    try {
      this.onLost();
    } catch (e) {
      this.log.error('gasoline: onLost:', e);
    }
  }

  // recover records what went wrong and waits before the next turn.
  #recover(err, config, signal) {
    if (err instanceof SignatureError) {
      this.status.dropped(`dropped an answer to GET /pending-queries from 127.0.0.1:${config.port}: ${err.message}; ` +
        'nothing in it was run. Another program may hold the daemon\'s port: stop it, or pair again with the real daemon');
      return this.wait(this.backoff.next(), signal);
    }
    if (err instanceof DaemonError && err.status === 401 && err.code !== 'stale_request' && err.code !== 'replayed') {
      this.status.update({
        paired: false,
        token_rejected: true,
        daemon_reachable: true,
        last_error: `the daemon rejected this extension's token (${err.message}); run "gasoline pair" and enter the new code`,
      });
      return this.wait(this.unauthorizedRetryMs, signal);
    }
    if (err instanceof NetworkError) {
      this.#lost();
      this.status.update({
        daemon_reachable: false,
        last_error: `${err.message}; is it running? Start it with "gasoline daemon start"`,
      });
      return this.wait(reconnectDelay(this.backoff, this.now() - this.seenAt), signal);
    } else if (err instanceof DaemonError) {
      this.status.update({
        daemon_reachable: true,
        last_error: `GET /pending-queries failed: ${err.message}${err.hint ? ` (${err.hint})` : ''}`,
      });
    } else {
      this.log.error('gasoline: poll:', err);
      this.status.update({ last_error: `polling failed: ${err?.message || err}` });
    }
    return this.wait(this.backoff.next(), signal);
  }
}
