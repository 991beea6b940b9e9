// How the extension and the daemon prove who they are to each other, so that a
// program that holds the daemon's port while the daemon is down learns no
// secret and cannot make the extension run anything. Pure WebCrypto, no
// chrome.* dependency: tested under node, and against the Go side with the
// shared vectors in test/auth.test.js and internal/pairing/proof_test.go.
//
// Pairing. The user types the code "gasoline pair" printed. The code itself
// never leaves the extension: it sends a fresh nonce and a proof that it knows
// the code, and the daemon answers with a token and its own proof, which binds
// the nonce, the token and the extension id. A program that does not know the
// code can produce neither, and the code's key is stretched (PBKDF2) so that a
// proof it captured cannot be searched for the code while the code is valid.
//
//   K     = PBKDF2-HMAC-SHA256(code, "gasoline-pair-v1 " + nonce, PAIR_ITERATIONS, 32 bytes)
//   proof = HMAC-SHA256(K, "gasoline-pair-v1 extension\n" + nonce)
//   POST /pair {"nonce", "proof", "instance"}
//   answer {"token", "extension_id",
//           "proof": HMAC-SHA256(K, "gasoline-pair-v1 daemon\n" + nonce + "\n" + token + "\n" + extension_id)}
//
// Requests. The token is never sent. Its key, SHA-256(token), signs each
// request; the daemon keeps the same key and refuses a request whose
// timestamp is off by more than a minute or whose nonce it has seen. The
// body's hash is sent too, so the daemon checks the signature before it
// reads the body.
//
//   Authorization: Gasoline-HMAC ts=<unix ms>, nonce=<32 hex>, sig=<64 hex>
//   X-Gasoline-Body-SHA256: hex(SHA-256(body))
//   sig = HMAC-SHA256(key, "gasoline-request-v1\n" + METHOD + "\n" + host + "\n" +
//                     path-and-query + "\n" + instance + "\n" + ts + "\n" + nonce + "\n" + hex(SHA-256(body)))
//
// Bodies are sealed, so a program holding the port reads nothing of what the
// extension captured: AES-256-GCM under a key derived from the same key,
// a fresh IV per request, bound to the request it is signed with.
//
//   S    = HKDF-SHA256(SHA-256(token), salt "", info "gasoline-body-v1", 32 bytes)
//   body = IV (12 random bytes) + AES-GCM(S, IV, json, additional data
//          "gasoline-body-v1\n" + METHOD + "\n" + host + "\n" + path-and-query + "\n" + instance + "\n" + ts + "\n" + nonce)
//   Content-Type: application/vnd.gasoline.sealed-v1
//
// Answers. The daemon signs every successful answer to a signed request with
// the same key, bound to the request's nonce, so an answer is good for that
// request only:
//
//   X-Gasoline-Signature: HMAC-SHA256(key, "gasoline-response-v1\n" + nonce + "\n" + status + "\n" + body)

/** PAIR_ITERATIONS is the PBKDF2 iteration count of the pairing key (the daemon uses the same). */
export const PAIR_ITERATIONS = 20000;

/** AUTH_SCHEME is the Authorization scheme of signed requests. */
export const AUTH_SCHEME = 'Gasoline-HMAC';

/** SIGNATURE_HEADER carries the daemon's signature of an answer. */
export const SIGNATURE_HEADER = 'X-Gasoline-Signature';

/** BODY_HASH_HEADER carries hex(SHA-256(body)) of a signed request. */
export const BODY_HASH_HEADER = 'X-Gasoline-Body-SHA256';

/** SEALED_TYPE is the Content-Type of a sealed body. */
export const SEALED_TYPE = 'application/vnd.gasoline.sealed-v1';

/** SEAL_OVERHEAD is how many bytes sealing adds to a body (IV and tag). */
export const SEAL_OVERHEAD = 28;

const subtle = globalThis.crypto.subtle;
const utf8 = new TextEncoder();
const HMAC = { name: 'HMAC', hash: 'SHA-256' };

/** randomHex returns n random bytes as lower-case hex. */
export function randomHex(n) {
  return hex(globalThis.crypto.getRandomValues(new Uint8Array(n)));
}

function hex(bytes) {
  let s = '';
  for (const b of new Uint8Array(bytes)) s += b.toString(16).padStart(2, '0');
  return s;
}

// unhex decodes lower- or upper-case hex; it returns null for anything else.
function unhex(s) {
  if (typeof s !== 'string' || s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) return null;
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

async function sign(key, text) {
  return hex(await subtle.sign('HMAC', key, utf8.encode(text)));
}

// verify checks a hex signature in constant time (WebCrypto's verify).
async function verify(key, text, sigHex) {
  const sig = unhex(sigHex);
  if (!sig || sig.length !== 32) return false;
  return subtle.verify('HMAC', key, sig, utf8.encode(text));
}

/** pairingKey derives the HMAC key K of a pairing attempt from the code and the extension's nonce. */
export async function pairingKey(code, nonce) {
  const base = await subtle.importKey('raw', utf8.encode(code), 'PBKDF2', false, ['deriveBits']);
  const bits = await subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt: utf8.encode(`gasoline-pair-v1 ${nonce}`), iterations: PAIR_ITERATIONS },
    base,
    256,
  );
  return subtle.importKey('raw', bits, HMAC, false, ['sign', 'verify']);
}

