// DaemonClient against a real HTTP server on 127.0.0.1 that checks and makes
// signatures and opens sealed bodies with node:crypto, independently of
// auth.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createDecipheriv, createHash, createHmac, hkdfSync, pbkdf2Sync, timingSafeEqual } from 'node:crypto';
import { DaemonClient, DaemonError, NetworkError, SignatureError, normaliseCode, MAX_BODY_BYTES } from '../daemon.js';
import { CONTRACT_VERSION } from '../contract.js';

const TOKEN = 'good-token';
const KEY = createHash('sha256').update(TOKEN).digest();
const CODE = 'ABCD-2345';
const EXT_ID = 'ipimnlogmeffgddjpdmodnligphcpfag';

const hmac = (key, msg) => createHmac('sha256', key).update(msg).digest('hex');

const SEAL_KEY = Buffer.from(hkdfSync('sha256', KEY, Buffer.alloc(0), 'gasoline-body-v1', 32));

// checkSigned returns {nonce, plain} when req carries a valid signature by
// KEY over wire (a Buffer) and the hash it claims, with plain the opened
// body; else null.
function checkSigned(req, wire) {
  const m = /^Gasoline-HMAC ts=(\d+), nonce=([0-9a-f]{32}), sig=([0-9a-f]{64})$/.exec(req.headers.authorization ?? '');
  if (!m) return null;
  const [, ts, nonce, sig] = m;
  const bodyHash = createHash('sha256').update(wire).digest('hex');
  if (wire.length && req.headers['x-gasoline-body-sha256'] !== bodyHash) return null;
  const instance = req.headers['x-gasoline-instance'] ?? '';
  const msg = ['gasoline-request-v1', req.method, req.headers.host, req.url, instance, ts, nonce, bodyHash].join('\n');
  const want = Buffer.from(hmac(KEY, msg), 'hex');
  if (!timingSafeEqual(want, Buffer.from(sig, 'hex'))) return null;
  if (req.headers['content-type'] !== 'application/vnd.gasoline.sealed-v1') return { nonce, plain: wire.toString() };
  const d = createDecipheriv('aes-256-gcm', SEAL_KEY, wire.subarray(0, 12));
  d.setAAD(Buffer.from(['gasoline-body-v1', req.method, req.headers.host, req.url, instance, ts, nonce].join('\n')));
  d.setAuthTag(wire.subarray(wire.length - 16));
  try {
    return { nonce, plain: Buffer.concat([d.update(wire.subarray(12, wire.length - 16)), d.final()]).toString() };
  } catch {
    return null;
  }
}

let server;
let port;
let answerMode = 'signed'; // how /pending-queries answers: signed | unsigned | bad | other-nonce
let pairMode = 'daemon'; // how /pair answers: daemon | impostor
let proofMode = 'signed'; // how /capture/config answers: signed | unsigned
const seen = [];

before(async () => {
  server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const wire = Buffer.concat(chunks);
      let body = wire.toString();
      const entry = { method: req.method, url: req.url, headers: req.headers, body, wire };
      seen.push(entry);
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
      const signed = checkSigned(req, wire);
      if (!signed) return send(401, { error: { code: 'unauthorized', message: 'bad signature', hint: 'pair again' } });
      const { nonce } = signed;
      entry.body = body = signed.plain;
      if (req.url === '/capture/config') return send(200, { version: 1 }, proofMode === 'signed' ? nonce : undefined);
      if (req.url === '/events') return send(200, { accepted: JSON.parse(body).events.length }, nonce);
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
  assert.equal(req.url, `/pending-queries?wait_ms=1500&contract=${CONTRACT_VERSION}&browser=chrome`,
    'the contract version tells the daemon which extension polls, and the browser which browser it runs in');
  assert.match(req.headers.authorization, /^Gasoline-HMAC /);
  assert.equal(req.headers['x-gasoline-instance'], 'i2');
  assert.ok(!JSON.stringify(req).includes(TOKEN), 'the token is not in the request');

  await new DaemonClient({ port, token: TOKEN, instance: 'i2' }).pendingQueries({ waitMs: 1500, frames: 0 });
  assert.equal(seen.at(-1).url, `/pending-queries?wait_ms=1500&frames=0&contract=${CONTRACT_VERSION}&browser=chrome`, 'frames is signed with the URI');

  const held = [{ tab_id: 7, origin: 'https://shop.example', events: 2, dropped: 0 }];
  await new DaemonClient({ port, token: TOKEN, instance: 'i2' }).pendingQueries({ waitMs: 1500, frames: 0, framesAt: 9, held });
  assert.equal(seen.at(-1).url, `/pending-queries?wait_ms=1500&frames=0&frames_at=9&held=${encodeURIComponent(JSON.stringify(held))}&contract=${CONTRACT_VERSION}&browser=chrome`,
    'what is held rides, signed, with the URI');
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

test('bodies are sealed: what travels holds none of the plaintext', async () => {
  answerMode = 'signed';
  const secret = 'the user typed hunter2 at https://bank.example/login';
  const r = await new DaemonClient({ port, token: TOKEN, instance: 'i4' }).postEvents({ dropped: {}, events: [{ kind: 'log', text: secret }] });
  assert.deepEqual(r, { accepted: 1 });
  const req = seen.at(-1);
  assert.equal(req.headers['content-type'], 'application/vnd.gasoline.sealed-v1');
  assert.ok(!req.wire.toString('latin1').includes('hunter2') && !req.wire.toString('latin1').includes('bank.example'));
  assert.equal(JSON.parse(req.body).events[0].text, secret, 'the daemon opens it');
});

test('after an unsigned answer no body is sent until a signed answer proves the daemon', async () => {
  const client = new DaemonClient({ port, token: TOKEN });
  answerMode = 'unsigned';
  proofMode = 'unsigned';
  assert.ok((await client.pendingQueries().catch((e) => e)) instanceof SignatureError);
  const before = seen.length;
  for (let i = 0; i < 3; i++) {
    const err = await client.postEvents({ dropped: {}, events: [{ kind: 'log', text: 'x' }] }).catch((e) => e);
    assert.ok(err instanceof SignatureError, String(err));
    assert.match(err.message, /not sending POST \/events/);
  }
  assert.deepEqual(seen.slice(before).map((r) => `${r.method} ${r.url} ${r.wire.length}`), Array(3).fill('GET /capture/config 0'),
    'only bodiless proof requests reached the port');
  proofMode = 'signed';
  answerMode = 'signed';
  assert.deepEqual(await client.postEvents({ dropped: {}, events: [{ kind: 'log', text: 'x' }] }), { accepted: 1 });
  assert.deepEqual(seen.slice(-2).map((r) => `${r.method} ${r.url}`), ['GET /capture/config', 'POST /events']);
  await client.postEvents({ dropped: {}, events: [] });
  assert.equal(seen.at(-1).url, '/events', 'once proved, bodies go straight out');
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
