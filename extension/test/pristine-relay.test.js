// Unit tests of the ISOLATED-world end of pristine.js's private channel
// (pristine-relay.js): which port it takes, when it says its answers come
// from the page's built-ins, and one request's round trip to pristine.js's
// request handler. The window is an EventTarget of this process; the relay
// runs in its own realm (node:vm), as an isolated world does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { PAGE_RUN_SOURCE, scriptSources } from '../page.js';

const RELAY = readFileSync(new URL('../pristine-relay.js', import.meta.url), 'utf8');
const PRISTINE = readFileSync(new URL('../dist/pristine.js', import.meta.url), 'utf8');
const EVENT = 'gasoline:pristine-port';

// isolatedWorld runs the relay in a realm whose window is win and whose
// document is loading (with scripts, when the page has run some).
function isolatedWorld({ readyState = 'loading', scripts = 0 } = {}) {
  const win = new EventTarget();
  const ctx = vm.createContext({
    document: { readyState, getElementsByTagName: (t) => (t === 'script' ? { length: scripts } : { length: 0 }) },
    addEventListener: win.addEventListener.bind(win),
    removeEventListener: win.removeEventListener.bind(win),
  });
  vm.runInContext(RELAY, ctx);
  return { win, relay: vm.runInContext('gasolinePristineRelay', ctx) };
}

// pristineEnd answers on port as pristine.js does, with its request handler.
function pristineEnd(port) {
  const ctx = vm.createContext({});
  vm.runInContext(PRISTINE, ctx);
  const kit = vm.runInContext('gasolinePristineKit', ctx);
  port.onmessage = (e) => kit.handle(e.data, (r) => port.postMessage([e.data[0], r]));
}

// hand dispatches pristine.js's event with a new port on win (node's
// MessageEvent is never cancelable, so the event is a plain one with ports).
const hand = (win) => {
  const ch = new MessageChannel();
  const e = Object.defineProperty(new Event(EVENT, { cancelable: true }), 'ports', { value: [ch.port2] });
  const accepted = !win.dispatchEvent(e);
  return { port: ch.port1, accepted };
};

test('the relay takes the first port, cancels its event and takes no other', async () => {
  const { win, relay } = isolatedWorld();
  assert.equal(relay.connected(), false);
  assert.deepEqual({ ...(await relay.run(PAGE_RUN_SOURCE, '1', '1', 100)) }, { ok: false, kind: 'no_pristine' });
  const first = hand(win);
  assert.equal(first.accepted, true);
  assert.equal(relay.connected(), true);
  const second = hand(win);
  assert.equal(second.accepted, false, 'a second port was taken');
  pristineEnd(first.port);
  const { body, expr } = scriptSources('[6 * 7, "x"]');
  const r = await relay.run(PAGE_RUN_SOURCE, body, expr, 1000);
  assert.deepEqual(JSON.parse(JSON.stringify([r.ok, r.value, r.builtins])), [true, [42, 'x'], 'pristine']);
  first.port.close();
  second.port.close();
});

test('a relay brought in after the page\'s scripts, or marked late, says the built-ins are the page\'s', async (t) => {
  const cases = [
    { name: 'loaded document', world: { readyState: 'complete' }, mark: false },
    { name: 'loading document with scripts', world: { scripts: 2 }, mark: false },
    { name: 'marked late by the worker', world: {}, mark: true },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const { win, relay } = isolatedWorld(c.world);
      if (c.mark) relay.markLate();
      const { port } = hand(win);
      pristineEnd(port);
      const r = await relay.run(PAGE_RUN_SOURCE, '1', '1', 100);
      assert.equal(r.builtins, 'page');
      port.close();
    });
  }
});

test('a second copy of the relay leaves the first to relay', () => {
  const win = new EventTarget();
  const ctx = vm.createContext({
    document: { readyState: 'loading', getElementsByTagName: () => ({ length: 0 }) },
    addEventListener: win.addEventListener.bind(win),
    removeEventListener: win.removeEventListener.bind(win),
  });
  vm.runInContext(RELAY, ctx);
  const first = vm.runInContext('gasolinePristineRelay', ctx);
  vm.runInContext(RELAY, ctx);
  assert.equal(vm.runInContext('gasolinePristineRelay', ctx), first);
  const { port, accepted } = hand(win);
  assert.equal(accepted, true);
  assert.equal(first.connected(), true);
  port.close();
});

test('a late relay says the built-ins are the page\'s even when a page that took the port answers "pristine"', async (t) => {
  for (const c of [{ name: 'loaded document', world: { readyState: 'complete' } }, { name: 'marked late', world: {}, mark: true }]) {
    await t.test(c.name, async () => {
      const { win, relay } = isolatedWorld(c.world);
      if (c.mark) relay.markLate();
      const { port } = hand(win);
      t.after(() => port.close());
      port.onmessage = (e) => port.postMessage([e.data[0], { ok: true, value: 'forged', type: 'string', builtins: 'pristine' }]);
      const r = await relay.run(PAGE_RUN_SOURCE, '1', '1', 100);
      assert.deepEqual(JSON.parse(JSON.stringify(r)), { ok: true, value: 'forged', type: 'string', builtins: 'page' });
    });
  }
  await t.test('on time, the answer is passed as it came', async () => {
    const { win, relay } = isolatedWorld();
    const { port } = hand(win);
    t.after(() => port.close());
    port.onmessage = (e) => port.postMessage([e.data[0], { ok: true, value: 1, builtins: 'pristine' }]);
    const r = await relay.run(PAGE_RUN_SOURCE, '1', '1', 100);
    assert.equal(r.builtins, 'pristine');
  });
});
