// Unit tests of the origin rule (origins/rule.js): which origins are local,
// the user's list, and what each answer of the prompt does to the waiting
// command (allow once, always, deny, closed, unanswered).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALLOWED_KEY, ANSWER_MARGIN_MS, Origins, REASON, isLocal, originOf } from '../origins/rule.js';
import { CommandError } from '../runner.js';

test('local development origins and the ones the rule leaves alone', () => {
  for (const u of ['http://localhost:3000/x', 'https://app.localhost/', 'http://127.0.0.1:8080/', 'http://127.4.5.6/', 'http://[::1]:5173/', 'file:///home/u/a.html']) {
    assert.ok(isLocal(originOf(u)), u);
  }
  for (const u of ['https://shop.example/', 'http://localhost.evil.com/', 'http://128.0.0.1/', 'http://10.0.0.1/', 'http://127.0.0.1.nip.io/', 'https://mail.google.com/']) {
    assert.ok(!isLocal(originOf(u)), u);
  }
  assert.equal(originOf('https://shop.example:8443/a?b#c'), 'https://shop.example:8443');
  assert.equal(originOf('blob:https://bank.example/0f1e'), 'https://bank.example');
  for (const u of ['chrome://extensions/', 'about:blank', 'data:text/html,hi', 'not a url', '']) assert.equal(originOf(u), null, u);
});

// fixture: a fake storage, tabs and prompt; prompts lists what was asked.
function fixture(urls = {}) {
  const store = {};
  const prompts = [];
  const closedWindows = [];
  const waits = [];
  let n = 0;
  const origins = new Origins({
    storage: {
      get: async (k) => (k in store ? { [k]: structuredClone(store[k]) } : {}),
      set: async (o) => Object.assign(store, structuredClone(o)),
    },
    tabUrl: async (id) => urls[id] ?? '',
    ask: async (p) => {
      prompts.push(p);
      return 100 + prompts.length;
    },
    close: (w) => closedWindows.push(w),
    waiting: (query, origin) => waits.push([query.action, origin]),
    newId: () => `ask-${++n}`,
  });
  const ran = [];
  const run = origins.gate(async (query) => {
    ran.push(query.action);
    return { ok: true };
  });
  return { origins, store, prompts, closedWindows, waits, ran, run };
}

const tick = () => new Promise((r) => setTimeout(r, 0));
const q = (action, params, extra = {}) => ({ action, params, client: 'c1', client_name: 'claude-code', ...extra });

test('local pages and tab management run without asking', async () => {
  const f = fixture({ 1: 'http://127.0.0.1:4000/a', 2: 'https://shop.example/' });
  assert.deepEqual(await f.run(q('execute_js', { tab_id: 1, script: '1' })), { ok: true });
  await f.run(q('navigate', { tab_id: 2, url: 'http://localhost:3000/' }));
  await f.run(q('switch_tab', { tab_id: 2 }));
  await f.run(q('close_tab', { tab_id: 2 }));
  await f.run(q('execute_js', { tab_id: 3, script: '1' })); // unknown tab: nothing to judge
  assert.equal(f.prompts.length, 0);
  assert.deepEqual(f.ran, ['execute_js', 'navigate', 'switch_tab', 'close_tab', 'execute_js']);
});

test('allow once runs this command only; the next asks again', async () => {
  const f = fixture({ 2: 'https://shop.example/cart' });
  const first = f.run(q('execute_js', { tab_id: 2, script: '1' }));
  await tick();
  assert.deepEqual(f.prompts, [{ id: 'ask-1', origin: 'https://shop.example', agent: 'claude-code' }]);
  assert.equal(f.ran.length, 0, 'the command waits for the user');
  assert.deepEqual(f.waits, [['execute_js', 'https://shop.example']], 'its status says so');
  assert.equal(f.origins.answer('ask-1', 'once'), true);
  assert.deepEqual(await first, { ok: true });
  assert.deepEqual(f.closedWindows, [101]);
  assert.equal(f.origins.answer('ask-1', 'once'), false, 'an answered prompt takes no second answer');
  assert.deepEqual(f.store, {});

  const second = f.run(q('click', { tab_id: 2 }));
  await tick();
  assert.equal(f.prompts.length, 2, 'allow once does not carry over to the next command');
  f.origins.answer('ask-2', 'once');
  await second;
  assert.deepEqual(f.ran, ['execute_js', 'click']);
  assert.deepEqual(f.waits, [['execute_js', 'https://shop.example'], ['execute_js', ''], ['click', 'https://shop.example'], ['click', '']]);
});

test('always allow stores the origin: later commands run without asking, until revoked', async () => {
  const f = fixture({ 2: 'https://shop.example/cart' });
  const first = f.run(q('execute_js', { tab_id: 2 }));
  await tick();
  f.origins.answer('ask-1', 'always');
  await first;
  assert.ok('https://shop.example' in f.store[ALLOWED_KEY]);
  await f.run(q('get_text', { tab_id: 2 }));
  await f.run(q('navigate', { tab_id: 2, url: 'https://shop.example/other' }));
  assert.equal(f.prompts.length, 1);
  await f.origins.revoke('https://shop.example');
  const again = f.run(q('get_text', { tab_id: 2 }));
  await tick();
  assert.equal(f.prompts.length, 2);
  f.origins.answer('ask-2', 'deny');
  await assert.rejects(again, (e) => e instanceof CommandError && e.reason === REASON);
});

