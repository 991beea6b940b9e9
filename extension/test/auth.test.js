// The extension's half of the authentication contract, checked against the
// vectors the Go side (internal/extauth/extauth_test.go) produces too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openBody, pairRequest, randomHex, requestKeys, SEAL_OVERHEAD, SEALED_TYPE, sealBody, sealedRequest, signingKey, signRequest, verifyPairAnswer, verifyResponse,
} from '../auth.js';

const vec = {
  code: 'ABCD-2345',
  pairNonce: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  token: 'f00d',
  extensionId: 'ipimnlogmeffgddjpdmodnligphcpfag',
  extProof: '12c3ef8b5da4fc0b7b39a7dfe3900895c4609d74d6ea3c0b251cc93bef520dc7',
  daemonProof: 'b4b246e392090aba3aed52e958e1d1dc45ac723fb41dbb5191c5872ab6e1262e',
  request: { method: 'POST', host: '127.0.0.1:7890', path: '/query-result', instance: 'i-1', body: '{"a":1}', ts: 1700000000000, nonce: '0123456789abcdef0123456789abcdef' },
  auth: 'Gasoline-HMAC ts=1700000000000, nonce=0123456789abcdef0123456789abcdef, sig=225190483942d94a406c7f39c5533f6f4384df68655aa962580ad776ab67bca1',
  answerBody: '{"queries":[]}',
  answerSig: 'e0c5a3944b07e7d9054c00025c4bcd671b165bc55eca2976fe7113409a644328',
};

test('pairing proofs match the Go vectors', async () => {
  const req = await pairRequest(vec.code, { nonce: vec.pairNonce });
  assert.equal(req.proof, vec.extProof);
  const answer = { token: vec.token, extension_id: vec.extensionId, proof: vec.daemonProof };
  assert.equal(await verifyPairAnswer(req.key, vec.pairNonce, answer), true);
});

test('an answer without a proof of the code is refused', async (t) => {
  const req = await pairRequest(vec.code, { nonce: vec.pairNonce });
  const other = await pairRequest('ABCD-2346', { nonce: vec.pairNonce });
  const good = { token: vec.token, extension_id: vec.extensionId, proof: vec.daemonProof };
  const cases = [
    ['no proof', { ...good, proof: undefined }],
    ['proof not hex', { ...good, proof: 'zz' + good.proof.slice(2) }],
    ['short proof', { ...good, proof: good.proof.slice(0, 62) }],
    ['another token under the proof', { ...good, token: 'beef' }],
    ['another extension id', { ...good, extension_id: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }],
    ['no token', { ...good, token: '' }],
    ['not an object', 'token'],
  ];
  for (const [name, answer] of cases) {
    await t.test(name, async () => assert.equal(await verifyPairAnswer(req.key, vec.pairNonce, answer), false));
  }
  await t.test('proof made with another code', async () => {
    assert.equal(await verifyPairAnswer(other.key, vec.pairNonce, good), false);
  });
  await t.test('proof for another nonce', async () => {
    const fresh = await pairRequest(vec.code);
    assert.equal(await verifyPairAnswer(fresh.key, fresh.nonce, good), false);
  });
});

test('the code itself is not in the pairing request', async () => {
  const req = await pairRequest(vec.code);
  assert.match(req.nonce, /^[0-9a-f]{64}$/);
  assert.match(req.proof, /^[0-9a-f]{64}$/);
  assert.ok(!JSON.stringify({ nonce: req.nonce, proof: req.proof }).includes(vec.code));
  const again = await pairRequest(vec.code);
  assert.notEqual(again.nonce, req.nonce, 'every attempt has a fresh nonce');
});

test('request signatures match the Go vectors', async () => {
  const key = await signingKey(vec.token);
  const signed = await signRequest(key, vec.request);
  assert.equal(signed.authorization, vec.auth);
  assert.equal(signed.nonce, vec.request.nonce);
  assert.equal(await verifyResponse(key, vec.request.nonce, 200, vec.answerBody, vec.answerSig), true);
});