/**
 * pairRequest prepares POST /pair for a normalised code: it resolves to
 * {nonce, proof, key}; send nonce and proof, keep key to check the answer.
 */
export async function pairRequest(code, { nonce = randomHex(32) } = {}) {
  const key = await pairingKey(code, nonce);
  return { nonce, proof: await sign(key, `gasoline-pair-v1 extension\n${nonce}`), key };
}

/**
 * verifyPairAnswer reports whether a /pair answer {token, extension_id,
 * proof} comes from a daemon that knows the code of key.
 */
export async function verifyPairAnswer(key, nonce, answer) {
  const { token, extension_id: extensionId, proof } = answer ?? {};
  if (typeof token !== 'string' || !token || typeof extensionId !== 'string') return false;
  return verify(key, `gasoline-pair-v1 daemon\n${nonce}\n${token}\n${extensionId}`, proof);
}

/** signingKey is the HMAC key of a token: SHA-256 of its UTF-8 bytes, as the daemon stores it. */
export async function signingKey(token) {
  const raw = await subtle.digest('SHA-256', utf8.encode(token));
  return subtle.importKey('raw', raw, HMAC, false, ['sign', 'verify']);
}

/** sealingKey is the AES-GCM key that seals request bodies under a token (S above). */
export async function sealingKey(token) {
  const raw = await subtle.digest('SHA-256', utf8.encode(token));
  const base = await subtle.importKey('raw', raw, 'HKDF', false, ['deriveKey']);
  return subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: utf8.encode('gasoline-body-v1') },
    base,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

/** requestKeys resolves to {sign, seal}: the keys of every request made with token. */
export async function requestKeys(token) {
  const [signKey, seal] = await Promise.all([signingKey(token), sealingKey(token)]);
  return { sign: signKey, seal };
}

function sealData({ method, host, path, instance, ts, nonce }) {
  return utf8.encode(`gasoline-body-v1\n${method}\n${host}\n${path}\n${instance}\n${ts}\n${nonce}`);
}

/**
 * sealBody seals text (a string or bytes) for one request under sealKey
 * (sealingKey) and resolves to the bytes to send: IV, then ciphertext and
 * tag. req has the fields signRequest signs (method, host, path, instance,
 * ts, nonce); iv is for the test vectors only.
 */
export async function sealBody(sealKey, req, text, { iv = globalThis.crypto.getRandomValues(new Uint8Array(12)) } = {}) {
  const plain = typeof text === 'string' ? utf8.encode(text) : text;
  const ct = await subtle.encrypt({ name: 'AES-GCM', iv, additionalData: sealData({ instance: '', ...req }) }, sealKey, plain);
  const out = new Uint8Array(12 + ct.byteLength);
  out.set(iv, 0);
  out.set(new Uint8Array(ct), 12);
  return out;
}

/** openBody is sealBody's inverse (tests use it); it rejects a body that does not open for req. */
export async function openBody(sealKey, req, sealed) {
  const plain = await subtle.decrypt({ name: 'AES-GCM', iv: sealed.slice(0, 12), additionalData: sealData({ instance: '', ...req }) },
    sealKey, sealed.slice(12));
  return new TextDecoder().decode(plain);
}

/**
 * signRequest returns {authorization, nonce, bodyHash}: the Authorization
 * header value of one request, the nonce its answer must be bound to and
 * the body's hash (BODY_HASH_HEADER). host is "127.0.0.1:<port>", path
 * includes the query, body is the exact text or bytes sent ("" when none).
 */
export async function signRequest(key, { method, host, path, instance = '', body = '', ts = Date.now(), nonce = randomHex(16) }) {
  const bodyHash = hex(await subtle.digest('SHA-256', typeof body === 'string' ? utf8.encode(body) : body));
  const sig = await sign(key, `gasoline-request-v1\n${method}\n${host}\n${path}\n${instance}\n${ts}\n${nonce}\n${bodyHash}`);
  return { authorization: `${AUTH_SCHEME} ts=${ts}, nonce=${nonce}, sig=${sig}`, nonce, bodyHash };
}

/**
 * sealedRequest seals text (JSON, or undefined for no body) for one request
 * and signs it with keys (requestKeys). It resolves to {headers, body,
 * nonce}: the headers to add, the bytes to send (undefined for no body) and
 * the nonce the answer must be bound to.
 */
export async function sealedRequest(keys, { method, host, path, instance = '', text, ts = Date.now(), nonce = randomHex(16) }) {
  const req = { method, host, path, instance, ts, nonce };
  const body = text === undefined ? undefined : await sealBody(keys.seal, req, text);
  const signed = await signRequest(keys.sign, { ...req, body: body ?? '' });
  const headers = { Authorization: signed.authorization };
  if (body) {
    headers[BODY_HASH_HEADER] = signed.bodyHash;
    headers['Content-Type'] = SEALED_TYPE;
  }
  return { headers, body, nonce };
}

/** verifyResponse reports whether sigHex is the daemon's signature of an answer to the request with nonce. */
export function verifyResponse(key, nonce, status, body, sigHex) {
  return verify(key, `gasoline-response-v1\n${nonce}\n${status}\n${body}`, sigHex);
}
