// startCapture with a fake chrome API and a fake daemon client: which
// messages the capture listener takes, what it stamps, the acknowledgement,
// the capture settings, and webRequest events on their way to POST /events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startCapture, CAPTURE_MESSAGE } from '../capture/worker.js';

function event() {
  const listeners = [];
  return { addListener: (f) => listeners.push(f), listeners };
}

const store = new Map();
const api = {
  runtime: { id: 'gasoline', getURL: (p) => `chrome-extension://gasoline/${p}`, onMessage: event() },
  storage: {
    session: {
      get: async () => Object.fromEntries([...store].map(([k, v]) => [k, JSON.parse(v)])),
      set: async (items) => Object.entries(items).forEach(([k, v]) => store.set(k, JSON.stringify(v))),
      remove: async (k) => [].concat(k).forEach((x) => store.delete(x)),
    },
    onChanged: event(),
  },
  tabs: { onUpdated: event(), onRemoved: event(), onActivated: event(), get: async (id) => ({ id, url: 'https://shop.test/', title: 'Shop', status: 'complete' }) },
  webRequest: Object.fromEntries(['onBeforeRequest', 'onSendHeaders', 'onBeforeRedirect', 'onResponseStarted', 'onCompleted', 'onErrorOccurred'].map((n) => [n, event()])),
  webNavigation: { onHistoryStateUpdated: event(), onReferenceFragmentUpdated: event(), onCommitted: event() },
};

const posts = [];
let config = { version: 1, redact_headers: true, body_cap: 262144, kinds: { log: true, error: true, network: true, action: true, nav: true, vital: true } };
const client = {
  postEvents: async (body) => {
    posts.push(body);
    return { accepted: body.events.length, rejected: [], config_version: config.version };
  },
  captureConfig: async () => config,
};
const acted = []; // the tabs onAction was called for
const capture = startCapture({ loadConfig: async () => ({ token: 't', port: 1 }), makeClient: () => client, api, log: { warn() {}, error() {} }, onAction: (tab) => acted.push(tab) });

// send delivers a message to the capture listener as Chrome would and
// resolves to [returned, reply] (reply undefined when there was none).
function send(msg, sender) {
  return new Promise((resolve) => {
    let returned;
    const timer = setTimeout(() => resolve([returned, undefined]), 300);
    returned = api.runtime.onMessage.listeners[0](msg, sender, (reply) => {
      clearTimeout(timer);
      resolve([returned, reply]);
    });
    if (returned === false) {
      clearTimeout(timer);
      resolve([false, undefined]);
    }
  });
}

async function until(what, check, limitMs = 5000) {
  for (const end = Date.now() + limitMs; Date.now() < end; await new Promise((r) => setTimeout(r, 10))) {
    if (check()) return;
  }
  assert.fail(`not within ${limitMs} ms: ${what}`);
}

const contentScript = { id: 'gasoline', tab: { id: 12 }, frameId: 2, url: 'https://shop.test/cart', origin: 'https://shop.test', documentId: 'doc-1' };
const log = (message, extra = {}) => ({ kind: 'log', ts: 1, level: 'log', message, ...extra });

test('startCapture is idempotent per worker', () => {
  assert.equal(startCapture({ loadConfig: async () => ({}), makeClient: () => client, api }), capture);
  assert.equal(api.runtime.onMessage.listeners.length, 1);
});

test('only content scripts of this extension reach the capture path', async () => {
  const batch = { type: CAPTURE_MESSAGE, batch: 'b0', events: [log('x')] };
  assert.deepEqual(await send(batch, { id: 'gasoline', url: 'chrome-extension://gasoline/popup.html', origin: 'chrome-extension://gasoline' }), [false, undefined]);
  assert.deepEqual(await send(batch, { ...contentScript, id: 'another-extension' }), [false, undefined]);
  assert.deepEqual(await send({ type: 'unpair' }, contentScript), [false, undefined], 'control messages are not the capture listener\'s');
});

