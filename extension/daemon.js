// HTTP client of the gasoline daemon's extension endpoints (docs/http-api.md).
// Used by the service worker and the popup; it has no chrome.* dependency.
// Requests are signed, their bodies sealed, and answers checked as auth.js
// describes: the token itself is never sent, nothing readable is sent, and an
// answer the paired daemon did not sign is an error, never data. After such
// an answer no body goes to that port until a signed answer proved the
// daemon again.

import { pairRequest, requestKeys, sealedRequest, SIGNATURE_HEADER, verifyPairAnswer, verifyResponse } from './auth.js';
import { CONTRACT_VERSION, DAEMON_STARTED_HEADER, MAX_RESULT_BODY_BYTES } from './contract.js';
import { browser } from './platform.js';

export const DEFAULT_PORT = 7890;

/** POLL_WAIT_MS is the wait_ms of each long-poll; the daemon holds at most 25 s. */
export const POLL_WAIT_MS = 20000;

/**
 * MAX_BODY_BYTES is the daemon's cap on a posted result body (413 above it;
 * contract.js, from Go). It is above the daemon's 10 MB per-output cap on
 * purpose: a larger output reaches the daemon, which keeps its first 10 MB
 * and says so in the handle.
 */
export const MAX_BODY_BYTES = MAX_RESULT_BODY_BYTES;

const REQUEST_TIMEOUT_MS = 10000;
const POLL_GRACE_MS = 10000; // allowance above wait_ms before a poll is given up

/**
 * DaemonError is an HTTP error answer of the daemon, decoded from its
 * {"error":{"code","message","hint"}} body. status is the HTTP status; code
 * is stable and is what callers branch on.
 */
export class DaemonError extends Error {
  constructor(status, code, message, hint = '') {
    super(message);
    this.name = 'DaemonError';
    this.status = status;
    this.code = code;
    this.hint = hint;
  }
}

/** NetworkError means the daemon could not be reached or did not answer in time. */
export class NetworkError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = 'NetworkError';
  }
}

/**
 * SignatureError means an answer did not come from the daemon the extension
 * paired with: a /pair answer without a valid proof of the code, or a
 * successful answer to a signed request without a valid signature. Nothing in
 * such an answer is used.
 */
export class SignatureError extends Error {
  constructor(message) {
    super(message);
    this.name = 'SignatureError';
  }
}

/** validPort reports whether p is a TCP port number (an integer in 1..65535). */
export function validPort(p) {
  return Number.isInteger(p) && p >= 1 && p <= 65535;
}

/**
 * normaliseCode trims and uppercases a pairing code and restores the dash
 * in "abcd 2345" or "abcd2345"; the daemon compares codes case-insensitively.
 */
export function normaliseCode(raw) {
  const s = String(raw ?? '').trim().toUpperCase().replace(/\s+/g, '-');
  return /^[A-Z0-9]{8}$/.test(s) ? `${s.slice(0, 4)}-${s.slice(4)}` : s;
}

// keyCache holds the keys of the last token used: one worker has one token.
let keyCache = { token: '', keys: null };

function keysOf(token) {
  if (keyCache.token !== token || !keyCache.keys) keyCache = { token, keys: requestKeys(token) };
  return keyCache.keys;
}

// unproven holds the hosts whose last answer to a signed request was not
// signed by the paired daemon (a program that holds the port). A request
// with a body goes to such a host only after a bodiless signed request
// (PROOF_PATH) got a signed answer. Bounded: one entry per port used.
const unproven = new Set();
const PROOF_PATH = '/capture/config';
const PROOF_TIMEOUT_MS = 3000;

/** unprovenHosts lists the hosts no body is sent to until they prove themselves (for tests and status). */
export function unprovenHosts() {
  return [...unproven];
}

/**
 * DaemonClient talks to one daemon at http://127.0.0.1:<port>. It is
 * immutable and cheap: make a new one when the port or token changes.
 * Every method throws DaemonError for an error answer, NetworkError when
 * the daemon is unreachable and SignatureError for an answer the paired
 * daemon did not sign; when the caller's signal aborts, it rejects with the
 * signal's reason instead.
 */
