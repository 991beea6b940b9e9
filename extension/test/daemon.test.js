// DaemonClient against a real HTTP server on 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { DaemonClient, DaemonError, NetworkError, normaliseCode, MAX_BODY_BYTES } from '../daemon.js';

let server;
let port;
const seen = [];

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      const send = (status, obj) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(obj));
      };
      if (req.url === '/health' && req.headers['x-gasoline-instance'] === 'slow') return setTimeout(() => send(200, {}), 5000);
      if (req.url === '/health') return send(200, { service: 'gasoline', version: 'test' });
      if (req.url.startsWith('/pending-queries')) {
        if (req.headers.authorization !== 'Bearer good') {
          return send(401, { error: { code: 'unauthorized', message: 'bad token', hint: 'pair again' } });
        }
        return send(200, { queries: [{ correlation_id: 'exec_1', action: 'execute_js', params: {} }] });
      }
      if (req.url === '/query-result') return send(409, { error: { code: 'command_final', message: 'already final' } });
      res.writeHead(500);
      res.end('oops');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  port = server.address().port;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

test('health needs no token', async () => {
  const h = await new DaemonClient({ port, instance: 'i1' }).health();
  assert.equal(h.service, 'gasoline');
  const req = seen.at(-1);
  assert.equal(req.headers.authorization, undefined);
  assert.equal(req.headers['x-gasoline-instance'], 'i1');
});

test('pendingQueries sends token, instance and wait_ms', async () => {
  const qs = await new DaemonClient({ port, token: 'good', instance: 'i2' }).pendingQueries({ waitMs: 1500 });
  assert.equal(qs[0].correlation_id, 'exec_1');
  const req = seen.at(-1);
  assert.equal(req.url, '/pending-queries?wait_ms=1500');
  assert.equal(req.headers.authorization, 'Bearer good');
  assert.equal(req.headers['x-gasoline-instance'], 'i2');
});

test('error bodies become DaemonError with code and hint', async () => {
  const err = await new DaemonClient({ port, token: 'bad' }).pendingQueries().catch((e) => e);
  assert.ok(err instanceof DaemonError);
  assert.equal(err.status, 401);
  assert.equal(err.code, 'unauthorized');
  assert.equal(err.hint, 'pair again');
  const final = await new DaemonClient({ port, token: 'good' }).queryResult({ correlation_id: 'x', status: 'complete' }).catch((e) => e);
  assert.equal(final.status, 409);
  assert.equal(final.code, 'command_final');
  assert.equal(JSON.parse(seen.at(-1).body).status, 'complete');
});

test('an error without the JSON shape still has a status', async () => {
  const client = new DaemonClient({ port });
  client.base += '/nowhere';
  const err = await client.health().catch((e) => e);
  assert.ok(err instanceof DaemonError);
  assert.equal(err.status, 500);
});

test('an unreachable daemon is a NetworkError', async () => {
  const closed = http.createServer();
  await new Promise((r) => closed.listen(0, '127.0.0.1', r));
  const deadPort = closed.address().port;
  await new Promise((r) => closed.close(r));
  const err = await new DaemonClient({ port: deadPort }).health().catch((e) => e);
  assert.ok(err instanceof NetworkError, String(err));
  assert.match(err.message, new RegExp(`127.0.0.1:${deadPort}`));
});

test('a caller abort rejects with its reason, a timeout with NetworkError', async () => {
  const slow = () => new DaemonClient({ port, instance: 'slow' });
  const ac = new AbortController();
  const p = slow().health({ signal: ac.signal });
  setTimeout(() => ac.abort(new Error('reconfigured')), 20);
  await assert.rejects(p, /reconfigured/);
  const err = await slow().health({ timeoutMs: 50 }).catch((e) => e);
  assert.ok(err instanceof NetworkError, String(err));
  assert.match(err.message, /did not answer GET \/health within 50 ms/);
});

test('a body over the daemon limit is refused locally with 413', async () => {
  const big = { correlation_id: 'x', status: 'complete', result: { value: 'x'.repeat(MAX_BODY_BYTES) } };
  const err = await new DaemonClient({ port, token: 'good' }).queryResult(big).catch((e) => e);
  assert.ok(err instanceof DaemonError);
  assert.equal(err.status, 413);
});

test('normaliseCode', () => {
  const cases = [
    ['abcd-2345', 'ABCD-2345'],
    ['  abcd2345 ', 'ABCD-2345'],
    ['abcd 2345', 'ABCD-2345'],
    ['', ''],
    ['weird', 'WEIRD'],
  ];
  for (const [in_, want] of cases) assert.equal(normaliseCode(in_), want);
});