test('a batch is stamped from the sender, acknowledged with the settings, and posted', async () => {
  const [returned, reply] = await send({
    type: CAPTURE_MESSAGE, batch: 'b1', events: [log('hello', { tab_id: 99, page_url: 'https://evil.test/' })],
  }, contentScript);
  assert.equal(returned, true);
  assert.equal(reply.ok, true);
  assert.deepEqual(Object.keys(reply.config).sort(), ['body_cap', 'kinds', 'version']);
  await until('the event is posted', () => posts.some((p) => p.events.some((e) => e.message === 'hello')));
  const e = posts.flatMap((p) => p.events).find((x) => x.message === 'hello');
  assert.equal(e.tab_id, 12);
  assert.equal(e.frame_id, 2);
  assert.equal(e.page_url, 'https://shop.test/cart');
});

test('a batch with a user\'s action tells onAction its tab (the page it leads to gets the recorder at once); what appeared, or a log, does not', async () => {
  const action = (type) => ({ kind: 'action', ts: 1, type, selector: '#save' });
  acted.length = 0;
  await send({ type: CAPTURE_MESSAGE, batch: 'a1', events: [log('x'), action('appeared'), action('agent_appeared')] }, contentScript);
  assert.deepEqual(acted, []);
  await send({ type: CAPTURE_MESSAGE, batch: 'a2', events: [action('click')] }, { ...contentScript, tab: { id: 31 } });
  assert.deepEqual(acted, [31]);
});

test('a top document entering the back/forward cache keeps its frame id, and what it sends again on its restore is stored once', async () => {
  const top = { ...contentScript, frameId: 0, documentId: 'doc-top', url: 'https://shop.test/', documentLifecycle: 'active' };
  await send({ type: CAPTURE_MESSAGE, batch: 'f:1', events: [log('loaded')] }, top);
  // At pagehide, entering the cache: Chrome names the page's top frame otherwise.
  const [, reply] = await send({ type: CAPTURE_MESSAGE, batch: 'f:2', events: [log('left')] }, { ...top, frameId: 5, documentLifecycle: 'cached' });
  assert.equal(reply.ok, true);
  await send({ type: CAPTURE_MESSAGE, batch: 'f:2', events: [log('left')] }, top); // sent again at the restore
  await send({ type: CAPTURE_MESSAGE, batch: 'f:3', events: [log('restored')] }, top);
  await until('the restored page\'s record is posted', () => posts.some((p) => p.events.some((e) => e.message === 'restored')));
  const left = posts.flatMap((p) => p.events).filter((x) => x.message === 'left');
  assert.equal(left.length, 1, 'stored once');
  assert.equal(left[0].frame_id, 0, 'as the top frame\'s');
  // A document never seen active (a prerendered page) keeps the id Chrome gives.
  await send({ type: CAPTURE_MESSAGE, batch: 'p:1', events: [log('prerendered')] }, { ...top, frameId: 9, documentId: 'doc-pre', documentLifecycle: 'prerender' });
  await until('the prerendered page\'s record is posted', () => posts.some((p) => p.events.some((e) => e.message === 'prerendered')));
  assert.equal(posts.flatMap((p) => p.events).find((x) => x.message === 'prerendered').frame_id, 9);
});

