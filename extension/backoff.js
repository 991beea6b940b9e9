// Reconnect delays for the poll loop and for result posts, and the waits
// bounded in time (an abortable sleep, a promise raced against a timer).

/**
 * Backoff yields exponentially growing delays with jitter: the n-th call to
 * next() returns a delay in [d/2, d] where d = min(max, base * 2^n).
 * reset() starts again from base after a success. Pure; random is injectable
 * for tests.
 */
export class Backoff {
  constructor({ baseMs = 250, maxMs = 5000, random = Math.random } = {}) {
    this.baseMs = baseMs;
    this.maxMs = maxMs;
    this.random = random;
    this.attempt = 0;
  }

  /** next returns the delay in ms to wait before the next attempt. */
  next() {
    const ceiling = Math.min(this.maxMs, this.baseMs * 2 ** this.attempt);
    if (ceiling < this.maxMs) this.attempt++;
    return Math.round(ceiling / 2 + this.random() * (ceiling / 2));
  }

  /** reset makes the next delay start from baseMs again. */
  reset() {
    this.attempt = 0;
  }
}

/**
 * RECONNECT_CAP_MS caps the wait between attempts to reach a daemon that
 * was serving this extension a short while ago (RECENT_DAEMON_MS): the
 * daemon is likely being restarted (an upgrade, or gasoline-mcp starting it
 * for an agent's first call), and a new one is found within this long of
 * its start instead of after the backoff's full delay.
 */
export const RECONNECT_CAP_MS = 300;

/**
 * RECENT_DAEMON_MS is how long after the last answer from the daemon the
 * low cap applies. Past it, nothing has answered for a while and the
 * backoff grows to its maximum as usual: a machine without a daemon is not
 * polled harder than before.
 */
export const RECENT_DAEMON_MS = 2 * 60 * 1000;

/**
 * reconnectDelay is the wait before the next attempt to reach the daemon:
 * backoff's next delay, capped at RECONNECT_CAP_MS while the daemon was
 * seen less than RECENT_DAEMON_MS ago (sinceSeenMs; Infinity when never).
 * Pure.
 */
export function reconnectDelay(backoff, sinceSeenMs) {
  const d = backoff.next();
  return sinceSeenMs < RECENT_DAEMON_MS ? Math.min(d, RECONNECT_CAP_MS) : d;
}

/**
 * sleep resolves after ms, or rejects with signal.reason as soon as signal
 * aborts (an already aborted signal rejects at once).
 */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * within settles like p unless ms pass first; then it settles like late()
 * (its value, or what it throws). The timer is cleared either way; p runs
 * on, and what it settles to later is ignored. A classic content script
 * cannot import it (capture/relay.js keeps its own race).
 */
export function within(p, ms, late) {
  let timer;
  const expired = new Promise((resolve) => {
    timer = setTimeout(resolve, ms);
  }).then(late);
  return Promise.race([p, expired]).finally(() => clearTimeout(timer));
}
