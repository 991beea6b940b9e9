// The page's WebSockets, recorded at work only (the lean bundle leaves this
// module out: full.js imports it, lean.js does not). Pure: it hooks the
// window it is given (unit-tested under node with a fake one).
import {
  apply, construct, dom, keys, now, MathMin, MathRandom, ProxyCtor, StringCtor, strSlice, WeakMapCtor, wmGet, wmSet,
} from './builtins.js';
import { LIMITS } from './limits.js';
import { clip, utf8Length } from './text.js';

/** WSL bounds what hookWebSockets keeps: frames and bytes of text per connection, and of all of them. */
export const WSL = { frames: 500, bytes: 1048576, all: 5000, allBytes: 4194304 };

/**
 * hookWebSockets records what the page's WebSockets do as "websocket"
 * records through emit: "connect" (url), "open", each frame as "message"
 * (direction, size; text cut at cap(), binary frames as size only),
 * "close" (code, reason, frames_dropped) and "error". The constructor is
 * wrapped in a Proxy (same prototype, statics, name and instanceof), send
 * is wrapped on the prototype; our listeners only read. A connection keeps
 * at most WSL.frames frames and WSL.bytes of kept text, all of them WSL.all
 * frames and WSL.allBytes; frames past a bound are counted in frames_dropped. on()
 * says whether network capture is on.
 */
export function hookWebSockets(win, emit, on, cap, addListener) {
  const C = win.WebSocket;
  if (typeof C !== 'function' || !C.prototype) return;
  const P = C.prototype;
  const origSend = P.send;
  const get = (K, name) => dom(K, name, true) || ((o) => o[name]); // saved getters: a page may replace them
  const urlOf = get(C, 'url');
  const socks = new WeakMapCtor(); // socket -> its connection
  const { track, frame } = connections(emit, on, cap, addListener, socks, get(win.MessageEvent, 'data'), get(win.CloseEvent, 'code'), get(win.CloseEvent, 'reason'));
  const hooked = new ProxyCtor(C, {
    construct(target, args, newTarget) {
      const ws = construct(target, args, newTarget);
      try {
        if (on()) track(ws, urlOf(ws));
      } catch {
        // capture must never break the page
      }
      return ws;
    },
  });
  win.WebSocket = hooked;
  if (P.constructor === C) P.constructor = hooked; // WebSocket.prototype.constructor === WebSocket, as before
  if (typeof origSend === 'function') {
    P.send = {
      send(data) {
        const r = apply(origSend, this, arguments);
        try {
          const c = wmGet(socks, this);
          if (c) frame(c, 'sent', data);
        } catch {
          // ignore
        }
        return r;
      },
    }.send;
  }
}

/**
 * connections is hookWebSockets' record of connections: track(ws, url)
 * starts recording a socket (kept in socks), frame(c, direction, data)
 * records one of connection c's frames within the bounds.
 */
function connections(emit, on, cap, addListener, socks, dataOf, codeOf, reasonOf) {
  const ALL = { frames: 0, bytes: 0 };
  const rid = strSlice(StringCtor(MathRandom()), 2, 10);
  let n = 0;
  const sizeOf = (d) => {
    try {
      if (typeof d === 'string') return utf8Length(d);
      const s = d.byteLength ?? d.size;
      return typeof s === 'number' ? s : 0;
    } catch {
      return 0;
    }
  };
  const rec = (c, type, extra) => {
    const r = { kind: 'websocket', ts: now(), conn_id: c.id, type };
    if (extra) {
      const ks = keys(extra);
      for (let i = 0; i < ks.length; i++) r[ks[i]] = extra[ks[i]];
    }
    emit(r);
  };
  const frame = (c, direction, d) => {
    if (!on()) return;
    const text = typeof d === 'string';
    const max = cap();
    const len = text ? MathMin(d.length, max) : 0; // the text kept
    if (c.frames >= WSL.frames || ALL.frames >= WSL.all || c.bytes + len > WSL.bytes || ALL.bytes + len > WSL.allBytes) {
      c.dropped++;
      return;
    }
    c.frames++;
    ALL.frames++;
    c.bytes += len;
    ALL.bytes += len;
    const r = { direction, size: sizeOf(d) };
    if (!text) r.binary = true;
    else {
      r.text = d.length > max ? strSlice(d, 0, max) : d;
      if (d.length > max) r.body_truncated = true;
    }
    rec(c, 'message', r);
  };
  const track = (ws, url) => {
    const c = { id: 'w' + rid + '-' + ++n, frames: 0, bytes: 0, dropped: 0 };
    wmSet(socks, ws, c);
    rec(c, 'connect', { url: clip(StringCtor(url), LIMITS.url) });
    addListener(ws, 'open', () => on() && rec(c, 'open'));
    addListener(ws, 'message', (e) => {
      try {
        frame(c, 'received', dataOf(e));
      } catch {
        // ignore
      }
    });
    addListener(ws, 'error', () => on() && rec(c, 'error'));
    addListener(ws, 'close', (e) => {
      try {
        if (on()) rec(c, 'close', { code: codeOf(e), reason: clip(StringCtor(reasonOf(e)), 200), frames_dropped: c.dropped });
      } catch {
        // ignore
      }
    });
  };
  return { track, frame };
}