test('what a page sends again on its restore is stored once however many batches others sent meanwhile', async () => {
  const top = { ...contentScript, frameId: 0, documentId: 'doc-left', url: 'https://shop.test/left', documentLifecycle: 'active' };
  await send({ type: CAPTURE_MESSAGE, batch: 'g:1', events: [log('in flight at pagehide')] }, top);
  await send({ type: CAPTURE_MESSAGE, batch: 'g:2', events: [log('sent at pagehide')] }, { ...top, frameId: 5, documentLifecycle: 'cached' });
  // A busy tab meanwhile: more batches than the Batcher remembers.
  const busy = { ...contentScript, tab: { id: 13 }, frameId: 0, documentId: 'doc-busy', url: 'https://busy.test/' };
  for (let i = 0; i < 1100; i++) await send({ type: CAPTURE_MESSAGE, batch: `busy:${i}`, events: [] }, busy);
  for (const b of ['g:1', 'g:2']) {
    const [, reply] = await send({ type: CAPTURE_MESSAGE, batch: b, events: [log(b === 'g:1' ? 'in flight at pagehide' : 'sent at pagehide')] }, top);
    assert.equal(reply?.ok, true, 'a batch sent again is acknowledged');
  }
  await send({ type: CAPTURE_MESSAGE, batch: 'g:3', events: [log('after the restore')] }, top);
  await until('the restored page\'s record is posted', () => posts.some((p) => p.events.some((e) => e.message === 'after the restore')));
  const all = posts.flatMap((p) => p.events);
  for (const m of ['in flight at pagehide', 'sent at pagehide']) {
    assert.deepEqual(all.filter((e) => e.message === m).map((e) => e.frame_id), [0], `${m}: stored once, as the top frame's`);
  }
});

test('a long-lived top document keeps its frame id while a thousand other documents come and go', async () => {
  const top = { ...contentScript, frameId: 0, documentId: 'doc-long', url: 'https://shop.test/long', documentLifecycle: 'active' };
  // It was first heard from over 1000 documents ago, last 200 ago.
  for (let i = 0; i < 1100; i++) {
    if (i % 300 === 0) await send({ type: CAPTURE_MESSAGE, batch: `long:${i}`, events: [] }, top);
    await send({ type: CAPTURE_MESSAGE, batch: `frame:${i}`, events: [] }, { ...contentScript, frameId: 3, documentId: `doc-frame-${i}` });
  }
  await send({ type: CAPTURE_MESSAGE, batch: 'long:left', events: [log('long left')] }, { ...top, frameId: 5, documentLifecycle: 'cached' });
  await until('the record made at pagehide is posted', () => posts.some((p) => p.events.some((e) => e.message === 'long left')));
  assert.equal(posts.flatMap((p) => p.events).find((e) => e.message === 'long left').frame_id, 0, 'as the top frame\'s');
});

test('a top document that sent nothing while active is known from its commit when it enters the back/forward cache', async () => {
  // Its records were gathered (capture/relay.js) or taken by a flush: its first message comes at pagehide.
  for (const f of api.webNavigation.onCommitted.listeners) f({ tabId: 12, frameId: 0, documentId: 'doc-quiet', url: 'https://shop.test/quiet', timeStamp: 1 });
  const top = { ...contentScript, frameId: 0, documentId: 'doc-quiet', url: 'https://shop.test/quiet', documentLifecycle: 'active' };
  await send({ type: CAPTURE_MESSAGE, batch: 'q:1', events: [log('quiet left')] }, { ...top, frameId: 6, documentLifecycle: 'cached' });
  await send({ type: CAPTURE_MESSAGE, batch: 'q:1', events: [log('quiet left')] }, top); // sent again at the restore
  await send({ type: CAPTURE_MESSAGE, batch: 'q:2', events: [log('quiet restored')] }, top);
  await until('the restored page\'s record is posted', () => posts.some((p) => p.events.some((e) => e.message === 'quiet restored')));
  const left = posts.flatMap((p) => p.events).filter((x) => x.message === 'quiet left');
  assert.equal(left.length, 1, 'stored once');
  assert.equal(left[0].frame_id, 0, 'as the top frame\'s');
});