export class DaemonClient {
  constructor({ port = DEFAULT_PORT, token = '', instance = '', fetch = globalThis.fetch.bind(globalThis) } = {}) {
    this.host = `127.0.0.1:${port}`;
    this.base = `http://${this.host}`;
    this.token = token;
    this.instance = instance;
    this.fetch = fetch;
  }

  /** health returns the daemon's GET /health body; it needs no token. */
  health({ signal, timeoutMs = 3000 } = {}) {
    return this.#request('GET', '/health', { signal, timeoutMs, auth: false });
  }

  /**
   * pair exchanges a one-time pairing code (normalised) for an extension
   * token: resolves to {token, extension_id} once the answer proved that the
   * daemon knows the code. The code is not sent, only a proof of it. A wrong
   * or expired code is a DaemonError with code "invalid_code"; too many tries
   * is status 429; an answer without a valid proof is a SignatureError.
   */
  async pair(code, { signal } = {}) {
    const req = await pairRequest(code);
    const answer = await this.#request('POST', '/pair', {
      body: { nonce: req.nonce, proof: req.proof, instance: this.instance }, signal, auth: false,
    });
    if (!(await verifyPairAnswer(req.key, req.nonce, answer))) {
      throw new SignatureError(`the program answering on ${this.host} did not prove that it knows the pairing code, ` +
        'so it is not the gasoline daemon that printed it (or it is an older gasoline); nothing was stored');
    }
    return { token: answer.token, extension_id: answer.extension_id };
  }

  /**
   * unpair asks the daemon to revoke this client's token (POST /unpair,
   * signed with it); it resolves once the daemon confirmed it.
   */
  unpair({ signal, timeoutMs = 3000 } = {}) {
    return this.#request('POST', '/unpair', { body: {}, signal, timeoutMs });
  }

  /**
   * pendingQueries long-polls GET /pending-queries: it resolves with the
   * queued commands as soon as there are any, or with [] after about waitMs.
   * frames (when a number) tells the daemon since when every frame is
   * captured (ms since the epoch; 0: top documents only), as of framesAt
   * (when frames() was read, ms: the daemon keeps the latest reading, so a
   * poll that carried an older one and arrives later changes nothing); onAgent(at) is
   * called with the answer's agent_at (an agent's last tool call, ms) when
   * it has one; onStarted(at) with when the daemon that answered started
   * (its X-Gasoline-Daemon-Started, on every answer; a new value is a new
   * daemon). held (when an array: origins/held.js counts) is what the
   * extension holds of origins the user has not allowed, as of framesAt.
   * Each poll carries CONTRACT_VERSION (contract), by which the
   * daemon tells an extension Chrome kept running after gasoline changed.
   */
  async pendingQueries({ waitMs = POLL_WAIT_MS, signal, frames, framesAt, held, onAgent, onAllow, onStarted } = {}) {
    let extra = Number.isInteger(frames) && frames >= 0 ? `&frames=${frames}` : '';
    if (extra && Number.isInteger(framesAt) && framesAt > 0) extra += `&frames_at=${framesAt}`;
    if (Array.isArray(held)) extra += `&held=${encodeURIComponent(JSON.stringify(held))}`;
    extra += `&contract=${CONTRACT_VERSION}&browser=${browser}`;
    const body = await this.#request('GET', `/pending-queries?wait_ms=${waitMs}${extra}`, {
      signal,
      timeoutMs: waitMs + POLL_GRACE_MS,
    });
    if (this.started) onStarted?.(this.started);
    if (Number.isInteger(body?.agent_at) && body.agent_at > 0) onAgent?.(body.agent_at);
    // Origins the user allowed in a terminal ('gasoline allow'), in an answer the daemon signed.
    if (Array.isArray(body?.allow_origins) && body.allow_origins.length) onAllow?.(body.allow_origins.filter((o) => typeof o === 'string'));
    return Array.isArray(body?.queries) ? body.queries : [];
  }

  /**
   * queryResult posts one status of a command:
   * {correlation_id, status: "pending"|"complete"|"error"|"timeout", result?, error?}.
   * A body over MAX_BODY_BYTES is refused locally as a DaemonError with
   * status 413, the same as the daemon would.
   */
  queryResult(result, { signal } = {}) {
    return this.#request('POST', '/query-result', { body: result, signal });
  }

  /**
   * postEvents posts one capture batch, {batch_id, dropped, events}, to POST
   * /events (shapes: internal/apitype/events.go) and resolves to {accepted, rejected,
   * dropped_by_daemon, config_version, duplicate?}; duplicate: true means
   * the daemon had stored a batch with this batch_id already and stored
   * nothing now. 413 means the batch is over the daemon's 1 MB.
   */
  postEvents(batch, { signal } = {}) {
    return this.#request('POST', '/events', { body: batch, signal });
  }

  /**
   * drawModeComplete posts a draw-mode session's annotations, or its
   * cancellation, to POST /draw-mode/complete.
   */
  drawModeComplete(body, { signal } = {}) {
    return this.#request('POST', '/draw-mode/complete', { body, signal });
  }

  /** captureConfig reads GET /capture/config: {version, redact_headers, redact_names?, body_cap, kinds}. */
  captureConfig({ signal } = {}) {
    return this.#request('GET', '/capture/config', { signal });
  }

  // prove makes sure the port's last signed answer came from the paired
  // daemon before a body goes there: after an unsigned answer it asks for
  // a signed one (PROOF_PATH, no body) and throws if it does not come.
  async #prove(method, path, signal) {
    if (!unproven.has(this.host)) return;
    try {
      await this.#request('GET', PROOF_PATH, { signal, timeoutMs: PROOF_TIMEOUT_MS });
    } catch (err) {
      if (!(err instanceof SignatureError)) throw err;
      throw new SignatureError(`not sending ${method} ${path}: the program on ${this.host} did not prove it is the daemon ` +
        'this extension paired with, so the data stays in the extension');
    }
    if (unproven.has(this.host)) {
      throw new SignatureError(`not sending ${method} ${path}: ${this.host} has not proved it is the paired daemon yet`);
    }
  }

  async #request(method, path, { body, signal, timeoutMs = REQUEST_TIMEOUT_MS, auth = true }) {
    const headers = { Accept: 'application/json' };
    if (this.instance) headers['X-Gasoline-Instance'] = this.instance;
    let payload;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
      const bytes = new TextEncoder().encode(payload).length;
      if (bytes > MAX_BODY_BYTES) {
        throw new DaemonError(413, 'too_large',
          `body is ${(bytes / 1048576).toFixed(1)} MB, over the daemon's ${MAX_BODY_BYTES / 1048576} MB limit`);
      }
    }
    let keys;
    let nonce;
    if (auth) {
      if (payload !== undefined) await this.#prove(method, path, signal);
      keys = await keysOf(this.token);
      const sealed = await sealedRequest(keys, { method, host: this.host, path, instance: this.instance, text: payload });
      Object.assign(headers, sealed.headers);
      payload = sealed.body;
      nonce = sealed.nonce;
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res;
    try {
      res = await this.fetch(this.base + path, {
        method,
        headers,
        body: payload,
        signal: combined,
        cache: 'no-store',
        credentials: 'omit',
        redirect: 'error',
      });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        throw new NetworkError(`daemon at ${this.base} did not answer ${method} ${path} within ${timeoutMs} ms`);
      }
      throw new NetworkError(`cannot reach the daemon at ${this.base}: ${err.message}`, { cause: err });
    }
    let text;
    try {
      text = await res.text();
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw new NetworkError(`reading the daemon's answer to ${method} ${path}: ${err.message}`, { cause: err });
    }
    this.started = res.headers.get(DAEMON_STARTED_HEADER) || '';
    if (auth && res.ok) {
      if (!(await verifyResponse(keys.sign, nonce, res.status, text, res.headers.get(SIGNATURE_HEADER)))) {
        unproven.add(this.host);
        throw new SignatureError(`the answer to ${method} ${path} from ${this.host} is not signed by the daemon this extension paired with`);
      }
      unproven.delete(this.host);
    }
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        if (res.ok) throw new DaemonError(res.status, 'bad_response', `daemon answered ${method} ${path} with non-JSON`);
      }
    }
    if (!res.ok) {
      const e = data?.error;
      if (e && typeof e.message === 'string') {
        throw new DaemonError(res.status, e.code || `http_${res.status}`, e.message, e.hint || '');
      }
      throw new DaemonError(res.status, `http_${res.status}`, `daemon answered ${method} ${path} with HTTP ${res.status}`);
    }
    return data;
  }
}