test('a tab that went to another origin while the user answered fails as navigated; one that stayed on it, or went local, runs', async () => {
  for (const [to, runs] of [['https://shop.example/paid', true], ['http://127.0.0.1:4000/', true], ['https://evil.example/', false]]) {
    const urls = { 2: 'https://shop.example/cart' };
    const f = fixture(urls);
    const cmd = f.run(q('click', { tab_id: 2 }));
    await tick();
    urls[2] = to; // the page moved on while the prompt was open
    f.origins.answer('ask-1', 'once');
    if (runs) {
      assert.deepEqual(await cmd, { ok: true }, to);
      assert.deepEqual(f.ran, ['click']);
    } else {
      await assert.rejects(cmd, (e) => e instanceof CommandError && e.reason === 'navigated' && /went to https:\/\/evil\.example while the user was answering the prompt about https:\/\/shop\.example/.test(e.message));
      assert.deepEqual(f.ran, [], 'it never ran in the page the user was not asked about');
    }
  }
});

test('deny and a closed prompt fail with origin_not_allowed and a hint', async () => {
  const f = fixture({ 2: 'https://bank.example/' });
  const denied = f.run(q('execute_js', { tab_id: 2 }));
  await tick();
  f.origins.answer('ask-1', 'deny');
  await assert.rejects(denied, (e) => e.reason === REASON && /the user denied it/.test(e.message) && /gasoline popup/.test(e.message));
  const closed = f.run(q('new_tab', { url: 'https://bank.example/login' }));
  await tick();
  f.origins.closed(102);
  await assert.rejects(closed, (e) => e.reason === REASON && /closed the prompt/.test(e.message));
  assert.deepEqual(f.ran, []);
  assert.deepEqual(f.waits.map((w) => w[1]), ['https://bank.example', 'https://bank.example'], 'a denied command fails: no "answered" post');
  assert.equal(f.origins.answer('ask-1', 'always'), false);
  assert.equal(f.origins.answer('x', 'maybe'), false);
  assert.deepEqual(f.store, {});
});

test('unanswered: the command fails before its deadline and the prompt closes', async () => {
  const f = fixture({ 2: 'https://shop.example/' });
  const t0 = Date.now();
  const p = f.run(q('execute_js', { tab_id: 2 }, { timeout_ms: ANSWER_MARGIN_MS + 50 }));
  await assert.rejects(p, (e) => e.reason === REASON && /did not answer/.test(e.message));
  assert.ok(Date.now() - t0 < 1000);
  assert.deepEqual(f.closedWindows, [101]);
});

test('commands of one agent on one origin share one prompt; an abort stops waiting', async () => {
  const f = fixture({ 2: 'https://shop.example/', 3: 'https://shop.example/b' });
  const a = f.run(q('execute_js', { tab_id: 2 }));
  const b = f.run(q('click', { tab_id: 3 }));
  await tick();
  assert.equal(f.prompts.length, 1);
  f.origins.answer('ask-1', 'once');
  await Promise.all([a, b]);
  const ctl = new AbortController();
  const c = f.origins.gate(async () => 'ran')(q('click', { tab_id: 2 }), ctl.signal);
  await tick();
  ctl.abort();
  await assert.rejects(c, (e) => e.reason === REASON);
  assert.equal(f.origins.asking.size, 0);
});

test('a page cannot answer: only the prompt id the worker made, from the prompt page, counts', async () => {
  const f = fixture({ 2: 'https://shop.example/' });
  const p = f.run(q('execute_js', { tab_id: 2, script: 'allow shop.example' }));
  await tick();
  assert.equal(f.origins.answer('https://shop.example', 'always'), false);
  assert.equal(f.origins.answer('', 'always'), false);
  f.origins.answer('ask-1', 'deny');
  await assert.rejects(p);
  assert.deepEqual(f.store, {});
});

test("the terminal's allows ('gasoline allow') are stored before a command's check reads the list", async () => {
  const f = fixture({ 2: 'https://shop.example/' });
  f.origins.allowFromTerminal(['https://shop.example', 'chrome://settings', 'file:///etc/passwd', 42 + '']);
  assert.deepEqual(await f.run(q('execute_js', { tab_id: 2 })), { ok: true });
  assert.equal(f.prompts.length, 0);
  assert.deepEqual(Object.keys(f.store[ALLOWED_KEY]), ['https://shop.example']);
});

test('capture: what pages of origins not allowed do is withheld; local, allowed and tab events pass', async () => {
  const { AllowedCache } = await import('../origins/rule.js');
  const store = { [ALLOWED_KEY]: { 'https://docs.example': { at: 1 } } };
  let listener;
  const cache = new AllowedCache({ get: async (k) => ({ [k]: store[k] }) }, { addListener: (f) => (listener = f) });
  await cache.ready;
  const ev = (kind, page_url) => ({ kind, page_url });
  assert.equal(cache.withholds(ev('network', 'https://bank.example/account')), true);
  assert.equal(cache.withholds(ev('log', 'https://bank.example/')), true);
  assert.equal(cache.withholds(ev('network', 'http://127.0.0.1:3000/')), false);
  assert.equal(cache.withholds(ev('network', 'https://docs.example/a')), false);
  assert.equal(cache.withholds(ev('tab', 'https://bank.example/')), false);
  assert.equal(cache.withholds(ev('nav', 'about:blank')), false);
  store[ALLOWED_KEY] = {};
  listener({ [ALLOWED_KEY]: {} }, 'local');
  await cache.ready;
  assert.equal(cache.withholds(ev('network', 'https://docs.example/a')), true, 'a removed origin is withheld again');
});
