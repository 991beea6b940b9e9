// Reconnect delays for the poll loop and for result posts.

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
