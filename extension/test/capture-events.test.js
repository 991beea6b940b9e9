// Unit tests of what the relay and the worker accept from a page, header
// redaction, and the browser-side network and tab events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkMessage, checkRecord, LIMITS } from '../capture/relay/check.js';
import { sanitise, sanitiseReason, redactHeaders, normaliseSettings, DEFAULT_SETTINGS, MAX_BODY_CHARS } from '../capture/events.js';
import { NetworkObserver } from '../capture/network.js';
import { tabUpdated, tabRemoved, tabActivated } from '../capture/tabs.js';
import { checkBatch, pageConfig } from '../capture/worker.js';

const relay = { checkMessage, checkRecord, LIMITS };
const stamp = { tab_id: 7, frame_id: 3, page_url: 'https://app.test/cart' };

test('relay: only capture messages of plain data pass', async (t) => {
  await t.test('not a capture message', () => {
    for (const m of [null, 'x', 42, {}, { events: 'no' }]) assert.equal(relay.checkMessage(m), null);
  });
  await t.test('records of unknown kinds are rejected, others copied as data', () => {
    const fn = () => 1;
    const r = relay.checkMessage({
      events: [
        { kind: 'log', level: 'log', message: 'hi', extra: fn, nested: { a: 'b', c: { deep: 1 } }, mods: ['Shift', 3] },
        { kind: 'tab', type: 'removed' },
        { kind: 'command', action: 'unpair' },
        'text',
      ],
    });
    assert.equal(r.rejected, 3);
    assert.deepEqual(r.events, [{ kind: 'log', level: 'log', message: 'hi', nested: { a: 'b' }, mods: ['Shift'] }]);
  });
  await t.test('strings are capped, bodies allowed more', () => {
    const r = relay.checkMessage({ events: [{ kind: 'network', url: 'u'.repeat(50000), response_body: 'b'.repeat(50000) }] });
    assert.equal(r.events[0].url.length, relay.LIMITS.string);
    assert.equal(r.events[0].response_body.length, 50000);
  });
  await t.test('too many records in one message count as dropped; page drop counts are summed', () => {
    const events = Array.from({ length: relay.LIMITS.eventsPerMessage + 5 }, () => ({ kind: 'log', level: 'log', message: 'x' }));
    const r = relay.checkMessage({ events, dropped: { log: 2, vital: 1, bogus: 5, network: -1, action: 1.5 } });
    assert.equal(r.events.length, relay.LIMITS.eventsPerMessage);
    assert.deepEqual(r.dropped, { log: 7, vital: 1 });
  });
});

test('sanitise stamps tab, frame and URL from the sender, never the record', () => {
  const e = sanitise({ kind: 'log', ts: 5, level: 'warn', message: 'm', tab_id: 99, frame_id: 98, page_url: 'https://evil.test/' }, stamp);
  assert.deepEqual(e, { kind: 'log', ts: 5, tab_id: 7, frame_id: 3, page_url: 'https://app.test/cart', level: 'warn', message: 'm' });
});

