// Capture events as the daemon receives them (apitype.Event,
// internal/apitype/events.go), and the worker's
// check of everything a page sends: the worker keeps only the fields of each
// kind, with their types, caps every string, stamps tab, frame and URL from
// Chrome's sender, and redacts credential headers. No chrome.* dependency.
// The fields of each kind, their types, caps and values are the capture
// event table's (apitype.EventSpecs), generated into fields.js.

import { SECRET_HEADERS, SECRET_VALUE } from './secrets.js';
import {
  KINDS, BROWSER_ONLY, SWITCHES, SWITCH, DEFAULT_BODY_CAP, MAX_BODY_CHARS, PAGE_URL_CHARS, HEADERS, LOCATOR_KINDS, LOCATOR_CHARS,
  FIELDS, REQUIRED, DEFAULTS,
} from './fields.js';

/** KINDS are the event kinds of POST /events; pages may send all but BROWSER_ONLY's. */
export { KINDS };

/** DEFAULT_SETTINGS are the capture settings until GET /capture/config answers. */
export const DEFAULT_SETTINGS = Object.freeze({
  version: 0,
  redact_headers: true,
  redact_names: Object.freeze([]),
  body_cap: DEFAULT_BODY_CAP,
  kinds: Object.freeze(Object.fromEntries(SWITCHES.map((k) => [k, true]))),
});

/**
 * MAX_BODY_CHARS bounds each of request_body and response_body whatever the
 * configured body cap, so one event always fits in a 1 MB POST /events.
 */
export { MAX_BODY_CHARS };

/** REDACTED replaces a redacted header value or a secret form value. */
export const REDACTED = '[redacted]';

/**
 * isSecretHeader reports whether a header holds a credential: its name
 * matches SECRET_HEADERS or one of extra (the daemon's added names, patterns
 * alike), or its value looks like a token (SECRET_VALUE). The rules are
 * generated from Go (capture.SecretHeaders), which applies them again.
 */
export function isSecretHeader(name, value, extra = []) {
  const n = name.trim().toLowerCase();
  const match = (p) => {
    const pre = p.startsWith('*');
    const suf = p.length > 1 && p.endsWith('*');
    const core = p.slice(pre ? 1 : 0, suf ? -1 : undefined);
    if (pre && suf) return n.includes(core);
    if (pre) return n.endsWith(core);
    if (suf) return n.startsWith(core);
    return n === core;
  };
  return SECRET_HEADERS.some(match) || extra.some(match) || SECRET_VALUE.test(value);
}

/** locatorOf is a recorded locator's known string fields, capped, or undefined when it is not one. */
function locatorOf(v) {
  if (!v || typeof v !== 'object' || !Object.hasOwn(LOCATOR_KINDS, v.by)) return undefined;
  const out = { by: v.by };
  for (const f of LOCATOR_KINDS[v.by]) {
    if (typeof v[f] !== 'string' || !v[f]) return undefined;
    out[f] = clip(v[f], LOCATOR_CHARS[f]);
  }
  return out;
}