test('answer signatures are bound to the request, status and body', async (t) => {
  const key = await signingKey(vec.token);
  const { nonce } = vec.request;
  const cases = [
    ['another request nonce', randomHex(16), 200, vec.answerBody, vec.answerSig],
    ['another status', nonce, 201, vec.answerBody, vec.answerSig],
    ['another body', nonce, 200, '{"queries":[{"correlation_id":"exec_x"}]}', vec.answerSig],
    ['no signature', nonce, 200, vec.answerBody, null],
    ['signature by another token', nonce, 200, vec.answerBody, vec.answerSig.replace(/^e0/, 'e1')],
  ];
  for (const [name, n, status, body, sig] of cases) {
    await t.test(name, async () => assert.equal(await verifyResponse(key, n, status, body, sig), false));
  }
  await t.test('another token', async () => {
    assert.equal(await verifyResponse(await signingKey('beef'), nonce, 200, vec.answerBody, vec.answerSig), false);
  });
});

test('fresh nonces and timestamps per request', async () => {
  const key = await signingKey(vec.token);
  const a = await signRequest(key, { method: 'GET', host: '127.0.0.1:1', path: '/x' });
  const b = await signRequest(key, { method: 'GET', host: '127.0.0.1:1', path: '/x' });
  assert.notEqual(a.nonce, b.nonce);
  assert.match(a.authorization, /^Gasoline-HMAC ts=\d+, nonce=[0-9a-f]{32}, sig=[0-9a-f]{64}$/);
  assert.ok(!a.authorization.includes(vec.token));
});

// The Go side's vectors of a sealed body (internal/extauth/extauth_test.go).
const sealVec = {
  iv: '000102030405060708090a0b',
  sealed: '000102030405060708090a0b1dfb883dd7d9ce6328f06eae5ee6000cdf07d28fcad57c',
  hash: '2ad2eab15972190903bd92ccd292f915d2e8758cc1838fee4cbae75ad5c62cc7',
  auth: 'Gasoline-HMAC ts=1700000000000, nonce=0123456789abcdef0123456789abcdef, sig=1529d530c18eaef02624e2fac53410d705c687474f298d0a827b3d9118847828',
};
const bytesOf = (h) => Uint8Array.from(h.match(/../g), (b) => parseInt(b, 16));
const hexOf = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');

test('sealed bodies match the Go vectors', async () => {
  const keys = await requestKeys(vec.token);
  const sealed = await sealBody(keys.seal, vec.request, vec.request.body, { iv: bytesOf(sealVec.iv) });
  assert.equal(hexOf(sealed), sealVec.sealed);
  const signed = await signRequest(keys.sign, { ...vec.request, body: sealed });
  assert.equal(signed.authorization, sealVec.auth);
  assert.equal(signed.bodyHash, sealVec.hash);
  assert.equal(await openBody(keys.seal, vec.request, bytesOf(sealVec.sealed)), vec.request.body);
});

test('a sealed request carries no plaintext and opens only for its own request', async () => {
  const keys = await requestKeys(vec.token);
  const text = JSON.stringify({ events: [{ kind: 'log', text: 'the user typed hunter2' }] });
  const r = await sealedRequest(keys, { method: 'POST', host: '127.0.0.1:7890', path: '/events', text });
  assert.ok(!Buffer.from(r.body).toString('latin1').includes('hunter2'));
  assert.equal(r.headers['Content-Type'], SEALED_TYPE);
  assert.equal(r.body.length, utf8Len(text) + SEAL_OVERHEAD);
  assert.match(r.headers['X-Gasoline-Body-SHA256'], /^[0-9a-f]{64}$/);
  const ts = Number(/ts=(\d+)/.exec(r.headers.Authorization)[1]);
  const req = { method: 'POST', host: '127.0.0.1:7890', path: '/events', ts, nonce: r.nonce };
  assert.equal(await openBody(keys.seal, req, r.body), text);
  await assert.rejects(openBody(keys.seal, { ...req, path: '/query-result' }, r.body));
  await assert.rejects(openBody((await requestKeys('other')).seal, req, r.body));
  const again = await sealedRequest(keys, { method: 'POST', host: '127.0.0.1:7890', path: '/events', text });
  assert.notEqual(hexOf(again.body.slice(0, 12)), hexOf(r.body.slice(0, 12)), 'every request has a fresh IV');
  const none = await sealedRequest(keys, { method: 'GET', host: '127.0.0.1:7890', path: '/capture/config' });
  assert.equal(none.body, undefined);
  assert.deepEqual(Object.keys(none.headers), ['Authorization']);
});

function utf8Len(s) {
  return new TextEncoder().encode(s).length;
}