test('sanitise keeps each kind to its fields and types', async (t) => {
  const cases = [
    { name: 'unknown fields dropped', in: { kind: 'nav', type: 'pushState', to: '/b', from: '/a', command: 'x' }, want: { type: 'pushState', to: '/b', from: '/a' } },
    { name: 'bad enum value dropped, then required field missing', in: { kind: 'log', level: 'fatal', message: 'm' }, want: null, reason: 'invalid' },
    { name: 'tab kind refused from pages', in: { kind: 'tab', type: 'removed' }, want: null, reason: 'invalid' },
    { name: 'unknown kind', in: { kind: 'exec', script: '1' }, want: null, reason: 'invalid' },
    { name: 'wrong types dropped', in: { kind: 'error', type: 'uncaught', message: 'x', line: '12', column: 3.5 }, want: { type: 'uncaught', message: 'x' } },
    { name: 'modifiers filtered', in: { kind: 'action', type: 'click', selector: '#a', modifiers: ['Shift', 'Hyper', 'Shift'] }, want: { type: 'click', selector: '#a', modifiers: ['Shift'] } },
    { name: 'only Enter/Escape/Tab keys', in: { kind: 'action', type: 'keydown', selector: '#a', key: 'a' }, want: { type: 'keydown', selector: '#a' } },
    { name: 'a locator keeps its kind\'s fields', in: { kind: 'action', type: 'click', selector: '#a', locator: { by: 'role', role: 'button', name: 'Go', attr: 'x', evil: {} } },
      want: { type: 'click', selector: '#a', locator: { by: 'role', role: 'button', name: 'Go' } } },
    { name: 'an unknown or incomplete locator is dropped', in: { kind: 'action', type: 'click', selector: '#a', locator: { by: 'xpath', selector: '//a' } }, want: { type: 'click', selector: '#a' } },
    { name: 'a testid locator needs its value', in: { kind: 'action', type: 'click', selector: '#a', locator: { by: 'testid', attr: 'data-testid' } }, want: { type: 'click', selector: '#a' } },
    { name: 'page network defaults to source page', in: { kind: 'network', request_id: 'f1', method: 'GET', url: 'u', status: 200, resource_type: 'fetch' }, want: { request_id: 'f1', method: 'GET', url: 'u', status: 200, resource_type: 'fetch', source: 'page' } },
    { name: 'vital', in: { kind: 'vital', name: 'CLS', value: 0.12, unit: 'score' }, want: { name: 'CLS', value: 0.12, unit: 'score' } },
    { name: 'a lean page\'s load and requests say so (capture/main/, the lean build)', in: { kind: 'nav', type: 'load', to: '/a', lean: true }, want: { type: 'load', to: '/a', lean: true } },
    { name: 'a lean request', in: { kind: 'network', request_id: 'f1', method: 'GET', url: 'u', status: 200, resource_type: 'fetch', lean: true },
      want: { request_id: 'f1', method: 'GET', url: 'u', status: 200, resource_type: 'fetch', lean: true, source: 'page' } },
    { name: 'lean is a boolean', in: { kind: 'nav', type: 'load', to: '/a', lean: 'yes' }, want: { type: 'load', to: '/a' } },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const r = sanitiseReason({ ts: 1, ...c.in }, stamp);
      if (c.want === null) {
        assert.equal(r.event, null);
        assert.equal(r.reason, c.reason);
        return;
      }
      const { kind, ts, tab_id, frame_id, page_url, ...rest } = r.event;
      assert.deepEqual(rest, c.want);
      assert.equal(kind, c.in.kind);
    });
  }
});

test('sanitise caps strings and bodies; a switched-off kind is "off"', () => {
  const e = sanitise({ kind: 'log', level: 'log', message: 'm'.repeat(9000) }, stamp);
  assert.equal(e.message.length, 8000);
  assert.ok(e.message.endsWith('…'));
  const net = { kind: 'network', request_id: 'f', method: 'POST', url: 'u', status: 200, resource_type: 'fetch', request_body: 'q'.repeat(100), response_body: 'r'.repeat(MAX_BODY_CHARS + 10) };
  const small = sanitise(net, stamp, { ...DEFAULT_SETTINGS, body_cap: 50 });
  assert.equal(small.request_body.length, 50);
  assert.equal(small.body_truncated, true);
  const huge = sanitise(net, stamp, { ...DEFAULT_SETTINGS, body_cap: 10 * MAX_BODY_CHARS });
  assert.equal(huge.response_body.length, MAX_BODY_CHARS, 'bodies never exceed MAX_BODY_CHARS');
  const off = sanitiseReason({ kind: 'log', level: 'log', message: 'x' }, stamp, { ...DEFAULT_SETTINGS, kinds: { ...DEFAULT_SETTINGS.kinds, log: false } });
  assert.deepEqual(off, { event: null, reason: 'off', kind: 'log' });
});

