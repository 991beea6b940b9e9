// The MAIN-world WebSocket hook (capture/main/websocket.js hookWebSockets) on a fake
// WebSocket: what it records, its bounds, and that the page's socket behaves
// as before (constructor identity, instanceof, send's result and errors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadModules } from './capture-dom.js';

const kit = await loadModules('websocket.js');
const addListener = Function.prototype.call.bind(EventTarget.prototype.addEventListener);

/** fakeWindow is a window with a WebSocket that records what send got and can be made to receive. */
function fakeWindow() {
  class FakeWebSocket extends EventTarget {
    static OPEN = 1;
    constructor(url) {
      super();
      this.url = String(url);
      this.readyState = 0;
      this.sent = [];
    }
    send(d) {
      if (this.readyState !== 1) throw new Error('InvalidStateError');
      this.sent.push(d);
      return undefined;
    }
    open() {
      this.readyState = 1;
      this.dispatchEvent(new Event('open'));
    }
    receive(data) {
      const e = new Event('message');
      e.data = data;
      this.dispatchEvent(e);
    }
    close(code, reason) {
      const e = new Event('close');
      Object.assign(e, { code, reason });
      this.dispatchEvent(e);
    }
  }
  return { WebSocket: FakeWebSocket };
}

function hook({ on = true, cap = 10 } = {}) {
  const win = fakeWindow();
  const Orig = win.WebSocket;
  const recs = [];
  const state = { on, cap };
  kit.hookWebSockets(win, (r) => recs.push(r), () => state.on, () => state.cap, addListener);
  return { win, Orig, recs, state };
}

test('records connect, open, frames both ways, binary as size, close with code and reason', () => {
  const { win, recs } = hook();
  const ws = new win.WebSocket('ws://127.0.0.1:1/chat');
  ws.open();
  ws.send('hello');
  ws.receive('héllo back');
  ws.receive(new ArrayBuffer(7));
  ws.send(new Uint8Array(3));
  ws.receive('x'.repeat(25));
  ws.close(1000, 'bye');
  const id = recs[0].conn_id;
  const strip = recs.map(({ ts, conn_id: c, kind, ...r }) => {
    assert.equal(kind, 'websocket');
    assert.equal(c, id);
    assert.ok(ts > 0);
    return r;
  });
  assert.deepEqual(strip, [
    { type: 'connect', url: 'ws://127.0.0.1:1/chat' },
    { type: 'open' },
    { type: 'message', direction: 'sent', size: 5, text: 'hello' },
    { type: 'message', direction: 'received', size: 11, text: 'héllo back' },
    { type: 'message', direction: 'received', size: 7, binary: true },
    { type: 'message', direction: 'sent', size: 3, binary: true },
    { type: 'message', direction: 'received', size: 25, text: 'x'.repeat(10), body_truncated: true },
    { type: 'close', code: 1000, reason: 'bye', frames_dropped: 0 },
  ]);
});

test('the socket behaves as before: identity, instanceof, send result and errors', () => {
  const { win, Orig } = hook();
  const WS = win.WebSocket;
  assert.equal(WS.prototype, Orig.prototype);
  assert.equal(WS.OPEN, 1);
  assert.equal(WS.name, 'FakeWebSocket');
  const ws = new WS('ws://x/');
  assert.ok(ws instanceof WS);
  assert.ok(ws instanceof Orig);
  assert.equal(ws.constructor, WS);
  assert.throws(() => ws.send('early'), /InvalidStateError/);
  ws.open();
  assert.equal(ws.send('a'), undefined);
  assert.deepEqual(ws.sent, ['a']);
  assert.equal(WS.prototype.send.name, 'send');
  assert.equal(WS.prototype.send.length, 1);
  class Sub extends WS {}
  assert.ok(new Sub('ws://y/') instanceof Orig);
});

test('a connection keeps at most WSL.frames frames and says how many it dropped', () => {
  const { win, recs } = hook();
  const ws = new win.WebSocket('ws://x/');
  ws.open();
  const n = kit.WSL.frames + 7;
  for (let i = 0; i < n; i++) ws.receive(`m${i}`);
  ws.close(1006, '');
  const frames = recs.filter((r) => r.type === 'message');
  assert.equal(frames.length, kit.WSL.frames);
  assert.equal(frames.at(-1).text, `m${kit.WSL.frames - 1}`);
  assert.equal(recs.at(-1).frames_dropped, 7);
  // Another connection has its own bound.
  const ws2 = new win.WebSocket('ws://y/');
  ws2.open();
  ws2.send('z');
  assert.equal(recs.at(-1).text, 'z');
});

test('a connection keeps at most WSL.bytes of text: what is kept counts, not what was sent', () => {
  const { win, recs, state } = hook({ cap: 600000 });
  const ws = new win.WebSocket('ws://x/');
  ws.open();
  ws.receive('a'.repeat(600000));
  ws.receive('b'.repeat(600000)); // 1.2 MB kept would pass the bound
  state.cap = 10;
  ws.receive('c'.repeat(600000)); // 10 characters kept
  ws.close(1000, '');
  assert.deepEqual(recs.filter((r) => r.type === 'message').map((r) => r.text[0] + r.text.length), ['a600000', 'c10']);
  assert.equal(recs.at(-1).frames_dropped, 1);
});

test('with network capture off nothing is recorded and the socket still works', () => {
  const { win, recs, state } = hook({ on: false });
  const ws = new win.WebSocket('ws://x/');
  ws.open();
  ws.send('s');
  ws.receive('r');
  assert.deepEqual(recs, []);
  assert.deepEqual(ws.sent, ['s']);
  state.on = true;
  const ws2 = new win.WebSocket('ws://x/');
  state.on = false;
  ws2.open();
  ws2.receive('r');
  assert.equal(recs.length, 1); // its connect only
});
