// ISOLATED-world relay: at document_start in the frames capture/declared.js registers,
// before the MAIN-world capture (capture/main/; registration order), in the extension's isolated world. It takes
// the private MessagePort the MAIN-world script hands over, treats everything
// that arrives on it as untrusted data (shape checked, sizes capped), and
// forwards it to the worker in batches with chrome.runtime.sendMessage. The
// worker's reply acknowledges a batch (it is then stored in the worker) and
// carries the capture settings, which the relay passes back to the page
// script.
//
// Handshake: this script listens for one "gasoline:capture-port"
// MessageEvent on window, takes its first port, cancels the event (the page
// script reads that as "accepted") and stops listening. If the page script
// ran first, the "gasoline:capture-hello" event this script dispatches makes
// it send the port again. Both scripts run before any page script, so the
// first port is the extension's.
//
// Messages (see extension/README.md, "Capture"):
//   page script -> relay (port):  CaptureMessage {events: [record], dropped?: {kind: n}}
//   relay -> page script (port):  {config: {version, body_cap, kinds}}
//   relay -> worker:              {type: "gasoline.capture", batch, events, dropped?}
//   worker -> relay (reply):      {ok: true, config} | {ok: false, error}
//   capture/record.js -> relay:   gasolineRecord(record), in this world
//
// Under node (no document) it installs nothing and exposes checkMessage as
// globalThis.gasolineRelayKit for the unit tests.
(function gasolineRelay(global) {
  'use strict';

  const KINDS = { log: 1, error: 1, network: 1, action: 1, nav: 1, vital: 1, websocket: 1 };
  const LIMITS = {
    eventsPerMessage: 200, // records accepted from one port message
    string: 16384, // any string field but bodies
    body: 1048576, // request_body / response_body / a WebSocket frame's text (the page caps them at body_cap first)
    fields: 40, // fields per record
    headers: 64,
    queue: 2000, // records waiting for the worker
    queueChars: 4000000, // approximate characters waiting for the worker
    rateChars: 1000000, // approximate characters per second one frame sends on its own (a flush takes all)
    batchEvents: 100, // records per message to the worker
    batchChars: 600000, // approximate characters per message to the worker
    gatherMs: 100, // how long a burst's first record waits for the rest (below)
  };
  const RETRY_MS = [250, 1000, 4000];

  function capString(s, n) {
    return s.length > n ? s.slice(0, n) : s;
  }

  /**
   * checkRecord returns a copy of one page record holding only plain data:
   * strings (capped), finite numbers, booleans, string arrays and
   * string-valued objects (headers). It returns null when the record is not
   * an object with a known kind. The worker validates each kind's fields.
   */
  function checkRecord(r) {
    if (!r || typeof r !== 'object' || Array.isArray(r)) return null;
    if (typeof r.kind !== 'string' || !Object.hasOwn(KINDS, r.kind)) return null;
    const out = {};
    let n = 0;
    for (const k of Object.keys(r)) {
      if (n++ >= LIMITS.fields) break;
      const v = r[k];
      switch (typeof v) {
        case 'string':
          out[k] = capString(v, k === 'request_body' || k === 'response_body' || (k === 'text' && r.kind === 'websocket') ? LIMITS.body : LIMITS.string);
          break;
        case 'number':
          if (Number.isFinite(v)) out[k] = v;
          break;
        case 'boolean':
          out[k] = v;
          break;
        case 'object':
          if (Array.isArray(v)) {
            out[k] = v.slice(0, 8).filter((x) => typeof x === 'string').map((x) => capString(x, 64));
          } else if (v) {
            const h = {};
            let m = 0;
            for (const hk of Object.keys(v)) {
              if (m++ >= LIMITS.headers) break;
              if (typeof v[hk] === 'string') h[capString(hk, 256)] = capString(v[hk], 4096);
            }
            out[k] = h;
          }
          break;
        default:
          break;
      }
    }
    return out;
  }

  /**
   * checkMessage validates one port message: {events: [...], dropped?:
   * {kind: n}}. It returns {events, dropped, rejected} where rejected counts
   * records that were not data, or null when the message is not a capture
   * message at all.
   */
  function checkMessage(m) {
    if (!m || typeof m !== 'object' || !Array.isArray(m.events)) return null;
    const events = [];
    const dropped = {};
    let rejected = 0;
    const list = m.events;
    for (let i = 0; i < list.length; i++) {
      if (i >= LIMITS.eventsPerMessage) {
        const k = list[i] && typeof list[i].kind === 'string' && Object.hasOwn(KINDS, list[i].kind) ? list[i].kind : null;
        if (k) dropped[k] = (dropped[k] || 0) + 1;
        else rejected++;
        continue;
      }
      const r = checkRecord(list[i]);
      if (r) events.push(r);
      else rejected++;
    }
    if (m.dropped && typeof m.dropped === 'object') {
      for (const k of Object.keys(KINDS)) {
        const n = m.dropped[k];
        if (Number.isSafeInteger(n) && n > 0 && n < 1e9) dropped[k] = (dropped[k] || 0) + n;
      }
    }
    return { events, dropped, rejected };
  }

  /**
   * takeBatch takes from the front of queue, in order, the records of the
   * next batch to the worker: at most LIMITS.batchEvents records and
   * LIMITS.batchChars characters (by charsOf; one larger record goes alone),
   * none of a request (request_id) in busy. Those stay behind, in order:
   * while the page is left batches go side by side and may land in either
   * order, and a record that completes another (body_update) must not reach
   * the worker before it. It returns {events, rest, chars}: the records
   * taken, the queue without them, and their characters.
   */
  function takeBatch(queue, busy, charsOf) {
    const events = [];
    const behind = []; // records of busy requests before the batch's end
    let chars = 0;
    let i = 0;
    // Only the records up to the batch's end are walked: the queue after it
    // is copied as it is (a paced page's queue may hold thousands).
    for (; i < queue.length; i++) {
      const r = queue[i];
      const size = charsOf(r);
      if (events.length >= LIMITS.batchEvents || (events.length > 0 && chars + size > LIMITS.batchChars)) break;
      if (r.request_id !== undefined && busy.has(r.request_id)) {
        behind.push(r);
      } else {
        chars += size;
        events.push(r);
      }
    }
    return { events, rest: behind.concat(queue.slice(i)), chars };
  }

  if (typeof document === 'undefined') {
    global.gasolineRelayKit = { checkMessage, checkRecord, takeBatch, LIMITS }; // node unit tests only
    return;
  }
  // gasolineRelay marks this world as relayed (tabs/reach.js looks for it);
  // a second copy brought in late leaves the first to relay.
  if (global.gasolineRelay) return;
  Object.defineProperty(global, 'gasolineRelay', { value: true });

  const PORT_EVENT = 'gasoline:capture-port';
  const HELLO_EVENT = 'gasoline:capture-hello';
  let port = null;

  const onPort = (e) => {
    if (port) return;
    const p = e.ports && e.ports[0];
    if (!p) return;
    e.stopImmediatePropagation();
    e.preventDefault();
    port = p;
    Object.defineProperty(global, 'gasolineCaptureLinked', { value: true }); // the MAIN-world capture is here (tabs/reach.js)
    removeEventListener(PORT_EVENT, onPort, true);
    port.onmessage = onPageMessage;
  };
  addEventListener(PORT_EVENT, onPort, true);
  if (!port) dispatchEvent(new CustomEvent(HELLO_EVENT, { cancelable: true }));

  // --- forwarding to the worker ---------------------------------------------------
  const frame = Math.random().toString(36).slice(2, 10);
  let batchSeq = 0;
  let queue = []; // checked records waiting
  let queueChars = 0;
  // A noisy page is paced: after a batch of c characters the next goes
  // c / rateChars seconds later, so one tab's flood does not fill the
  // browser's message routing and the worker ahead of the agent's
  // commands; what does not fit in the queue meanwhile is dropped, oldest
  // first, and counted.
  let nextAt = 0;
  let paceTimer = null;
  // Records come one by one (a load's nav, console lines, vitals,
  // requests) and every message to the worker costs the page's main
  // thread (cloning, IPC, the reply's continuation): the first record of
  // a burst waits up to gatherMs for the rest, unless they fill a batch.
  // The worker's flush (before an action's result, a settle, a read) and
  // leaving the page take what waits at once; an agent's observe with
  // wait_ms sees a record at most gatherMs later. A user's action (kind
  // "action", capture/record.js) does not wait for a gathering (only for a
  // batch in flight and the pacing), and takes what gathered before it: each frame has a relay of its own, and the worker stores
  // records as they come, so a click in one frame gathered behind a click
  // in another would be listed after it (and a test made from the
  // recording would replay them out of order).
  let gatherAt = 0; // when the records waiting go (pacing permitting)
  const charsOf = (r) => (r.request_body?.length || 0) + (r.response_body?.length || 0) + (r.message?.length || 0) + (r.stack?.length || 0) + 200;
  let dropped = {}; // counts not yet delivered to the worker
  let droppedAny = false;
  const flying = new Set(); // batches sent, not yet stored or given up: one, or more while the page is left
  let landed = []; // resolvers of flushes waiting for every batch in flight to be stored or given up
  let dead = false; // the extension was reloaded or removed: this script is orphaned
  let leaving = false; // from pagehide till pageshow: nothing is paced (below)
  let configVersion = null;

  function countDropped(kind, n) {
    dropped[kind] = (dropped[kind] || 0) + n;
    droppedAny = true;
  }

  function onPageMessage(e) {
    if (dead) return;
    const d = e.data;
    if (d && typeof d === 'object' && typeof d.flushed === 'number') {
      flushed(d);
      return;
    }
    const m = checkMessage(d);
    if (!m) return;
    for (const k of Object.keys(m.dropped)) countDropped(k, m.dropped[k]);
    for (const r of m.events) enqueue(r);
    send();
  }

  function enqueue(r) {
    if (r.kind === 'action') {
      gatherAt = Date.now();
      if (paceTimer) { // set for the gathering's end: send() sets it again for the pacing alone
        clearTimeout(paceTimer);
        paceTimer = null;
      }
    } else if (!queue.length) gatherAt = Date.now() + LIMITS.gatherMs;
    queue.push(r);
    queueChars += charsOf(r);
    while (queue.length > LIMITS.queue || (queueChars > LIMITS.queueChars && queue.length > 1)) {
      const old = queue.shift();
      queueChars -= charsOf(old);
      countDropped(old.kind, 1);
    }
  }

  // gasolineRecord takes one record from this world's own recorder
  // (capture/record.js: user actions), checked like the page's, unless the
  // capture settings switched its kind off.
  let kinds = {};
  Object.defineProperty(global, 'gasolineRecord', {
    value: (rec) => {
      const r = dead ? null : checkRecord(rec);
      if (!r || kinds[r.kind] === false) return;
      enqueue(r);
      send();
    },
  });

  // sendBatch sends the next batch, without records of the requests in
  // busy (takeBatch), unless there is nothing to send; it returns the batch.
  function sendBatch(busy) {
    const { events, rest, chars } = takeBatch(queue, busy, charsOf);
    if (!events.length && !droppedAny) return null;
    queue = rest;
    queueChars -= chars;
    nextAt = Date.now() + (chars * 1000) / LIMITS.rateChars;
    const batch = { type: 'gasoline.capture', batch: `${frame}:${++batchSeq}`, events };
    if (droppedAny) {
      batch.dropped = dropped;
      dropped = {};
      droppedAny = false;
    }
    flying.add(batch);
    deliver(batch, 0);
    return batch;
  }

  function send() {
    if (dead) return;
    if (leaving) {
      sendAll();
      return;
    }
    if (flying.size || (!queue.length && !droppedAny)) return;
    const full = queue.length >= LIMITS.batchEvents || queueChars >= LIMITS.batchChars;
    const wait = (full ? nextAt : Math.max(nextAt, gatherAt)) - Date.now();
    if (wait > 0) {
      if (!paceTimer) {
        paceTimer = setTimeout(() => {
          paceTimer = null;
          send();
        }, wait);
      }
      return;
    }
    sendBatch(new Set());
  }

  // --- leaving the page ----------------------------------------------------------
  // No timer runs in a page that is gone, so a record made as it is left
  // (record.js's last action at pagehide, what the page script sends then)
  // would wait behind pacing or a batch in flight for ever. From pagehide
  // (this listener comes before record.js's and the MAIN-world capture's: this
  // script is injected first) pacing is off and every record goes at once,
  // beside the batches in flight but for those of their requests
  // (takeBatch), which follow them as usual if the page lives on.
  //
  // A page back from the back/forward cache is paced again, and what was
  // in flight as it entered the cache is sent again: Chrome closed those
  // messages' channels, so their answers never come (nothing would be
  // sent after them, and a flush would wait for them for ever). The worker
  // acknowledges a batch it stored already without storing it twice (its
  // id, under the frame the document had while active: capture/worker.js);
  // the answers and retries of the sends before are ignored.
  //
  // Only the browser's own pagehide and pageshow count: the page can
  // dispatch its own (untrusted) to turn pacing off or have every batch
  // in flight sent again, over and over.
  //
  // A link the agent followed as the page was left is not followed again:
  // a page back from the cache answers the next flush as not navigating.
  let shown = 0; // restores from the back/forward cache: a delivery of an earlier one is void
  addEventListener('pagehide', (e) => {
    if (!e.isTrusted) return;
    leaving = true;
    send();
  }, true);
  addEventListener('pageshow', (e) => {
    if (!e.isTrusted) return;
    leaving = false;
    if (!e.persisted || dead) return;
    shown++;
    navEvent = null;
    flying.forEach((b) => deliver(b, 0));
    send();
  }, true);

  function sendAll() {
    const busy = new Set();
    const note = (b) => b.events.forEach((r) => busy.add(r.request_id));
    flying.forEach(note);
    for (let b; (b = sendBatch(busy));) note(b);
  }

  function deliver(batch, attempt) {
    const at = shown;
    let sent;
    try {
      sent = chrome.runtime.sendMessage(batch);
    } catch (err) {
      orphaned(err);
      return;
    }
    sent.then((reply) => {
      if (at !== shown) return;
      if (!reply || reply.ok !== true) throw new Error(reply?.error?.message || 'the worker did not take the batch');
      acknowledged(batch, reply);
    }).catch((err) => {
      if (at !== shown) return;
      if (/context invalidated/i.test(String(err?.message))) {
        orphaned(err);
        return;
      }
      if (attempt < RETRY_MS.length) {
        setTimeout(() => at === shown && deliver(batch, attempt + 1), RETRY_MS[attempt]);
        return;
      }
      // Give up on this batch but say so: its records count as dropped.
      for (const r of batch.events) countDropped(r.kind, 1);
      if (batch.dropped) for (const k of Object.keys(batch.dropped)) countDropped(k, batch.dropped[k]);
      land(batch);
      setTimeout(send, RETRY_MS[RETRY_MS.length - 1]);
    });
  }

  // --- flush on the worker's request ---------------------------------------------------
  // Before an action's result is reported the worker asks each frame of
  // the tab for what it recorded: this script asks the page script over the
  // port (FIFO, so its records arrive first), then answers with every
  // record waiting here, which the worker stores itself, and the page
  // script's count of short timers still to run.
  //   worker -> relay:  {gasoline: "capture", op: "flush", polls?}
  //   relay -> worker:  {ok: true, events, dropped?, timers, due_ms, requests, action_requests, navigating, streams?}
  const FLUSH_WAIT_MS = 150; // a page script that does not answer by then is left out
  // A form submitted or a link followed during an action navigates a
  // moment later (the browser starts it in a later task): the answer says
  // so, and the worker waits for the navigation to begin. This world sees
  // the runtime's "acting" signal (below) and the page's events directly.
  let navEvent = null;
  // The runtime's "acting" on/off goes to dialogs.js through channel.js
  // (this world, declared right after this script; actions/dialogs.js),
  // which keeps the last one: read it there, rather than listen on the
  // channel too (one listener less for every frame to set up).
  const acting = () => globalThis.gasolineChannel?.acting?.() === true;
  addEventListener('submit', (e) => {
    if (acting()) navEvent = e;
  }, true);
  addEventListener('click', (e) => {
    if (!acting()) return;
    const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
    if (!a || a.hasAttribute('download')) return;
    const target = a.getAttribute('target');
    const href = a.getAttribute('href') || '';
    if ((target && target !== '_self') || href.startsWith('#') || /^javascript:/i.test(href)) return;
    navEvent = e;
  }, true);
  const willNavigate = () => {
    const e = navEvent;
    navEvent = null;
    return Boolean(e) && !e.defaultPrevented;
  };
  let flushSeq = 0;
  const flushing = new Map(); // flush number -> resolve

  function flushed(d) {
    const done = flushing.get(d.flushed);
    if (!done) return;
    flushing.delete(d.flushed);
    const count = (n) => (Number.isSafeInteger(n) && n > 0 ? Math.min(n, 1e6) : 0);
    done({ timers: count(d.timers), due_ms: Number.isFinite(d.due_ms) && d.due_ms > 0 ? Math.min(d.due_ms, 60000) : 0,
      requests: count(d.requests), action_requests: count(d.action_requests), streams: streamsOf(d.streams) });
  }

  // streamsOf keeps of the page's long-lived requests (not counted in
  // requests) at most 5 well-formed {method, url, kind}.
  const STREAM_KINDS = ['sse', 'stream', 'long poll'];
  function streamsOf(list) {
    if (!Array.isArray(list)) return [];
    return list.slice(0, 5).filter((r) => typeof r?.method === 'string' && typeof r.url === 'string' && STREAM_KINDS.includes(r.kind))
      .map((r) => ({ method: r.method.slice(0, 16), url: r.url.slice(0, 300), kind: r.kind }));
  }

  // polls: the long polls the worker knows of this origin (capture/polls.js), for the page's count
  function askPage(polls) {
    if (!port) return Promise.resolve({ timers: 0, due_ms: 0, page: false });
    const n = ++flushSeq;
    return new Promise((resolve) => {
      flushing.set(n, resolve);
      setTimeout(() => {
        if (flushing.delete(n)) resolve({ timers: 0, due_ms: 0, page: false });
      }, FLUSH_WAIT_MS);
      try {
        port.postMessage({ flush: n, polls });
      } catch {
        flushing.delete(n);
        resolve({ timers: 0, due_ms: 0, page: false });
      }
    });
  }

  // A flush answer goes once no batch is in flight (the page's answer to
  // askPage may have started one): Chrome does not keep a batch and a later
  // flush answer in order, and records out of order split one request in
  // two (a body update stored before the record it completes). While a
  // flush waits, an acknowledgement sends no next batch: the answer takes
  // the queue.
  async function noneInFlight() {
    while (flying.size) await new Promise((resolve) => landed.push(resolve));
  }
  function land(batch) {
    if (batch) flying.delete(batch);
    else flying.clear();
    if (flying.size) return;
    const waiting = landed;
    landed = [];
    for (const resolve of waiting) resolve();
  }

  chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
    // Only the worker: content scripts cannot call tabs.sendMessage.
    if (sender.id !== chrome.runtime.id || msg?.gasoline !== 'capture' || msg.op !== 'flush') return false;
    const at = shown;
    askPage(msg.polls).then(async (page) => {
      await noneInFlight();
      // Asked before the page entered the back/forward cache: the answer's
      // channel is closed, so what waits goes in batches.
      if (at !== shown) return send();
      const events = queue.splice(0, LIMITS.queue);
      queueChars = 0;
      const reply = { ok: !dead, events, timers: page.timers, due_ms: page.due_ms, requests: page.requests ?? 0,
        action_requests: page.action_requests ?? 0, navigating: willNavigate(), page: page.page !== false };
      if (page.streams?.length) reply.streams = page.streams;
      if (droppedAny) {
        reply.dropped = dropped;
        dropped = {};
        droppedAny = false;
      }
      sendResponse(reply);
    });
    return true;
  });

  function acknowledged(batch, reply) {
    const flushing = landed.length > 0;
    land(batch);
    const c = reply.config;
    if (c && typeof c.kinds === 'object' && c.kinds) kinds = c.kinds;
    if (c && typeof c === 'object' && c.version !== configVersion && port) {
      configVersion = c.version;
      try {
        port.postMessage({ config: { version: c.version, body_cap: c.body_cap, kinds: c.kinds } });
      } catch {
        // the page script is gone
      }
    }
    if (!flushing) send();
  }

  function orphaned() {
    dead = true;
    queue = [];
    queueChars = 0;
    land();
    if (port) {
      port.onmessage = null;
      port.close();
    }
  }
})(globalThis);
