// DaemonClient against a real HTTP server on 127.0.0.1 that checks and makes
// signatures with node:crypto, independently of auth.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHash, createHmac, pbkdf2Sync, timingSafeEqual } from 'node:crypto';
import { DaemonClient, DaemonError, NetworkError, SignatureError, normaliseCode, MAX_BODY_BYTES } from '../daemon.js';

const TOKEN = 'good-token';
const KEY = createHash('sha256').update(TOKEN).digest();
const CODE = 'ABCD-2345';
const EXT_ID = 'ipimnlogmeffgddjpdmodnligphcpfag';

const hmac = (key, msg) => createHmac('sha256', key).update(msg).digest('hex');

// checkSigned returns the request nonce when req carries a valid signature
// by KEY, else null.
function checkSigned(req, body) {
  const m = /^Gasoline-HMAC ts=(\d+), nonce=([0-9a-f]{32}), sig=([0-9a-f]{64})$/.exec(req.headers.authorization ?? '');
  if (!m) return null;
  const [, ts, nonce, sig] = m;
  const bodyHash = createHash('sha256').update(body).digest('hex');
  const msg = ['gasoline-request-v1', req.method, req.headers.host, req.url, req.headers['x-gasoline-instance'] ?? '', ts, nonce, bodyHash].join('\n');
  const want = Buffer.from(hmac(KEY, msg), 'hex');
  return timingSafeEqual(want, Buffer.from(sig, 'hex')) ? nonce : null;
}

let server;
let port;
let answerMode = 'signed'; // how /pending-queries answers: signed | unsigned | bad | other-nonce
let pairMode = 'daemon'; // how /pair answers: daemon | impostor
const seen = [];

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      const send = (status, obj, nonce) => {
        const text = JSON.stringify(obj);
        const headers = { 'Content-Type': 'application/json' };
        if (nonce) headers['X-Gasoline-Signature'] = hmac(KEY, `gasoline-response-v1\n${nonce}\n${status}\n${text}`);
        res.writeHead(status, headers);
        res.end(text);
      };
      if (req.url === '/health' && req.headers['x-gasoline-instance'] === 'slow') return setTimeout(() => send(200, {}), 5000);
      if (req.url === '/health') return send(200, { service: 'gasoline', version: 'test' });
      if (req.url.startsWith('/nowhere')) {
        res.writeHead(500);
        return res.end('oops');
      }
      if (req.url === '/pair') {
        const { nonce, proof } = JSON.parse(body);
        const k = pbkdf2Sync(CODE, `gasoline-pair-v1 ${nonce}`, 20000, 32, 'sha256');
        if (proof !== hmac(k, `gasoline-pair-v1 extension\n${nonce}`)) {
          return send(401, { error: { code: 'invalid_code', message: 'invalid or expired pairing code', hint: 'run gasoline pair' } });
        }
        const token = 'issued-token';
        const answerKey = pairMode === 'daemon' ? k : Buffer.alloc(32);
        return send(200, { token, extension_id: EXT_ID, proof: hmac(answerKey, `gasoline-pair-v1 daemon\n${nonce}\n${token}\n${EXT_ID}`) });
      }
      const nonce = checkSigned(req, body);
      if (!nonce) return send(401, { error: { code: 'unauthorized', message: 'bad signature', hint: 'pair again' } });
      if (req.url.startsWith('/pending-queries')) {
        const batch = { queries: [{ correlation_id: 'exec_1', action: 'execute_js', params: {} }] };
        switch (answerMode) {
          case 'unsigned': return send(200, batch);
          case 'bad': return send(200, batch, 'f'.repeat(32));
          default: return send(200, batch, nonce);
        }
      }
      if (req.url === '/unpair') return send(200, { revoked: true }, nonce);
      if (req.url === '/query-result') return send(409, { error: { code: 'command_final', message: 'already final' } });
      send(404, { error: { code: 'not_found', message: 'no such endpoint' } });
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

test('pendingQueries signs the request, never sends the token, and checks the answer', async () => {
  answerMode = 'signed';
  const qs = await new DaemonClient({ port, token: TOKEN, instance: 'i2' }).pendingQueries({ waitMs: 1500 });
  assert.equal(qs[0].correlation_id, 'exec_1');
  const req = seen.at(-1);
  assert.equal(req.url, '/pending-queries?wait_ms=1500');
  assert.match(req.headers.authorization, /^Gasoline-HMAC /);
  assert.equal(req.headers['x-gasoline-instance'], 'i2');
  assert.ok(!JSON.stringify(req).includes(TOKEN), 'the token is not in the request');
});

test('a batch the paired daemon did not sign is a SignatureError', async (t) => {
  for (const mode of ['unsigned', 'bad']) {
    await t.test(mode, async () => {
      answerMode = mode;
      const err = await new DaemonClient({ port, token: TOKEN }).pendingQueries().catch((e) => e);
      assert.ok(err instanceof SignatureError, String(err));
      assert.match(err.message, /not signed by the daemon this extension paired with/);
    });
  }
  answerMode = 'signed';
  await t.test('signed with another token', async () => {
    const err = await new DaemonClient({ port, token: 'other' }).pendingQueries().catch((e) => e);
    assert.ok(err instanceof DaemonError && err.status === 401, String(err)); // the daemon refuses its signature
  });
});

test('pair proves the code without sending it and checks the proof of the answer', async () => {
  pairMode = 'daemon';
  const client = new DaemonClient({ port, instance: 'i3' });
  const res = await client.pair(CODE);
  assert.deepEqual(res, { token: 'issued-token', extension_id: EXT_ID });
  const req = seen.at(-1);
  assert.ok(!req.body.includes(CODE) && !req.body.includes('ABCD2345'), `the code is in the request: ${req.body}`);
  assert.deepEqual(Object.keys(JSON.parse(req.body)).sort(), ['instance', 'nonce', 'proof']);

  const wrong = await client.pair('ZZZZ-2222').catch((e) => e);
  assert.ok(wrong instanceof DaemonError && wrong.code === 'invalid_code', String(wrong));

  pairMode = 'impostor';
  const err = await client.pair(CODE).catch((e) => e);
  assert.ok(err instanceof SignatureError, String(err));
  assert.match(err.message, /did not prove that it knows the pairing code/);
  pairMode = 'daemon';
});

test('unpair is a signed request whose answer must be signed', async () => {
  const r = await new DaemonClient({ port, token: TOKEN }).unpair();
  assert.deepEqual(r, { revoked: true });
  assert.equal(seen.at(-1).url, '/unpair');
});

test('error bodies become DaemonError with code and hint', async () => {
  const err = await new DaemonClient({ port, token: 'bad' }).pendingQueries().catch((e) => e);
  assert.ok(err instanceof DaemonError);
  assert.equal(err.status, 401);
  assert.equal(err.code, 'unauthorized');
  assert.equal(err.hint, 'pair again');
  const final = await new DaemonClient({ port, token: TOKEN }).queryResult({ correlation_id: 'x', status: 'complete' }).catch((e) => e);
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
  const err = await new DaemonClient({ port, token: TOKEN }).queryResult(big).catch((e) => e);
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