test('redactHeaders hides credentials unless switched off', () => {
  const h = { Authorization: 'Bearer s3cret', cookie: 'sid=1', 'Set-Cookie': 'sid=2', 'Proxy-Authorization': 'Basic x', Accept: 'text/html' };
  assert.deepEqual(redactHeaders(h), {
    Authorization: '[redacted]', cookie: '[redacted]', 'Set-Cookie': '[redacted]', 'Proxy-Authorization': '[redacted]', Accept: 'text/html',
  });
  assert.deepEqual(redactHeaders(h, false), h);
  assert.deepEqual(redactHeaders([{ name: 'AUTHORIZATION', value: 'x' }, { name: 'X-A', value: 'y' }, { bogus: 1 }]), { AUTHORIZATION: '[redacted]', 'X-A': 'y' });
  assert.equal(redactHeaders('nope'), undefined);
  assert.equal(Object.keys(redactHeaders(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`h${i}`, 'v'])))).length, 64);
  const e = sanitise({ kind: 'network', request_id: 'f', method: 'GET', url: 'u', status: 200, resource_type: 'fetch', request_headers: { Authorization: 'Bearer x' } }, stamp);
  assert.deepEqual(e.request_headers, { Authorization: '[redacted]' });
});

test('redactHeaders hides API keys, tokens and bearer values, and the daemon\'s added names', () => {
  const h = { 'X-Api-Key': 'sk-live-1', 'X-Auth-Token': 't', 'x-csrf-token': 'c', 'X-Custom': 'Bearer abc',
    'X-Jwt-Ish': 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.s', 'X-Tenant': 'acme', Accept: 'text/html' };
  assert.deepEqual(redactHeaders(h, true, ['x-tenant']), {
    'X-Api-Key': '[redacted]', 'X-Auth-Token': '[redacted]', 'x-csrf-token': '[redacted]', 'X-Custom': '[redacted]',
    'X-Jwt-Ish': '[redacted]', 'X-Tenant': '[redacted]', Accept: 'text/html',
  });
  assert.equal(redactHeaders(h)['X-Tenant'], 'acme');
  assert.deepEqual(normaliseSettings({ redact_names: ['X-Tenant', 3] }).redact_names, ['x-tenant']);
});

test('normaliseSettings falls back to the defaults field by field', () => {
  assert.deepEqual(normaliseSettings(null), { ...DEFAULT_SETTINGS, kinds: { ...DEFAULT_SETTINGS.kinds } });
  const s = normaliseSettings({ version: 4, redact_headers: false, body_cap: 'big', kinds: { log: false, bogus: true } });
  assert.equal(s.version, 4);
  assert.equal(s.redact_headers, false);
  assert.equal(s.body_cap, DEFAULT_SETTINGS.body_cap);
  assert.equal(s.kinds.log, false);
  assert.equal(s.kinds.network, true);
  assert.equal('bogus' in s.kinds, false);
  assert.equal(pageConfig({ ...s, body_cap: 10 * MAX_BODY_CHARS }).body_cap, MAX_BODY_CHARS);
});

test('checkBatch counts invalid records and the page drop counts as dropped', () => {
  const { events, dropped } = checkBatch({
    events: [
      { kind: 'log', level: 'log', message: 'ok' },
      { kind: 'log', level: 'nope', message: 'bad' },
      { kind: 'tab', type: 'removed' },
      { kind: 'weird' },
    ],
    dropped: { log: 2, network: 1e12, tab: 3 },
  }, stamp, DEFAULT_SETTINGS);
  assert.equal(events.length, 1);
  assert.equal(events[0].tab_id, 7);
  assert.deepEqual(dropped, { log: 3, network: 1e6 });
});

const details = (over) => ({ requestId: '11', tabId: 4, frameId: 0, method: 'GET', type: 'xmlhttprequest', url: 'https://app.test/api', timeStamp: 1000, initiator: 'https://app.test', ...over });

test('NetworkObserver: one event per response, redirect or failure', () => {
  const out = [];
  const o = new NetworkObserver({ emit: (e) => out.push(e), ownOrigin: 'chrome-extension://gasoline' });
  o.onBeforeRequest(details({ type: 'main_frame', url: 'https://app.test/page', requestId: '1' }));
  o.onCompleted(details({ type: 'main_frame', url: 'https://app.test/page', requestId: '1', timeStamp: 1040, statusCode: 200, responseHeaders: [{ name: 'Content-Type', value: 'text/html' }] }));
  o.onBeforeRequest(details());
  o.onSendHeaders(details({ requestHeaders: [{ name: 'Authorization', value: 'Bearer x' }] }));
  o.onBeforeRedirect(details({ timeStamp: 1010, statusCode: 302 }));
  o.onCompleted(details({ url: 'https://app.test/api2', timeStamp: 1030, statusCode: 500 }));
  o.onBeforeRequest(details({ requestId: '12', type: 'image', url: 'https://cdn.test/x.png' }));
  o.onErrorOccurred(details({ requestId: '12', type: 'image', url: 'https://cdn.test/x.png', error: 'net::ERR_NAME_NOT_RESOLVED', timeStamp: 1002 }));
  o.onCompleted(details({ tabId: -1, url: 'http://127.0.0.1:7890/events' }));
  o.onCompleted(details({ url: 'http://127.0.0.1:7890/health', initiator: 'chrome-extension://gasoline' }));

  assert.deepEqual(out.map((e) => [e.request_id, e.status, e.resource_type, e.duration_ms, e.error]), [
    ['1', 200, 'document', 40, undefined],
    ['11.r1', 302, 'xhr', 10, undefined],
    ['11', 500, 'xhr', 20, undefined],
    ['12', 0, 'image', 2, 'net::ERR_NAME_NOT_RESOLVED'],
  ]);
  assert.equal(out[0].page_url, 'https://app.test/page');
  assert.equal(out[0].mime_type, 'text/html');
  assert.equal(out[2].page_url, 'https://app.test/page', 'a sub-resource gets its frame document URL');
  assert.deepEqual(out[1].request_headers, [{ name: 'Authorization', value: 'Bearer x' }], 'redaction happens in sanitise');
  assert.equal(out[2].request_headers, undefined, 'headers of the redirected hop are not reused');
  assert.ok(out.every((e) => e.source === 'browser' && e.tab_id === 4));
});

test('NetworkObserver: unknown frames fall back to the initiator; pending is bounded', () => {
  const out = [];
  const o = new NetworkObserver({ emit: (e) => out.push(e), maxPending: 2 });
  o.onCompleted(details({ tabId: 9, frameId: 5, statusCode: 204 }));
  assert.equal(out[0].page_url, 'https://app.test');
  assert.equal(out[0].duration_ms, undefined, 'no start seen (worker restarted): no duration');
  o.noteDocument(9, 5, 'https://app.test/frame');
  o.onCompleted(details({ tabId: 9, frameId: 5, statusCode: 204 }));
  assert.equal(out[1].page_url, 'https://app.test/frame');
  for (const id of ['a', 'b', 'c']) o.onBeforeRequest(details({ requestId: id }));
  assert.deepEqual([...o.pending.keys()], ['b', 'c']);
  o.forgetTab(9);
  assert.equal(o.documentOf(9, 5), '');
});

test('tab events', () => {
  assert.equal(tabUpdated(1, { favIconUrl: 'x' }, {}), null);
  assert.deepEqual(tabUpdated(1, { status: 'complete' }, { url: 'https://a.test/', title: 'A', active: true, windowId: 2, status: 'complete' }, 5), {
    kind: 'tab', ts: 5, tab_id: 1, frame_id: 0, page_url: 'https://a.test/', type: 'updated', title: 'A', status: 'complete', active: true, window_id: 2,
  });
  assert.deepEqual(tabRemoved(1, { windowId: 2 }, 'https://a.test/', 6), { kind: 'tab', ts: 6, tab_id: 1, frame_id: 0, page_url: 'https://a.test/', type: 'removed', window_id: 2 });
  assert.deepEqual(tabActivated({ tabId: 3, windowId: 2 }, undefined, 7), { kind: 'tab', ts: 7, tab_id: 3, frame_id: 0, page_url: '', type: 'activated', active: true, window_id: 2 });
  const e = sanitise(tabUpdated(1, { title: 'T' }, { url: 'u', title: 'T' }), { tab_id: 1, frame_id: 0, page_url: 'u' }, DEFAULT_SETTINGS, { allowTab: true });
  assert.equal(e.type, 'updated');
});

test('websocket events keep their fields, cut text at the body cap, and follow network\'s switch', () => {
  const frame = { kind: 'websocket', conn_id: 'w1-1', type: 'message', direction: 'received', size: 12, text: 'x'.repeat(20), evil: 1 };
  const e = sanitise(frame, stamp, { ...DEFAULT_SETTINGS, body_cap: 8 });
  assert.deepEqual({ ...e, ts: 0 }, { kind: 'websocket', ts: 0, tab_id: 7, frame_id: 3, page_url: 'https://app.test/cart', conn_id: 'w1-1',
    type: 'message', direction: 'received', size: 12, text: 'x'.repeat(8), body_truncated: true });
  assert.equal(sanitise({ kind: 'websocket', type: 'open' }, stamp), null); // no conn_id
  assert.equal(sanitise({ kind: 'websocket', conn_id: 'w', type: 'ping' }, stamp), null);
  const off = sanitiseReason(frame, stamp, { ...DEFAULT_SETTINGS, kinds: { ...DEFAULT_SETTINGS.kinds, network: false } });
  assert.equal(off.reason, 'off');
  // The relay keeps a frame's text like a body, past the 16 KB of other strings.
  const long = relay.checkRecord({ kind: 'websocket', conn_id: 'w', type: 'message', text: 'y'.repeat(20000), message: 'z'.repeat(20000) });
  assert.equal(long.text.length, 20000);
  assert.equal(long.message.length, 16384);
});

test('NetworkObserver: WebSockets and requests that ask for or answer with an event stream are streams, told to watchers and left out of what is loading', () => {
  const o = new NetworkObserver({ emit: () => {} });
  const told = [];
  o.watch(1, (phase, r) => told.push([phase, r.id, r.stream]));
  o.onBeforeRequest({ requestId: 'a', tabId: 1, frameId: 0, type: 'websocket', url: 'ws://x/live', method: 'GET', timeStamp: 1 });
  o.onBeforeRequest({ requestId: 'b', tabId: 1, frameId: 0, type: 'xmlhttprequest', url: 'http://x/events', method: 'GET', timeStamp: 1 });
  o.onSendHeaders({ requestId: 'b', tabId: 1, frameId: 0, type: 'xmlhttprequest', requestHeaders: [{ name: 'Accept', value: 'text/event-stream' }] });
  o.onBeforeRequest({ requestId: 'c', tabId: 1, frameId: 0, type: 'xmlhttprequest', url: 'http://x/api', method: 'GET', timeStamp: 1 });
  o.onSendHeaders({ requestId: 'c', tabId: 1, frameId: 0, type: 'xmlhttprequest', requestHeaders: [{ name: 'Accept', value: '*/*' }] });
  // a fetch whose answer is an event stream (a chat's streamed answer)
  o.onBeforeRequest({ requestId: 'd', tabId: 1, frameId: 0, type: 'xmlhttprequest', url: 'http://x/answer', method: 'POST', timeStamp: 1 });
  o.onResponseStarted({ requestId: 'd', tabId: 1, frameId: 0, type: 'xmlhttprequest', responseHeaders: [{ name: 'Content-Type', value: 'text/event-stream; charset=utf-8' }] });
  o.onResponseStarted({ requestId: 'c', tabId: 1, frameId: 0, type: 'xmlhttprequest', responseHeaders: [{ name: 'Content-Type', value: 'application/json' }] });
  assert.deepEqual(told, [['start', 'a', 'websocket'], ['start', 'b', undefined], ['stream', 'b', 'sse'], ['start', 'c', undefined], ['start', 'd', undefined], ['stream', 'd', 'sse']]);
  assert.deepEqual(o.streams(1).map((r) => [r.id, r.kind]), [['a', 'websocket'], ['b', 'sse'], ['d', 'sse']]);
  assert.deepEqual(o.inflight(1, 30000, 2).filter((r) => !r.stream).map((r) => r.id), ['c']);
});