test('settings from GET /capture/config apply to pages and to the worker', async () => {
  config = { version: 2, redact_headers: false, body_cap: 1000, kinds: { log: false, error: true, network: true, action: true, nav: true, vital: true } };
  // The next accepted batch carries config_version 2, which makes the worker re-read the config.
  await send({ type: CAPTURE_MESSAGE, batch: 'b2', events: [log('before')] }, contentScript);
  await until('the new settings are read', () => capture.settings().version === 2);
  const [, reply] = await send({ type: CAPTURE_MESSAGE, batch: 'b3', events: [log('switched off')] }, contentScript);
  assert.deepEqual(reply.config, { version: 2, body_cap: 1000, kinds: config.kinds });
  api.webRequest.onSendHeaders.listeners[0]({ requestId: 'r1', tabId: 12, frameId: 0, method: 'GET', url: 'https://shop.test/api', type: 'xmlhttprequest', timeStamp: 1, requestHeaders: [{ name: 'Authorization', value: 'Bearer keep' }] });
  api.webRequest.onBeforeRequest.listeners[0]({ requestId: 'r2', tabId: 12, frameId: 2, method: 'GET', url: 'https://shop.test/x', type: 'xmlhttprequest', timeStamp: 1 });
  api.webRequest.onSendHeaders.listeners[0]({ requestId: 'r2', tabId: 12, frameId: 2, method: 'GET', url: 'https://shop.test/x', type: 'xmlhttprequest', timeStamp: 1, requestHeaders: [{ name: 'Authorization', value: 'Bearer keep' }] });
  api.webRequest.onCompleted.listeners[0]({ requestId: 'r2', tabId: 12, frameId: 2, method: 'GET', url: 'https://shop.test/x', type: 'xmlhttprequest', timeStamp: 5, statusCode: 404 });
  await until('the browser event is posted', () => posts.some((p) => p.events.some((e) => e.request_id === 'r2')));
  const net = posts.flatMap((p) => p.events).find((e) => e.request_id === 'r2');
  assert.deepEqual(net.request_headers, { Authorization: 'Bearer keep' }, 'redaction switched off by the user');
  assert.equal(net.page_url, 'https://shop.test/cart', 'page_url learned from the content script sender of that frame');
  assert.equal(posts.flatMap((p) => p.events).some((e) => e.message === 'switched off'), false);
});

test('tab events', async () => {
  api.tabs.onActivated.listeners[0]({ tabId: 12, windowId: 1 });
  await until('the activated event is posted', () => posts.some((p) => p.events.some((e) => e.kind === 'tab' && e.type === 'activated')));
  const e = posts.flatMap((p) => p.events).find((x) => x.kind === 'tab');
  assert.equal(e.page_url, 'https://shop.test/');
  assert.equal(e.title, 'Shop');
});

test('after pushState, page_url is the document\'s new URL from webNavigation', async () => {
  api.webNavigation.onHistoryStateUpdated.listeners[0]({ tabId: 12, frameId: 2, documentId: 'doc-1', url: 'https://shop.test/cart?step=2' });
  const error = (message) => ({ kind: 'error', ts: 1, type: 'uncaught', message }); // logs are switched off by now
  await send({ type: CAPTURE_MESSAGE, batch: 'b9', events: [error('after push')] }, contentScript);
  await send({ type: CAPTURE_MESSAGE, batch: 'b10', events: [error('other document')] }, { ...contentScript, documentId: 'doc-2', url: 'https://shop.test/other' });
  await until('the events are posted', () => posts.flatMap((p) => p.events).filter((e) => e.message === 'after push' || e.message === 'other document').length === 2);
  const all = posts.flatMap((p) => p.events);
  assert.equal(all.find((e) => e.message === 'after push').page_url, 'https://shop.test/cart?step=2');
  assert.equal(all.find((e) => e.message === 'other document').page_url, 'https://shop.test/other');
});

