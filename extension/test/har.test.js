import test from 'node:test';
import assert from 'node:assert/strict';

import { NetworkObserver } from '../capture/network.js';
import { readBodies } from '../har/bodies.js';

const req = (over) => ({ tabId: 4, frameId: 0, requestId: '1', type: 'xmlhttprequest', method: 'GET', url: 'https://app.test/app.js', timeStamp: 1000, initiator: 'https://app.test', statusCode: 200, ...over });

test('NetworkObserver.hush leaves the re-reads of a HAR export out, until lifted', () => {
  const out = [];
  const o = new NetworkObserver({ emit: (e) => out.push(e) });
  const unhush = o.hush(4, ['https://app.test/app.js']);
  o.onBeforeRequest(req());
  o.onCompleted(req());
  o.onCompleted(req({ requestId: '2', type: 'script' })); // the page's own load of it
  o.onCompleted(req({ requestId: '3', tabId: 5 })); // another tab's fetch
  unhush();
  o.onCompleted(req({ requestId: '4' }));
  assert.deepEqual(out.map((e) => e.request_id), ['2', '3', '4']);
  assert.equal(o.hushed.size, 0);
});

test('readBodies: from the cache only, never the network; what the cache lacks or another origin says not captured', async (t) => {
  const calls = [];
  const cached = new Map([['https://app.test/page.html', '<h1>hi</h1>'], ['https://app.test/big.css', 'x'.repeat(10)], ['https://app.test/gone.js', null]]);
  const had = Object.getOwnPropertyDescriptor(globalThis, 'location');
  Object.defineProperty(globalThis, 'location', { value: { origin: 'https://app.test' }, configurable: true });
  t.after(() => (had ? Object.defineProperty(globalThis, 'location', had) : delete globalThis.location));
  t.mock.method(globalThis, 'fetch', async (url, init) => {
    calls.push([url, init.cache, init.mode]);
    if (init.cache !== 'only-if-cached') return new Response(`fresh ${url}`);
    if (!cached.has(url)) throw new TypeError('Failed to fetch');
    return cached.get(url) === null ? new Response('', { status: 404 }) : new Response(cached.get(url));
  });
  const r = await readBodies(['https://app.test/page.html', 'https://app.test/big.css', 'https://app.test/danger?do=delete&id=42', 'https://cdn.test/lib.js', 'https://app.test/gone.js', 'nope'], 5);
  assert.deepEqual(r.bodies.map((b) => [b.url, b.source, b.text, b.error?.replace(/ \(.*|:.*/, '')]), [
    ['https://app.test/page.html', 'cache', '<h1>h', undefined],
    ['https://app.test/big.css', 'cache', 'xxxxx', undefined],
    ['https://app.test/danger?do=delete&id=42', undefined, undefined, 'not captured'],
    ['https://cdn.test/lib.js', undefined, undefined, 'not captured'],
    ['https://app.test/gone.js', undefined, undefined, 'not captured'],
    ['nope', undefined, undefined, 'not a URL'],
  ]);
  assert.match(r.bodies[2].error, /no-store.*never fetches/);
  assert.match(r.bodies[3].error, /another origin/);
  assert.match(r.bodies[4].error, /HTTP 404/);
  assert.ok(calls.every(([, cache, mode]) => cache === 'only-if-cached' && mode === 'same-origin'), `every read is a cache read: ${JSON.stringify(calls)}`);
  assert.ok(!calls.some(([u]) => u.startsWith('https://cdn.test/')), 'another origin is never asked');
});

test('readBodies: the Resource Timing entries of the asked URLs, read before the re-reads', async (t) => {
  const had = Object.getOwnPropertyDescriptor(globalThis, 'location');
  Object.defineProperty(globalThis, 'location', { value: { origin: 'https://app.test' }, configurable: true });
  t.after(() => (had ? Object.defineProperty(globalThis, 'location', had) : delete globalThis.location));
  const phases = { fetchStart: 1, domainLookupStart: 2, domainLookupEnd: 3, connectStart: 3, connectEnd: 9, secureConnectionStart: 5, requestStart: 10, responseStart: 30, responseEnd: 31 };
  const entries = {
    navigation: [{ name: 'https://app.test/page.html', startTime: 0, nextHopProtocol: 'h2', domContentLoadedEventStart: 50, loadEventStart: 80, ...phases }],
    resource: [{ name: 'https://app.test/app.js', startTime: 40, nextHopProtocol: 'http/1.1', ...phases }, { name: 'https://cdn.test/x.png', startTime: 50, nextHopProtocol: '', ...phases }],
  };
  let fetched = false;
  t.mock.method(performance, 'getEntriesByType', (type) => {
    assert.equal(fetched, false, 'the timeline is read before any re-read');
    return entries[type] ?? [];
  });
  t.mock.method(globalThis, 'fetch', async () => {
    fetched = true;
    return new Response('x');
  });
  const r = await readBodies(['https://app.test/app.js'], 10, ['https://app.test/page.html', 'https://app.test/app.js']);
  const of = (url, start, protocol, dcl = 0, load = 0) => ({
    url, origin: performance.timeOrigin, start, dns_start: 2, dns_end: 3, connect_start: 3, connect_end: 9, ssl_start: 5,
    request_start: 10, response_start: 30, response_end: 31, fetch_start: 1, protocol, dcl, load,
  });
  assert.deepEqual(r.timings, [of('https://app.test/page.html', 0, 'h2', 50, 80), of('https://app.test/app.js', 40, 'http/1.1')]);
  assert.equal(r.bodies.length, 1);
});