/** clip shortens s to at most n characters, marking the cut with "…". */
export function clip(s, n) {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/**
 * redactHeaders returns a copy of a header object with at most HEADERS.count entries,
 * values capped, and credential headers (isSecretHeader, with the extra
 * names) replaced by "[redacted]" when redact is true. It accepts an
 * object or chrome.webRequest's [{name, value}] array; anything else is
 * undefined.
 */
export function redactHeaders(headers, redact = true, extra = []) {
  if (!headers || typeof headers !== 'object') return undefined;
  const pairs = Array.isArray(headers)
    ? headers.filter((h) => h && typeof h.name === 'string').map((h) => [h.name, typeof h.value === 'string' ? h.value : ''])
    : Object.entries(headers).filter(([, v]) => typeof v === 'string');
  const out = {};
  for (const [name, value] of pairs.slice(0, HEADERS.count)) {
    const k = clip(name, HEADERS.name);
    out[k] = redact && isSecretHeader(k, value, extra) ? REDACTED : clip(value, HEADERS.value);
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * sanitise returns the event the daemon should get from one page record,
 * or null when the record is not a valid event. stamp is {tab_id, frame_id,
 * page_url} from chrome.runtime.MessageSender, and replaces whatever the
 * record said; settings is the capture config (redaction, body cap, kinds).
 * A record of a kind switched off is null too: sanitiseReason says which.
 */
export function sanitise(raw, stamp, settings = DEFAULT_SETTINGS, { allowTab = false } = {}) {
  return sanitiseReason(raw, stamp, settings, { allowTab }).event;
}

/**
 * sanitiseReason is sanitise with the reason for a null: "off" (the kind is
 * switched off), or "invalid" with the kind when it was recognisable.
 */
export function sanitiseReason(raw, stamp, settings = DEFAULT_SETTINGS, { allowTab = false } = {}) {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { event: null, reason: 'invalid' };
  const kind = raw.kind;
  if (typeof kind !== 'string' || !Object.hasOwn(FIELDS, kind) || (BROWSER_ONLY.includes(kind) && !allowTab)) {
    return { event: null, reason: 'invalid' };
  }
  // a WebSocket's frames are network traffic: network's switch is theirs (SWITCH)
  if (settings.kinds?.[SWITCH[kind]] === false) return { event: null, reason: 'off', kind };
  const ts = Number.isFinite(raw.ts) && raw.ts > 0 ? raw.ts : Date.now();
  const event = {
    kind,
    ts,
    tab_id: Number.isSafeInteger(stamp?.tab_id) ? stamp.tab_id : -1,
    frame_id: Number.isSafeInteger(stamp?.frame_id) ? stamp.frame_id : 0,
    page_url: typeof stamp?.page_url === 'string' ? clip(stamp.page_url, PAGE_URL_CHARS) : '',
  };
  const bodyCap = Math.min(Number.isSafeInteger(settings.body_cap) && settings.body_cap >= 0 ? settings.body_cap : DEFAULT_SETTINGS.body_cap, MAX_BODY_CHARS);
  let truncated = false;
  for (const [name, type, rule] of FIELDS[kind]) {
    const v = raw[name];
    if (v === undefined || v === null) continue;
    switch (type) {
      case 'str':
        if (typeof v === 'string') event[name] = clip(v, rule);
        break;
      case 'body':
        if (typeof v === 'string') {
          if (v.length > bodyCap) truncated = true;
          event[name] = v.length > bodyCap ? v.slice(0, bodyCap) : v;
        }
        break;
      case 'enum':
        if (rule.includes(v)) event[name] = v;
        break;
      case 'int':
        if (Number.isSafeInteger(v)) event[name] = v;
        break;
      case 'num':
        if (Number.isFinite(v)) event[name] = v;
        break;
      case 'bool':
        if (typeof v === 'boolean') event[name] = v;
        break;
      case 'headers': {
        const h = redactHeaders(v, settings.redact_headers !== false, settings.redact_names ?? []);
        if (h) event[name] = h;
        break;
      }
      case 'locator': {
        const l = locatorOf(v);
        if (l) event[name] = l;
        break;
      }
      case 'mods':
        if (Array.isArray(v)) {
          const m = [...new Set(v.filter((x) => rule.includes(x)))];
          if (m.length) event[name] = m;
        }
        break;
      default:
        break;
    }
  }
  if (truncated) event.body_truncated = true;
  for (const [f, d] of Object.entries(DEFAULTS[kind] ?? {})) if (event[f] === undefined) event[f] = d;
  for (const f of REQUIRED[kind]) {
    if (event[f] === undefined) return { event: null, reason: 'invalid', kind };
  }
  return { event, reason: '' };
}

/** sizeOf is the length of an event's JSON, close to its size in a POST body. */
export function sizeOf(event) {
  return JSON.stringify(event).length;
}

/**
 * normaliseSettings turns a GET /capture/config answer into settings,
 * falling back to the defaults for anything missing or malformed.
 */
export function normaliseSettings(c) {
  const d = DEFAULT_SETTINGS;
  if (!c || typeof c !== 'object') return { ...d, kinds: { ...d.kinds } };
  const kinds = { ...d.kinds };
  if (c.kinds && typeof c.kinds === 'object') {
    for (const k of Object.keys(kinds)) if (typeof c.kinds[k] === 'boolean') kinds[k] = c.kinds[k];
  }
  return {
    version: Number.isSafeInteger(c.version) ? c.version : d.version,
    redact_headers: typeof c.redact_headers === 'boolean' ? c.redact_headers : d.redact_headers,
    body_cap: Number.isSafeInteger(c.body_cap) && c.body_cap >= 0 ? c.body_cap : d.body_cap,
    redact_names: Array.isArray(c.redact_names)
      ? c.redact_names.filter((n) => typeof n === 'string' && n).slice(0, 64).map((n) => n.toLowerCase())
      : [],
    kinds,
  };
}