test('a flush answer longer than one message is taken whole, nothing counted dropped', async () => {
  const n = 1200; // a relay hands back up to its whole queue (2000) in one flush answer
  const events = Array.from({ length: n }, (_, i) => ({ kind: 'error', ts: 1, type: 'uncaught', message: `flood ${i}` }));
  api.tabs.sendMessage = async () => ({ ok: true, events, timers: 0, due_ms: 0, requests: 0 });
  const before = posts.length;
  assert.ok(await capture.flushFrame(12, { frameId: 0 }));
  await until('the flushed events are posted', () => posts.slice(before).flatMap((p) => p.events).filter((e) => e.message?.startsWith('flood ')).length === n);
  const lost = posts.slice(before).reduce((sum, p) => sum + (p.dropped?.error || 0) + (p.dropped_by_tab?.[12]?.error || 0), 0);
  assert.equal(lost, 0, 'no flushed record counted dropped');
  delete api.tabs.sendMessage;
});

test('a page\'s drop counts and its invalid records are posted as its tab\'s', async () => {
  const before = posts.length;
  await send({ type: CAPTURE_MESSAGE, batch: 'b11', dropped: { error: 4 }, events: [{ kind: 'error', ts: 'not a time' }] }, contentScript);
  await until('the counts are posted', () => posts.slice(before).some((p) => p.dropped_by_tab?.[12]));
  const p = posts.slice(before).find((x) => x.dropped_by_tab?.[12]);
  assert.deepEqual(p.dropped_by_tab, { 12: { error: 5 } });
  assert.deepEqual(p.dropped, {}, 'nothing counted as of no known tab');
});

test('a flush gets no more than the time it is given', async () => {
  let asked = 0;
  api.tabs.sendMessage = () => {
    asked++;
    return new Promise(() => {}); // a frame that never answers
  };
  api.webNavigation.getAllFrames = async () => [{ frameId: 0 }];
  assert.deepEqual((await capture.flushTab(12, { totalMs: 0 })).complete, false, 'no time: nothing asked, capture incomplete');
  assert.equal(asked, 0);
  const t0 = Date.now();
  const r = await capture.flushTab(12, { settleMs: 5000, totalMs: 60 });
  assert.ok(Date.now() - t0 < 1000, `took ${Date.now() - t0} ms of a 60 ms budget`);
  assert.equal(r.complete, false);
  delete api.tabs.sendMessage;
  delete api.webNavigation.getAllFrames;
});

test('a web frame without a relay is incomplete capture, not complete', async () => {
  api.tabs.sendMessage = async (tabId, msg, { frameId }) => {
    if (frameId === 4) throw new Error('Could not establish connection. Receiving end does not exist.');
    return { ok: true, events: [], timers: 0, due_ms: 0, requests: 0 };
  };
  api.webNavigation.getAllFrames = async () => [{ frameId: 0, url: 'https://shop.test/' }, { frameId: 4, url: 'https://ads.test/f' }, { frameId: 6, url: 'chrome-extension://x/y.html' }];
  const r = await capture.flushTab(12);
  assert.equal(r.complete, false);
  assert.equal(r.missing.length, 1);
  assert.match(r.missing[0], /frame 4 has no capture relay/);
  api.webNavigation.getAllFrames = async () => [{ frameId: 0, url: 'https://shop.test/' }];
  assert.deepEqual(await capture.flushTab(12), { complete: true });
  delete api.tabs.sendMessage;
  delete api.webNavigation.getAllFrames;
});

test('a flush given the frames its action looked up once it was done flushes those, without asking Chrome again', async () => {
  const asked = [];
  api.tabs.sendMessage = async (tabId, msg, opts) => {
    asked.push(opts);
    return { ok: true, events: [], timers: 0, due_ms: 0, requests: 0 };
  };
  let looked = 0;
  api.webNavigation.getAllFrames = async () => {
    looked++;
    return [{ frameId: 0, documentId: 'top', url: 'https://shop.test/' }];
  };
  const frames = Promise.resolve([{ frameId: 0, documentId: 'top', url: 'https://shop.test/' }, { frameId: 3, documentId: 'ad', url: 'https://ads.test/f' }]);
  assert.deepEqual(await capture.flushTab(12, { frames }), { complete: true });
  assert.equal(looked, 0, 'getAllFrames asked again');
  assert.deepEqual(asked, [{ documentId: 'top' }, { documentId: 'ad' }], 'every frame the action saw is flushed');
  asked.length = 0;
  assert.deepEqual(await capture.flushTab(12), { complete: true });
  assert.equal(looked, 1, 'without frames, the flush asks Chrome');
  assert.deepEqual(asked, [{ documentId: 'top' }]);
  delete api.tabs.sendMessage;
  delete api.webNavigation.getAllFrames;
});

