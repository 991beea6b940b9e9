// The page capture, run as the browser runs them: the lean bundle every
// page loaded while no agent works gets (dist/start-main-idle.js) and the
// at-work one (dist/start-main.js; both built from capture/main/), each in
// a realm of its own whose window is node's (fetch, Request, Response,
// streams, MessageChannel), against a local HTTP server. A lean page keeps
// the request and response bodies of failed requests only (status 400 or
// more, or no response: issue 28); at work, every request's. A page that
// replaces built-ins after the capture ran changes nothing in its records.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import vm from 'node:vm';

/** serve answers /ok (and /ok?…) 200 JSON, /fail 500 JSON, /image 500 image/png, and closes the connection of /drop. */
async function serve(t) {
  const srv = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const reply = (status, mime, body) => {
        res.writeHead(status, { 'content-type': mime });
        res.end(body);
      };
      if (req.url.startsWith('/ok')) reply(200, 'application/json', '{"ok":true}');
      else if (req.url === '/fail') reply(500, 'application/json', '{"error":"quota exceeded for workspace 42"}');
      else if (req.url === '/image') reply(500, 'image/png', 'PNG');
      else req.socket.destroy();
    });
  });
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    srv.closeAllConnections();
    srv.close();
  });
  return `http://127.0.0.1:${srv.address().port}`;
}

// PortEvent stands for the page's MessageEvent: node's drops cancelable,
// which the capture's handshake with its relay needs.
class PortEvent extends Event {
  #init;
  constructor(type, init = {}) {
    super(type, init);
    this.#init = init;
  }

  get data() {
    return this.#init.data;
  }

  get ports() {
    return this.#init.ports || [];
  }
}

/**
 * page runs the capture script file (under extension/) in a new realm
 * whose window shows base + "/app", takes its port as the relay does (and
 * closes it when t ends), and returns the page's fetch, the records it
 * sends and the realm (to run the page's own code in).
 */
