// The relay's checks of what the page sends (untrusted data: shape
// checked, sizes capped) and its choice of the next batch to the worker.
// Pure, for node --test.

export const KINDS = { log: 1, error: 1, network: 1, action: 1, nav: 1, vital: 1, websocket: 1 };
export const LIMITS = {
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
  gatherMs: 100, // how long a burst's first record waits for the rest (forward.js)
};
export const RETRY_MS = [250, 1000, 4000];

/** capString is s cut to n characters. */
function capString(s, n) {
  return s.length > n ? s.slice(0, n) : s;
}

/**
 * checkRecord returns a copy of one page record holding only plain data:
 * strings (capped), finite numbers, booleans, string arrays and
 * string-valued objects (headers). It returns null when the record is not
 * an object with a known kind. The worker validates each kind's fields.
 */
export function checkRecord(r) {
  if (!r || typeof r !== 'object' || Array.isArray(r)) return null;
  if (typeof r.kind !== 'string' || !Object.hasOwn(KINDS, r.kind)) return null;
  const out = {};
  let n = 0;
  for (const k of Object.keys(r)) {
    if (n++ >= LIMITS.fields) break;
    const v = r[k];
    // Other types (undefined, function, symbol, bigint) are left out.
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
export function checkMessage(m) {
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
export function takeBatch(queue, busy, charsOf) {
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