test('a flush notes its tab once: an unchanged tab is not posted again after every command, a changed one is', async () => {
  api.tabs.sendMessage = async () => ({ ok: true, events: [], timers: 0, due_ms: 0, requests: 0 });
  api.webNavigation.getAllFrames = async () => [{ frameId: 0, url: 'https://shop.test/' }];
  const noted = (from) => posts.slice(from).flatMap((p) => p.events).filter((e) => e.kind === 'tab' && e.tab_id === 21);
  const tabs = { 21: { id: 21, url: 'https://shop.test/a', title: 'A', status: 'complete' } };
  const get = api.tabs.get;
  api.tabs.get = async (id) => tabs[id] ?? get(id);
  const before = posts.length;
  assert.deepEqual(await capture.flushTab(21), { complete: true });
  assert.equal(noted(before).length, 1, 'the first flush notes the tab');
  assert.deepEqual(await capture.flushTab(21), { complete: true });
  assert.deepEqual(await capture.flushTab(21), { complete: true });
  assert.equal(noted(before).length, 1, 'unchanged: noted once');
  tabs[21] = { ...tabs[21], title: 'A, renamed' };
  assert.deepEqual(await capture.flushTab(21), { complete: true });
  assert.deepEqual(noted(before).map((e) => e.title), ['A', 'A, renamed'], 'a changed tab is noted again');
  capture.forgetNotedTabs(); // the daemon could not be reached: a new one knows no tab
  assert.deepEqual(await capture.flushTab(21), { complete: true });
  assert.equal(noted(before).length, 3, 'noted again to a daemon that may be new');
  api.tabs.onRemoved.listeners[0](21, { windowId: 1 });
  tabs[21] = { ...tabs[21] };
  assert.deepEqual(await capture.flushTab(21), { complete: true });
  assert.deepEqual(noted(before).map((e) => e.type), ['updated', 'updated', 'updated', 'removed', 'updated'], 'after removed, it is noted afresh');
  api.tabs.get = get;
  delete api.tabs.sendMessage;
  delete api.webNavigation.getAllFrames;
});

test('a web or file subframe\'s load is recorded from its commit; the top frame\'s and blank frames\' come from the page', async () => {
  const committed = api.webNavigation.onCommitted.listeners[0];
  committed({ tabId: 12, frameId: 7, documentId: 'doc-7', url: 'https://ads.test/frame?id=1', timeStamp: 1700000000000.4 });
  committed({ tabId: 12, frameId: 0, documentId: 'doc-top', url: 'https://shop.test/top-commit', timeStamp: 1 });
  committed({ tabId: 12, frameId: 8, documentId: 'doc-8', url: 'about:blank', timeStamp: 1 });
  committed({ tabId: 12, frameId: 9, documentId: 'doc-9', url: 'chrome-extension://gasoline/overlay/note.html', timeStamp: 1 });
  committed({ tabId: -1, frameId: 3, url: 'https://prerender.test/', timeStamp: 1 });
  await until('the subframe load is posted', () => posts.some((p) => p.events.some((e) => e.kind === 'nav' && e.frame_id === 7)));
  const navs = posts.flatMap((p) => p.events).filter((e) => e.kind === 'nav');
  assert.deepEqual(navs.map((e) => [e.tab_id, e.frame_id, e.type, e.to, e.page_url, e.ts, 'from' in e]),
    [[12, 7, 'load', 'https://ads.test/frame?id=1', 'https://ads.test/frame?id=1', 1700000000000, false]]);
});