function page(t, file, base) {
  const win = new EventTarget();
  const quiet = {};
  for (const m of ['log', 'error', 'warn', 'info', 'debug', 'trace', 'assert', 'dir', 'table']) quiet[m] = () => {};
  Object.assign(win, {
    // createElement: actions/dialogs.js's channel (the at-work bundle's last source).
    document: Object.assign(new EventTarget(), { readyState: 'complete', referrer: '', createElement: () => new EventTarget() }),
    location: { href: `${base}/app`, origin: base },
    console: quiet,
    EventTarget, Event, MessageChannel, MessageEvent: PortEvent, MessagePort, fetch, Response, Request, Headers,
    ReadableStream, ReadableStreamDefaultReader, TextDecoder, URL, URLSearchParams, FormData, Blob, performance,
    setTimeout, clearTimeout,
    // capture/lean-dialogs.js's channel: no ISOLATED world takes it here,
    // so it wraps nothing.
    Text: class extends EventTarget {},
    FocusEvent: class extends Event {},
    CustomEvent,
    dispatchEvent: (e) => EventTarget.prototype.dispatchEvent.call(win, e),
    addEventListener: (...a) => EventTarget.prototype.addEventListener.apply(win, a), // called bare, as window's are
    queueMicrotask: (f) => { // a bundle rethrows a source's failure in a microtask
      try {
        f();
      } catch (e) {
        failures.push(e);
      }
    },
  });
  const failures = [];
  win.window = win;
  const records = [];
  win.addEventListener('gasoline:capture-port', (e) => {
    e.preventDefault();
    const port = e.ports[0];
    port.onmessage = (m) => records.push(...(m.data.events || []));
    t.after(() => port.close());
  }, { once: true });
  const realm = vm.createContext(win);
  vm.runInContext(fs.readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'), realm, { filename: file });
  assert.deepEqual(failures, [], `${file} failed to install`);
  const hooked = vm.runInContext('fetch', realm);
  assert.notEqual(hooked, fetch, `${file} did not hook fetch`);
  return { fetch: hooked, records, realm };
}

/** settled waits until the request to path has its final record (the one with the bodies), and returns it. */
async function settled(records, path) {
  for (const deadline = Date.now() + 10000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
    const mine = records.filter((r) => r.kind === 'network' && r.url.endsWith(path));
    const last = mine.find((r) => r.body_update) || mine.find((r) => !r.body_pending);
    if (last) return last;
  }
  assert.fail(`no record of ${path} within 10 s: ${JSON.stringify(records)}`);
}

test('a lean page keeps the bodies of failed requests only', async (t) => {
  const base = await serve(t);
  const p = page(t, 'dist/start-main-idle.js', base);
  await p.fetch(`${base}/ok`, { method: 'POST', body: 'kept=no' }).then((r) => r.json());
  const res = await p.fetch(`${base}/fail`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Quarterly report"}' });
  assert.deepEqual(await res.json(), { error: 'quota exceeded for workspace 42' }, 'the page reads its own response whole');
  await p.fetch(`${base}/image`, { method: 'POST', body: new URLSearchParams({ a: '1' }) }).then((r) => r.arrayBuffer());
  const dropped = await p.fetch(new Request(`${base}/drop`, { method: 'POST', body: 'draft of a report' })).then(() => 'answered', (e) => e.name);
  assert.equal(dropped, 'TypeError', 'the page sees its network error');

  const ok = await settled(p.records, '/ok');
  assert.equal(ok.lean, true);
  assert.equal(ok.status, 200);
  assert.ok(!('request_body' in ok) && !('response_body' in ok) && !ok.body_pending, `a request that succeeded keeps no body: ${JSON.stringify(ok)}`);

  const fail = await settled(p.records, '/fail');
  assert.equal(fail.lean, true);
  assert.equal(fail.status, 500);
  assert.equal(fail.request_body, '{"name":"Quarterly report"}');
  assert.equal(fail.request_body_size, 27);
  assert.equal(fail.response_body, '{"error":"quota exceeded for workspace 42"}');
  assert.equal(fail.response_body_size, 43);

  const image = await settled(p.records, '/image');
  assert.equal(image.request_body, 'a=1', 'a failed request keeps its form body');
  assert.ok(!('response_body' in image), 'a response that is not text is not kept');

  const drop = await settled(p.records, '/drop');
  assert.equal(drop.status, 0);
  assert.ok(drop.error, 'a request without an answer says why');
  assert.equal(drop.request_body, 'draft of a report', 'a fetched Request keeps its body (a clone made before the fetch consumed it)');
});

test('at work every request keeps its bodies', async (t) => {
  const base = await serve(t);
  const p = page(t, 'dist/start-main.js', base);
  await p.fetch(`${base}/ok`, { method: 'POST', body: 'kept=yes' }).then((r) => r.json());
  await p.fetch(new Request(`${base}/ok?req`, { method: 'POST', body: 'from a Request' })).then((r) => r.json());
  const ok = await settled(p.records, '/ok');
  assert.ok(!('lean' in ok));
  assert.equal(ok.request_body, 'kept=yes');
  assert.equal(ok.response_body, '{"ok":true}');
  const req = await settled(p.records, '/ok?req');
  assert.equal(req.request_body, 'from a Request');
});

test('a page that replaces built-ins after the capture ran changes nothing in its records (at work)', async (t) => {
  const base = await serve(t);
  const p = page(t, 'dist/start-main.js', base);
  // The page's own code, after the bundle (document_start) ran: it replaces
  // what the capture's modules call (builtins.js, page.js and each hook's
  // own saved built-ins), then logs and fetches.
  vm.runInContext(`
    JSON.stringify = () => '"lie"';
    String.prototype.slice = () => 'lie';
    String.prototype.indexOf = () => -1;
    String.prototype.toUpperCase = () => 'lie';
    Array.prototype.push = function () { throw new Error('push'); };
    Array.prototype.shift = () => undefined;
    Array.prototype.splice = () => [];
    Map.prototype.set = function () { throw new Error('set'); };
    Function.prototype.call = () => 'lie';
    Function.prototype.apply = () => 'lie';
    Function.prototype.bind = () => () => 'lie';
    Reflect.apply = () => 'lie';
    Object.keys = () => [];
    Date.now = () => 0;
    Math.max = () => 0;
    console.log('after', { a: [1, 2] }, 'x'.repeat(3));
  `, p.realm);
  const res = await p.fetch(`${base}/ok`, { method: 'post', body: 'kept=yes' });
  assert.deepEqual(await res.json(), { ok: true }, 'the page reads its own response');
  const ok = await settled(p.records, '/ok');
  assert.equal(ok.method, 'POST');
  assert.equal(ok.request_body, 'kept=yes');
  assert.equal(ok.response_body, '{"ok":true}');
  assert.ok(ok.ts > 0, `the record's time is the capture's clock: ${ok.ts}`);
  const log = p.records.find((r) => r.kind === 'log');
  assert.equal(log?.message, 'after {"a":[1,2]} xxx', JSON.stringify(p.records));
});
