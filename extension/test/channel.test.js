// Unit tests of actions/channel.js (the isolated world's end of dialogs.js's
// channel) with dialogs.js, each in a vm context of its own standing in
// for its world, both on one window (an EventTarget).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import vm from 'node:vm';

const DIALOGS = fs.readFileSync(new URL('../dist/dialogs.js', import.meta.url), 'utf8');
const CHANNEL = fs.readFileSync(new URL('../actions/channel.js', import.meta.url), 'utf8');

class FocusEvent extends Event {
  constructor(type, init = {}) {
    super(type, init);
    this.relatedTarget = init.relatedTarget ?? null;
  }
}

/** worlds loads channel.js (isolated) and dialogs.js (main) in the order given. */
function worlds(order, readyState = 'loading') {
  const target = new EventTarget();
  const on = {
    addEventListener: target.addEventListener.bind(target),
    removeEventListener: target.removeEventListener.bind(target),
    dispatchEvent: target.dispatchEvent.bind(target),
    CustomEvent, Event, FocusEvent, EventTarget,
  };
  const nativeCalls = [];
  const main = vm.createContext({
    ...on,
    document: { createElement: () => new EventTarget() },
    navigator: { userActivation: { hasBeenActive: false } },
    alert: (m) => { nativeCalls.push(['alert', m]); },
    confirm: (m) => { nativeCalls.push(['confirm', m]); return true; },
    prompt: (m) => { nativeCalls.push(['prompt', m]); return 'typed'; },
  });
  main.window = main;
  const sent = [];
  const isolated = vm.createContext({ ...on, performance, document: { readyState }, chrome: { runtime: { sendMessage: async (m) => { sent.push(m); } } } });
  for (const w of order) {
    if (w === 'channel') vm.runInContext(CHANNEL, isolated, { filename: 'channel.js' });
    else vm.runInContext(DIALOGS, main, { filename: 'dialogs.js' });
  }
  return { main, channel: isolated.gasolineChannel, startEnd: isolated.gasolineStartEnd, sent, nativeCalls };
}

for (const order of [['channel', 'dialogs'], ['dialogs', 'channel']]) {
  test(`${order.join(' then ')}: the channel is taken, native dialogs are told to the worker, arm answers the next`, () => {
    const w = worlds(order);
    assert.ok(w.startEnd > 0, 'taking the channel marks when our start scripts were done (perf/collect.js)');
    assert.equal(worlds(order, 'complete').startEnd, undefined, 'brought in after the page loaded: the page\'s scripts ran first, no mark');
    const heard = [];
    w.channel.on('dialog', (e) => heard.push(JSON.parse(e.detail).type));
    assert.equal(w.main.confirm('Sure?'), true, 'unarmed: the user answers natively');
    assert.deepEqual(w.nativeCalls, [['confirm', 'Sure?']]);
    assert.deepEqual(JSON.parse(JSON.stringify(w.sent)), [
      { gasoline: 'dialog', showing: true, type: 'confirm', message: 'Sure?' },
      { gasoline: 'dialog', showing: false, type: 'confirm', message: 'Sure?' },
    ]);
    assert.deepEqual(heard, ['confirm', 'confirm'], 'a listener added before the channel was taken hears it too');

    const ack = w.channel.arm({ dialog: 'accept', text: 'Ada', window_ms: 5000 });
    assert.equal(ack.recent.length, 1);
    assert.equal(w.main.prompt('Name?'), 'Ada', 'armed: answered without showing');
    assert.equal(w.nativeCalls.length, 1);
    assert.equal(w.sent.length, 2, 'an answered dialog is not a native one');
  });
}

test('send says whether the channel is held; arm without dialogs.js is null', () => {
  const w = worlds(['channel']);
  assert.equal(w.channel.send('acting', { on: true }), false);
  assert.equal(w.channel.arm({ dialog: 'accept', window_ms: 10 }), null);
});

test('acting() is the last "acting" the runtime sent through the channel (capture/relay.js reads it)', () => {
  const w = worlds(['channel', 'dialogs']);
  assert.equal(w.channel.acting(), false, 'before any action');
  assert.equal(w.channel.send('acting', { on: true, dialog: 'accept' }), true);
  assert.equal(w.channel.acting(), true);
  w.channel.send('acting', { on: false });
  assert.equal(w.channel.acting(), false);
});

test('acting() stays false when the channel was never taken (nothing reached dialogs.js)', () => {
  const w = worlds(['channel']);
  assert.equal(w.channel.send('acting', { on: true }), false);
  assert.equal(w.channel.acting(), false);
});

test('a late report reaches the worker only as a popup with its url (to 2 KB), never with the page\'s words', () => {
  const w = worlds(['channel']);
  const node = new EventTarget();
  w.main.dispatchEvent(new FocusEvent('gasoline:channel', { relatedTarget: node, cancelable: true }));
  const say = (d) => node.dispatchEvent(new CustomEvent('dialog', { detail: JSON.stringify(d) }));
  say({ type: 'confirm', message: 'Delete all data?', answered: 'accepted', late: true });
  const long = 'https://shop.test/' + 'a'.repeat(1500);
  say({ type: 'popup', message: long, answered: 'forged advice', late: true });
  assert.deepEqual(JSON.parse(JSON.stringify(w.sent)), [{ gasoline: 'dialog', late: true, type: 'popup', message: long }]);
});

test('channel.js brought late hands itself to every script that started without it (the recorder and the DOM runtime)', () => {
  const target = new EventTarget();
  const got = [];
  const isolated = vm.createContext({
    addEventListener: target.addEventListener.bind(target),
    removeEventListener: target.removeEventListener.bind(target),
    dispatchEvent: target.dispatchEvent.bind(target),
    CustomEvent, Event, FocusEvent, EventTarget, performance,
    document: { readyState: 'complete' },
    chrome: { runtime: { sendMessage: async () => {} } },
  });
  isolated.gasolineChannelLate = [(c) => got.push(['recorder', c]), (c) => got.push(['runtime', c])];
  vm.runInContext(CHANNEL, isolated, { filename: 'channel.js' });
  assert.deepEqual(got.map(([who]) => who), ['recorder', 'runtime']);
  assert.ok(got.every(([, c]) => c === isolated.gasolineChannel));
});