test('a worker stopped while a page is in the back/forward cache: what the page sends again at its restore is stored once', async () => {
  const error = (message) => ({ kind: 'error', ts: 1, type: 'uncaught', message }); // logs are switched off by now
  const top = { ...contentScript, frameId: 0, documentId: 'doc-restart', url: 'https://shop.test/restart', documentLifecycle: 'active' };
  await send({ type: CAPTURE_MESSAGE, batch: 'h:1', events: [error('restart: in flight')] }, top);
  await send({ type: CAPTURE_MESSAGE, batch: 'h:2', events: [error('restart: at pagehide')] }, { ...top, frameId: 5, documentLifecycle: 'cached' });
  await until('the first worker delivered what it holds', () => posts.some((p) => p.events.some((e) => e.message === 'restart: at pagehide')) &&
    ![...store.keys()].some((k) => k.startsWith('capture:chunk:') || k.startsWith('capture:post:')));

  // The worker stops; a new one starts, with the same session storage.
  const { startCapture: startAgain } = await import('../capture/worker.js?restarted');
  const again = { ...api, runtime: { ...api.runtime, onMessage: event() }, storage: { ...api.storage, onChanged: event() },
    tabs: { ...api.tabs, onUpdated: event(), onRemoved: event(), onActivated: event() }, webRequest: undefined,
    webNavigation: { onHistoryStateUpdated: event(), onReferenceFragmentUpdated: event(), onCommitted: event() } };
  const posted = [];
  startAgain({ loadConfig: async () => ({ token: 't', port: 1 }), makeClient: () => ({ ...client, postEvents: async (body) => {
    posted.push(body);
    return { accepted: body.events.length, rejected: [], config_version: config.version };
  } }), api: again, log: { warn() {}, error() {} } });
  const sendAgain = (msg, sender) => new Promise((resolve) => again.runtime.onMessage.listeners[0](msg, sender, resolve));
  // Chrome wakes the worker for the restore's commit, before its storage answered.
  for (const f of again.webNavigation.onCommitted.listeners) f({ tabId: 12, frameId: 0, documentId: 'doc-restart', url: top.url, timeStamp: 2 });
  for (const [batch, message] of [['h:1', 'restart: in flight'], ['h:2', 'restart: at pagehide']]) {
    assert.equal((await sendAgain({ type: CAPTURE_MESSAGE, batch, events: [error(message)] }, top)).ok, true);
  }
  await sendAgain({ type: CAPTURE_MESSAGE, batch: 'h:3', events: [error('restart: restored')] }, top);
  await until('the restored page\'s record is posted', () => posted.some((p) => p.events.some((e) => e.message === 'restart: restored')));
  assert.deepEqual(posted.flatMap((p) => p.events).filter((e) => e.message.startsWith('restart: ')).map((e) => [e.message, e.frame_id]),
    [['restart: restored', 0]], 'what was sent before the restart is not stored again');
  await until('the document back in the page is no longer kept', () => !store.has('capture:left:doc-restart'));
});

test('only a document in the back/forward cache is kept in storage: one left for good is not', async () => {
  const gone = { ...contentScript, frameId: 0, documentId: 'doc-gone', url: 'https://shop.test/gone', documentLifecycle: 'active' };
  await send({ type: CAPTURE_MESSAGE, batch: 'k:1', events: [] }, gone);
  const [, reply] = await send({ type: CAPTURE_MESSAGE, batch: 'k:2', events: [] }, { ...gone, frameId: 6, documentLifecycle: 'pending_deletion' });
  assert.equal(reply?.ok, true); // the worker answers after the storage writes it makes for a batch are issued (the fake store applies them at the call)
  assert.equal(store.has('capture:left:doc-gone'), false, 'a page navigated away from for good is not written to storage');
});

