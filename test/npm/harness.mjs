// Test harness shared by the npm tests: the project's binaries, a daemon on
// a free port with its own state dir, and the Inspector CLI as a
// subprocess. Every server binds 127.0.0.1; every process started here is
// stopped by the test that started it.

import { execFile, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { request as httpRequest, createServer as createHTTPServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository root (this file is test/npm/harness.mjs). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const here = dirname(fileURLToPath(import.meta.url));

/**
 * @typedef {object} Bins
 * @property {string} gasoline      the CLI and daemon
 * @property {string} gasolineMcp   the stdio bridge
 */

let binsPromise;

/**
 * The binaries under test: those in $GASOLINE_TEST_BIN_DIR (make passes
 * bin/), else built once into a temporary directory.
 * @returns {Promise<Bins>}
 */
export function bins() {
  binsPromise ??= (async () => {
    let dir = process.env.GASOLINE_TEST_BIN_DIR;
    if (!dir) {
      dir = await mkdtemp(join(tmpdir(), 'gasoline-npm-bin-'));
      process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
      for (const [out, pkg] of [['gasoline', './cmd/daemon'], ['gasoline-mcp', './cmd/bridge']]) {
        await run('go', ['build', '-o', join(dir, out), pkg], { cwd: repoRoot });
      }
    }
    return { gasoline: join(dir, 'gasoline'), gasolineMcp: join(dir, 'gasoline-mcp') };
  })();
  return binsPromise;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.on('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

/** The environment without GASOLINE_* settings: only what a test passes counts. */
export function cleanEnv(extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('GASOLINE_')) env[k] = v;
  }
  return { ...env, ...extra };
}

/**
 * A daemon started with 'gasoline daemon start' on a free port, with a
 * fresh state dir. Call stop() when done (t.after).
 */
export class Daemon {
  /** @param {Bins} b @param {number} port @param {string} dir */
  constructor(b, port, dir) {
    this.bins = b;
    this.port = port;
    this.dir = dir;
    this.stateDir = join(dir, 'state');
    this.url = `http://127.0.0.1:${port}`;
    /** Environment that points a bridge at this daemon. */
    this.env = { GASOLINE_PORT: String(port), GASOLINE_STATE_DIR: this.stateDir };
  }

  /** @param {...string} flags daemon flags, e.g. '--dispatch-timeout', '2s' */
  static async start(...flags) {
    const b = await bins();
    const port = await freePort();
    const dir = await mkdtemp(join(tmpdir(), 'gasoline-npm-'));
    const d = new Daemon(b, port, dir);
    await d.cli('daemon', 'start', ...flags);
    d.token = (await readFile(join(d.stateDir, 'token'), 'utf8')).trim();
    return d;
  }

  /** Runs 'gasoline args... --port P --state-dir D' and returns stdout. */
  async cli(...args) {
    const { stdout } = await run(this.bins.gasoline, [...args, '--port', String(this.port), '--state-dir', this.stateDir],
      { env: cleanEnv(), timeout: 30_000 });
    return stdout;
  }

  async stop() {
    try {
      await this.cli('daemon', 'stop');
    } finally {
      await rm(this.dir, { recursive: true, force: true });
    }
  }
}

/**
 * Runs the MCP Inspector's CLI mode with args under the Node that runs the
 * tests (the Inspector needs Node 22; make runs the tests with the Node 22
 * from this package). Its catalog file stays in a temporary directory.
 * @returns {Promise<{code: number, stdout: string, stderr: string}>}
 */
export async function inspector(args, { timeout = 60_000 } = {}) {
  const bin = join(here, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
  const dir = await mkdtemp(join(tmpdir(), 'gasoline-inspector-'));
  try {
    return await new Promise((ok, fail) => {
      const child = spawn(process.execPath, [bin, '--cli', ...args], {
        env: cleanEnv({ MCP_CATALOG_PATH: join(dir, 'catalog.json'), NO_COLOR: '1' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (b) => { stdout += b; });
      child.stderr.on('data', (b) => { stderr += b; });
      const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
      child.on('error', fail);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        ok({ code: code ?? (signal ? 128 : -1), stdout, stderr });
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A reverse proxy on a free 127.0.0.1 port that adds the daemon's bearer
 * token to every request, for clients that cannot send headers (the
 * conformance suite). A Host or Origin naming the proxy is rewritten to
 * the daemon's; any other (a DNS-rebinding test's) passes unchanged, so the
 * daemon's own checks still judge it. Streams (SSE) pass through as they
 * come. Call close() when done.
 * @param {Daemon} daemon
 * @returns {Promise<{url: string, close: () => Promise<void>}>}
 */
export async function authProxy(daemon) {
  const port = await freePort();
  const self = `127.0.0.1:${port}`;
  const target = `127.0.0.1:${daemon.port}`;
  const srv = createHTTPServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${daemon.token}` };
    if (headers.host === self) headers.host = target;
    if (headers.origin === `http://${self}`) headers.origin = `http://${target}`;
    const up = httpRequest({ host: '127.0.0.1', port: daemon.port, method: req.method, path: req.url, headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`auth proxy: ${e.message}`);
    });
    req.pipe(up);
  });
  await new Promise((ok, fail) => { srv.on('error', fail); srv.listen(port, '127.0.0.1', ok); });
  return {
    url: `http://${self}`,
    close: () => new Promise((ok) => { srv.closeAllConnections(); srv.close(() => ok()); }),
  };
}

/**
 * Runs one server scenario of the official conformance suite against url
 * and returns its checks (results/.../checks.json), each {id, status,
 * errorMessage?, details?}. suite is the package that runs it: the pinned
 * newest by default, or an older release installed under an alias
 * (conformance-0.1.16).
 */
export async function conformance(url, scenario, { timeout = 120_000, suite = '@modelcontextprotocol/conformance' } = {}) {
  const bin = join(here, 'node_modules', ...suite.split('/'), 'dist', 'index.js');
  const dir = await mkdtemp(join(tmpdir(), 'gasoline-conformance-'));
  try {
    const r = await new Promise((ok, fail) => {
      execFile(process.execPath, [bin, 'server', '--url', url, '--scenario', scenario, '--output-dir', dir],
        { env: cleanEnv({ NO_COLOR: '1' }), timeout, maxBuffer: 16 << 20 },
        (err, stdout, stderr) => (err && err.code === undefined ? fail(err) : ok({ stdout, stderr })));
    });
    const found = (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('checks.json'));
    if (found.length !== 1) {
      throw new Error(`conformance ${scenario}: ${found.length} checks.json files\n${r.stdout}\n${r.stderr}`);
    }
    return { checks: JSON.parse(await readFile(join(dir, found[0]), 'utf8')), output: r.stdout + r.stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One HTTP request to the daemon; resolves {status, body} (body parsed when JSON). */
function call(daemon, method, path, { token, headers = {}, body } = {}) {
  return new Promise((ok, fail) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest({
      host: '127.0.0.1', port: daemon.port, method, path,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(data ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        let parsed = text;
        try { parsed = JSON.parse(text); } catch { /* not JSON */ }
        ok({ status: res.statusCode, body: parsed });
      });
    });
    req.on('error', fail);
    if (data) req.write(data);
    req.end();
  });
}

/**
 * A scripted browser extension speaking the extension's HTTP protocol with
 * the state-dir token, as curl may (the real extension signs its requests
 * with the token pairing gave it): it long-polls for commands, acknowledges
 * each (status pending) and answers it with answer(query) after delayMs.
 * stop() ends its loop.
 */
export class FakeExtension {
  constructor(daemon, answer, { delayMs = 0 } = {}) {
    this.daemon = daemon;
    this.answer = answer;
    this.delayMs = delayMs;
    this.headers = { 'x-gasoline-instance': 'npm-test' };
  }

  async start() {
    this.token = this.daemon.token;
    this.running = this.loop();
    return this;
  }

  async loop() {
    while (!this.stopped) {
      const r = await call(this.daemon, 'GET', '/pending-queries?wait_ms=1000', { token: this.token, headers: this.headers })
        .catch(() => ({ status: 0 }));
      if (r.status !== 200) continue;
      for (const q of r.body.queries ?? []) {
        // Acknowledge at once, as the real extension does, then answer.
        await call(this.daemon, 'POST', '/query-result', {
          token: this.token, headers: this.headers, body: { correlation_id: q.correlation_id, status: 'pending' },
        }).catch(() => {});
        setTimeout(() => {
          call(this.daemon, 'POST', '/query-result', { token: this.token, headers: this.headers, body: this.answer(q) }).catch(() => {});
        }, this.delayMs);
      }
    }
  }

  async stop() {
    this.stopped = true;
    await this.running;
  }
}
