// har_bodies: the bodies a HAR export needs and the capture never kept
// (documents, scripts, stylesheets: webRequest sees them without bodies),
// read again from the HTTP cache in the page that loaded them, on export
// only, so no page pays for it as it loads; never from the network: an
// export must not send the user's requests again (a GET with a side effect
// served no-store would run twice). The daemon sends the URLs (internal/tools/observe_har.go).
// The same command reads the page's Resource Timing entries of the exported
// requests (their protocol and phase timings), also on export only.
// The re-reads are left out of the capture (hushRequests), so an export does
// not add requests to the next one.

/** HUSH_GRACE_MS is how long after the re-reads their late webRequest events are still left out. */
export const HUSH_GRACE_MS = 2000;

import { hushRequests } from '../capture/worker.js';
import { CommandError } from '../runner.js';
import { resolveTab } from '../tabs/resolve.js';

/**
 * harBodies resolves to {bodies: [{url, text, source, truncated} | {url,
 * error}], timings: [Timing]}: each of params.urls read in the ISOLATED
 * world of tab params.tab_id's top document, up to params.max_bytes bytes
 * each, and that document's Resource Timing entries of params.timings.
 */
export async function harBodies(params) {
  const tab = await resolveTab(params.tab_id);
  let r;
  const unhush = hushRequests(tab.id, params.urls);
  try {
    [r] = await chrome.scripting.executeScript({
      target: { tabId: tab.id, frameIds: [0] }, world: 'ISOLATED', func: readBodies, args: [params.urls, params.max_bytes ?? 262144, params.timings ?? []],
    });
  } catch (e) {
    throw new CommandError(`tab ${tab.id} cannot be scripted (${e?.message ?? e}); its bodies cannot be read again`);
  } finally {
    setTimeout(unhush, HUSH_GRACE_MS);
  }
  if (!r?.result) throw new CommandError(`tab ${tab.id} gave no answer; reload it and export again`);
  return r.result;
}

/**
 * Timing is one Resource Timing (or the navigation) entry as har.Timing
 * reads it: times in ms on the document's timeline, origin its
 * performance.timeOrigin, 0 where the browser hides a phase; fetch_start is
 * the final request's start after redirects.
 * @typedef {{url: string, origin: number, start: number, dns_start: number, dns_end: number, connect_start: number,
 *   connect_end: number, ssl_start: number, request_start: number, response_start: number, response_end: number, protocol: string,
 *   fetch_start: number, dcl: number, load: number}} Timing (dcl and load: a navigation entry's DOMContentLoaded and load event starts, else 0)
 */

/**
 * readBodies runs in the page (self-contained). First, the entries of the
 * page's performance timeline (navigation and resource) named in
 * timingURLs, at most MAX_TIMINGS, read before the re-reads add their own.
 * Then each URL of the page's own origin from the HTTP cache only
 * ("only-if-cached": never the network, the bytes the page was served,
 * source "cache"). An export never touches the site: a URL not in the
 * cache (served no-store, evicted) or of another origin (which
 * only-if-cached cannot read) is never fetched; its answer is an error
 * saying it was not captured. Text is cut at maxBytes bytes.
 */
export async function readBodies(urls, maxBytes, timingURLs = []) {
  const MAX_TIMINGS = 2000;
  const wanted = new Set(timingURLs);
  const timings = [];
  for (const e of [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]) {
    if (timings.length >= MAX_TIMINGS) break;
    if (!wanted.has(e.name)) continue;
    timings.push({
      url: e.name, origin: performance.timeOrigin, start: e.startTime, dns_start: e.domainLookupStart, dns_end: e.domainLookupEnd,
      connect_start: e.connectStart, connect_end: e.connectEnd, ssl_start: e.secureConnectionStart, request_start: e.requestStart,
      response_start: e.responseStart, response_end: e.responseEnd, protocol: e.nextHopProtocol || '',
      fetch_start: e.fetchStart,
      dcl: e.domContentLoadedEventStart ?? 0, load: e.loadEventStart ?? 0,
    });
  }
  const here = location.origin;
  const bodies = [];
  for (const url of urls) {
    let same = false;
    try {
      same = new URL(url).origin === here;
    } catch {
      bodies.push({ url, error: 'not a URL' });
      continue;
    }
    if (!same) {
      bodies.push({ url, error: 'not captured: of another origin than the tab shows now, and an export never fetches from the site; reload the page with the agent at work to capture it' });
      continue;
    }
    let res;
    try {
      // only-if-cached answers from the HTTP cache or fails (a network error): it never sends the request
      res = await fetch(url, { cache: 'only-if-cached', mode: 'same-origin', credentials: 'include' });
    } catch {
      bodies.push({ url, error: 'not captured: not in the browser\'s cache (served no-store, or evicted), and an export never fetches from the site' });
      continue;
    }
    try {
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const buf = await res.arrayBuffer();
      const cut = buf.byteLength > maxBytes;
      bodies.push({ url, source: 'cache', text: new TextDecoder().decode(cut ? buf.slice(0, maxBytes) : buf), truncated: cut });
    } catch (e) {
      bodies.push({ url, error: `not captured: the cached copy could not be read (${String(e?.message ?? e).slice(0, 200)})` });
    }
  }
  return { bodies, timings };
}