test('the documents kept in storage are the last 100 kept, each once, however they come and go', async () => {
  const leftKeys = () => [...store.keys()].filter((k) => k.startsWith('capture:left:'));
  const cached = (doc, batch) => send({ type: CAPTURE_MESSAGE, batch, events: [] },
    { ...contentScript, frameId: 5, documentId: doc, url: 'https://shop.test/kept', documentLifecycle: 'cached' });
  // A document pushed out by 100 newer ones, then kept again (a second
  // pagehide batch): its key is counted again, and goes in its turn.
  await cached('doc-again', 'a:1');
  for (let i = 0; i < 100; i++) await cached(`doc-k${i}`, 'k:1');
  assert.equal(store.has('capture:left:doc-again'), false, 'pushed out by 100 newer documents');
  await cached('doc-again', 'a:2');
  for (let i = 100; i < 200; i++) await cached(`doc-k${i}`, 'k:1'); // each answered after its writes were issued
  assert.equal(store.has('capture:left:doc-again'), false, 'no key left behind');
  assert.equal(leftKeys().length, 100);
  // A document evicted from memory by 1000 others and kept again is counted
  // once: its key stays while it is among the last 100 kept.
  await cached('doc-evicted', 'e:1');
  for (let i = 0; i < 1001; i++) {
    await send({ type: CAPTURE_MESSAGE, batch: 'x:1', events: [] }, { ...contentScript, frameId: 3, documentId: `doc-busy-${i}` });
  }
  await cached('doc-evicted', 'e:2');
  for (let i = 200; i < 299; i++) await cached(`doc-k${i}`, 'k:1');
  assert.ok(store.has('capture:left:doc-evicted'), 'kept once, among the last 100');
  assert.equal(leftKeys().length, 100);
});

test('a page that enters the cache while its batch is being stored, sending nothing at pagehide, is kept when its tab commits another document', async () => {
  const error = (message) => ({ kind: 'error', ts: 1, type: 'uncaught', message }); // logs are switched off by now
  const top = { ...contentScript, tab: { id: 14 }, frameId: 0, documentId: 'doc-quiet', url: 'https://shop.test/quiet', documentLifecycle: 'active' };
  const calm = { ...top, tab: { id: 15 }, documentId: 'doc-calm', url: 'https://shop.test/calm' };
  await send({ type: CAPTURE_MESSAGE, batch: 'q:1', events: [error('quiet: answered')] }, top);
  await send({ type: CAPTURE_MESSAGE, batch: 'c:1', events: [error('calm: answered')] }, calm);
  const set = api.storage.session.set;
  let release, atGate;
  const gate = new Promise((r) => { release = r; });
  const storing = new Promise((r) => { atGate = r; });
  api.storage.session.set = async (items) => {
    if (Object.keys(items).some((k) => !k.startsWith('capture:left:'))) {
      atGate();
      await gate; // the batch's records are slow to store
    }
    return set(items);
  };
  const pending = send({ type: CAPTURE_MESSAGE, batch: 'q:2', events: [error('quiet: in flight')] }, top);
  await storing; // the batch is being stored
  const commit = (tabId, documentId, frameId = 0) => api.webNavigation.onCommitted.listeners.forEach((f) => f({ tabId, frameId, documentId, url: 'https://shop.test/next', timeStamp: 1 }));
  commit(14, 'doc-quiet-sub', 4); // a subframe's commit: the page is not left
  commit(15, 'doc-calm-next'); // another tab's page left with nothing being stored
  commit(14, 'doc-next');
  await until('the page left while its batch was being stored is kept', () => store.has('capture:left:doc-quiet'));
  assert.deepEqual(JSON.parse(store.get('capture:left:doc-quiet')), { frame: 0, batches: ['q:1', 'q:2'] });
  assert.equal(store.has('capture:left:doc-calm'), false, 'a page left with every batch answered is not written');
  release();
  api.storage.session.set = set;
  assert.equal((await pending)[1]?.ok, true);
});
