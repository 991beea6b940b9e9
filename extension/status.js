// Connection state shared by the service worker (its only writer) and the
// popup (a reader), kept in chrome.storage.local under the keys below.

/** Storage keys. "token" and "port" are settings; "status" is written by the worker. */
export const KEYS = Object.freeze({ token: 'token', port: 'port', status: 'status' });

/**
 * The "status" object:
 *   paired           true after a successful pairing or poll; false with no
 *                    token or when the daemon rejected the token (401)
 *   token_rejected   true when the daemon answered 401 to the stored token
 *   daemon_reachable true/false as of the last request; null before any
 *   last_error       what went wrong last and what to do, or null
 *   dropped_batches  answers to GET /pending-queries dropped because the paired
 *                    daemon had not signed them (another program on its port)
 *   last_dropped_at  ISO time of the last such answer, or null
 *   last_command     {action, correlation_id, status, received_at, updated_at, instance}
 *                    status: running | pending | complete | error | timeout |
 *                    interrupted (the worker instance that ran it stopped)
 *   instance         the worker instance id that wrote it
 *   updated_at       ISO time of the write
 */
export const EMPTY_STATUS = Object.freeze({
  paired: false,
  token_rejected: false,
  daemon_reachable: null,
  last_error: null,
  dropped_batches: 0,
  last_dropped_at: null,
  last_command: null,
  instance: null,
  updated_at: null,
});

/**
 * COMMAND_WRITE_MS is how long a change of last_command alone waits to be
 * stored: a command's statuses (running, then complete a few ms later)
 * cost one write instead of two, off the command's path (each write cost
 * the worker's thread about 0.25 ms while the command ran: browserbench
 * -worker-profile, issue 33). The popup shows them that much later. Any
 * other change is stored at once, with what waits.
 */
export const COMMAND_WRITE_MS = 250;

/**
 * StatusStore keeps the worker's copy of "status" and writes it to storage
 * when a field changes (a command's status, COMMAND_WRITE_MS later). Writes
 * are serialised; update may be called concurrently and without awaiting;
 * each call's promise settles once its change is stored.
 */
export class StatusStore {
  constructor(storage, instance, { commandWriteMs = COMMAND_WRITE_MS } = {}) {
    this.storage = storage;
    this.instance = instance;
    this.commandWriteMs = commandWriteMs;
    this.dirty = false; // current has changes not stored yet
    this.due = null; // the later write of a command's status, once set
    this.current = { ...EMPTY_STATUS, instance };
    this.writing = storage.get(KEYS.status).then(
      (got) => {
        // Keep what an earlier worker instance knew. Its unfinished last
        // command was failed by the daemon (extension_disconnected) when it
        // stopped; say so rather than show it running forever.
        const prev = { ...EMPTY_STATUS, ...(got?.[KEYS.status] ?? {}) };
        const last = prev.last_command;
        if (last && last.instance !== instance && (last.status === 'running' || last.status === 'pending')) {
          prev.last_command = { ...last, status: 'interrupted' };
        }
        this.current = { ...prev, instance };
      },
      () => {},
    );
  }

  /** update merges patch into the status and stores it if anything changed. */
  update(patch) {
    return this.#enqueue(() => patch);
  }

  /**
   * dropped counts an answer that was not signed by the paired daemon and
   * records message (what happened, what to do) as the last error.
   */
  dropped(message) {
    return this.#enqueue((cur) => ({
      dropped_batches: (cur.dropped_batches || 0) + 1,
      last_dropped_at: new Date().toISOString(),
      last_error: message,
    }));
  }

  /** commandReceived records a newly delivered command as the last command. */
  commandReceived(action, correlationId) {
    const now = new Date().toISOString();
    return this.#enqueue(() => ({
      last_command: {
        action, correlation_id: correlationId, status: 'running', received_at: now, updated_at: now, instance: this.instance,
      },
    }), true);
  }

  /**
   * commandStatus records a status of a command; it is ignored unless the
   * command is still the last one received.
   */
  commandStatus(correlationId, status) {
    return this.#enqueue((cur) => {
      const last = cur.last_command;
      if (!last || last.correlation_id !== correlationId) return null;
      return { last_command: { ...last, status, updated_at: new Date().toISOString() } };
    }, true);
  }

  // enqueue runs makePatch(current) after earlier writes and stores the
  // result: at once, or with later (a command's status) COMMAND_WRITE_MS
  // later. The promise settles once it is stored.
  #enqueue(makePatch, later = false) {
    let stored;
    this.writing = this.writing.then(() => {
      const patch = makePatch(this.current);
      if (!patch) return;
      const next = { ...this.current, ...patch };
      const changed = Object.keys(patch).some((k) => JSON.stringify(next[k]) !== JSON.stringify(this.current[k]));
      if (!changed) return;
      next.updated_at = new Date().toISOString();
      this.current = next;
      this.dirty = true;
      if (later) stored = this.#storeLater();
      else return this.#store();
    });
    return this.writing.then(() => stored);
  }

  // store writes current unless it is stored already.
  #store() {
    if (!this.dirty) return undefined;
    this.dirty = false;
    return this.storage.set({ [KEYS.status]: this.current }).catch((err) => console.warn('gasoline: storing status:', err));
  }

  // storeLater stores current commandWriteMs from the first change that
  // waits (a write meanwhile takes it along: then nothing is left to store).
  #storeLater() {
    this.due ??= new Promise((resolve) => setTimeout(resolve, this.commandWriteMs)).then(() => {
      this.due = null;
      this.writing = this.writing.then(() => this.#store());
      return this.writing;
    });
    return this.due;
  }
}
