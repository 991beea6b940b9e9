// interact({action:"screenshot"}): the visible part of a tab, the whole
// page, or one element, with chrome.tabs.captureVisibleTab (no debugger
// permission), downscaled in the worker so the longest side is at most
// max_dim (default 1568) and encoded as JPEG. A viewport that fits is
// captured as JPEG and sent as Chrome encoded it (no decode, no
// re-encode). A second request for a viewport that has not changed is
// served from the last capture (shotStamp and imaging.js's reusable say
// when), and a capture that had to wait for Chrome's quota says how long. The image travels as
// the result's "value" (base64), which the daemon turns into MCP image
// content; with full_resolution it is the captured PNG itself, which the
// daemon keeps behind a handle and shows fitted to ~1 600 image tokens
// (internal/tools/interact_screenshot.go holds that rule).
//
// An agent's tab that its own window does not show is brought to the front
// there first (hooks.reveal, tabs/owners.js), never in the user's window;
// a tab Chrome does not paint (its window minimized or entirely covered)
// is refused, since its capture would be an old image.

import { CommandError } from '../runner.js';
import { resolveTab } from '../tabs/resolve.js';
import { scale, fullPagePlan, MAX_PIXELS, jpegSize, pngSize, cacheable, reusable } from './imaging.js';
import { runtimeCall } from './dom.js';
import { targetOf } from './target.js';

/** CAPTURE_GAP_MS spaces captures: Chrome allows about two captureVisibleTab calls a second. */
const CAPTURE_GAP_MS = 550;

/** QUOTA_RETRY_MS is how long a capture refused for Chrome's quota waits before its one retry. */
const QUOTA_RETRY_MS = 1000;

// Captures run one at a time, each starting CAPTURE_GAP_MS after the last
// one ended (Chrome counts a call when its browser side runs, which a busy
// machine delays, so spacing from the end keeps within its quota).
let queue = Promise.resolve();
let lastCapture = 0; // when the last capture ended, ms

/**
 * captureAs returns a data URL of the visible part of tab in format
 * ('png', or 'jpeg' at quality 0..100), spacing calls as Chrome requires,
 * and how long it waited for that: {url, waited_ms, started}.
 */
export function captureAs(tab, format, quality) {
  const called = Date.now();
  const run = queue.then(async () => {
    let waited = false;
    for (let attempt = 0; ; attempt++) {
      const wait = lastCapture + CAPTURE_GAP_MS - Date.now();
      if (wait > 0) {
        waited = true;
        await new Promise((r) => setTimeout(r, wait));
      }
      const started = Date.now();
      try {
        const url = await chrome.tabs.captureVisibleTab(tab.windowId, format === 'png' ? { format } : { format, quality });
        return { url, waited_ms: waited || started - called > 5 ? started - called : 0, started };
      } catch (err) {
        const msg = String(err?.message || err);
        if (attempt === 0 && /MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND/.test(msg)) {
          lastCapture = Date.now() + QUOTA_RETRY_MS - CAPTURE_GAP_MS;
          continue;
        }
        throw new CommandError(`cannot capture tab ${tab.id}: ${msg}`);
      } finally {
        lastCapture = Math.max(lastCapture, Date.now());
      }
    }
  });
  queue = run.catch(() => {});
  return run;
}

/** capture returns a PNG data URL of the visible part of tab, spacing calls as Chrome requires. */
export async function capture(tab) {
  return (await captureAs(tab, 'png')).url;
}

/** bytesOf returns the bytes of a base64 string. */
function bytesOf(b64) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(b64);
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes;
}

// bitmapOf decodes a data URL (fetch cannot: the extension's CSP limits
// connect-src to the daemon).
export function bitmapOf(dataURL) {
  const comma = dataURL.indexOf(',');
  return createImageBitmap(new Blob([bytesOf(dataURL.slice(comma + 1))], { type: dataURL.slice(5, dataURL.indexOf(';')) }));
}

export async function base64Of(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  if (bytes.toBase64) return bytes.toBase64();
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** JPEG_QUALITY is the quality of a screenshot: small, and sharp enough to read text. */
const JPEG_QUALITY = 0.8;

/** SOURCE_QUALITY is the quality of a capture that is downscaled before it is encoded again. */
const SOURCE_QUALITY = 95;

/**
 * shotStamp runs in the page's isolated world (self-contained: it is
 * serialised). On first use in a document it starts a watcher that counts
 * the changes that can alter what the viewport shows (DOM mutations,
 * scroll, resize, loads, focus, input, hover, animations and transitions
 * starting, fonts), and waits two frames so that what came before is
 * painted; it returns a Stamp (imaging.js).
 */
async function shotStamp() {
  const K = Symbol.for('gasoline.shotWatch');
  let w = globalThis[K];
  if (!w) {
    w = globalThis[K] = { id: Math.random().toString(36).slice(2), gen: 0, changed_at: Date.now() };
    const bump = () => { w.gen++; w.changed_at = Date.now(); };
    new MutationObserver(bump).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    for (const t of ['scroll', 'resize', 'load', 'error', 'focusin', 'focusout', 'input', 'pointerover', 'pointerout',
      'animationstart', 'transitionrun', 'toggle', 'selectionchange']) {
      addEventListener(t, bump, { capture: true, passive: true });
    }
    document.fonts?.addEventListener?.('loadingdone', bump);
    const gen = w.gen;
    const framed = await Promise.race([
      new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true)))),
      new Promise((r) => setTimeout(() => r(false), 100)),
    ]);
    if (framed && w.gen === gen) w.changed_at = 0; // what came before is painted
  }
  const live = !!document.querySelector('canvas') ||
    [...document.querySelectorAll('video')].some((v) => !v.paused) ||
    (document.getAnimations?.() || []).some((a) => a.playState === 'running');
  return { id: w.id, gen: w.gen, changed_at: w.changed_at, live, w: innerWidth, h: innerHeight, x: scrollX, y: scrollY, dpr: devicePixelRatio,
    vis: document.visibilityState };
}

/** PAINT_WAIT_MS bounds the wait for a tab just brought to the front of its window to be painted. */
const PAINT_WAIT_MS = 1500;

/**
 * painted runs in the page's isolated world (self-contained: it is
 * serialised). It resolves to document.visibilityState, after waiting up
 * to waitMs for the page to become visible when wait is true, and then for
 * two frames so that what it shows is painted.
 */
async function painted(wait, waitMs) {
  if (!wait) return document.visibilityState;
  if (document.visibilityState !== 'visible') {
    await new Promise((r) => {
      document.addEventListener('visibilitychange', r, { once: true });
      setTimeout(r, waitMs);
    });
  }
  if (document.visibilityState !== 'visible') return document.visibilityState;
  await Promise.race([
    new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
    new Promise((r) => setTimeout(r, waitMs)),
  ]);
  return document.visibilityState;
}

/**
 * visibilityOf is the tab's document.visibilityState (after waiting for it
 * to be painted when wait is true), or null when no script may run there.
 */
async function visibilityOf(tab, wait) {
  try {
    const [r] = await chrome.scripting.executeScript({ target: { tabId: tab.id, frameIds: [0] }, world: 'ISOLATED', func: painted, args: [wait, PAINT_WAIT_MS] });
    return r?.result ?? null;
  } catch {
    return null;
  }
}

/** unpainted is the error for a tab Chrome does not paint. */
function unpainted(tab) {
  return new CommandError(`tab ${tab.id} is not painted: its window is minimized or entirely covered by other windows, ` +
    'and Chrome paints only what can be seen, so a screenshot would show an old image; ' +
    'ask the user to bring that window into view (it need not have the focus), then retry');
}

/** stampOf asks the top frame of tab for its Stamp; null when it cannot (a page scripts may not run in). */
async function stampOf(tab) {
  try {
    const [r] = await chrome.scripting.executeScript({ target: { tabId: tab.id, frameIds: [0] }, world: 'ISOLATED', func: shotStamp });
    return r?.result ?? null;
  } catch {
    return null;
  }
}

/**
 * last is the last viewport capture, kept to serve a second request for
 * the same unchanged viewport: {tabId, windowId, url, stamp, at, dataURL,
 * format, ready (a promise of whether it may be served again)}. One entry
 * bounds the memory it holds.
 */
let last = null;

/**
 * viewport captures what tab shows, or reuses the last capture when the
 * page says nothing changed since, and returns {dataURL, format, waited_ms,
 * reused, age_ms (the reused capture's age)}. wantPNG asks for a lossless
 * capture; a JPEG capture that will be downscaled is taken sharper.
 */
async function viewport(tab, wantPNG, maxDim, maxPixels) {
  const stamp = await stampOf(tab);
  const prev = last;
  if (prev && (!wantPNG || prev.format === 'png') && reusable(prev, tab, stamp, Date.now()) && await prev.ready) {
    return { dataURL: prev.dataURL, format: prev.format, waited_ms: 0, reused: true, age_ms: Date.now() - prev.at };
  }
  let format = 'png';
  let quality;
  if (!wantPNG) {
    // Send Chrome's JPEG as it is when the capture fits; else capture it
    // sharper, since it is encoded again after downscaling.
    const fits = !stamp || sameSize(scale(Math.round(stamp.w * stamp.dpr), Math.round(stamp.h * stamp.dpr), maxDim, maxPixels),
      Math.round(stamp.w * stamp.dpr), Math.round(stamp.h * stamp.dpr));
    format = 'jpeg';
    quality = fits ? Math.round(JPEG_QUALITY * 100) : SOURCE_QUALITY;
  }
  if (stamp?.vis === 'hidden') throw unpainted(tab);
  const shot = await captureAs(tab, format, quality);
  const entry = { tabId: tab.id, windowId: tab.windowId, url: tab.url, stamp, at: shot.started, dataURL: shot.url, format, ready: null };
  // Whether it may be served again is asked after the capture, off the
  // critical path: the next request awaits it.
  entry.ready = stamp ? stampOf(tab).then((after) => cacheable(stamp, after, shot.started)) : Promise.resolve(false);
  last = entry;
  return { dataURL: shot.url, format, waited_ms: shot.waited_ms, reused: false, age_ms: 0 };
}

const sameSize = (s, w, h) => s.width === w && s.height === h;

/**
 * screenshot captures the tab params name. The tab must be the one shown
 * in its window, and painted: without the debugger permission Chrome
 * captures only what is visible. An agent's tab in its own window is
 * brought to the front there (hooks.reveal) when it is not.
 */
export async function screenshot(params, signal, hooks = {}) {
  let tab = await resolveTab(params.tab_id);
  let checked = false; // whether the tab is known painted
  if (!tab.active) {
    const shown = await hooks.reveal?.(tab);
    if (!shown?.active) {
      throw new CommandError(`tab ${tab.id} is not the tab shown in its window, and Chrome lets extensions capture only what is visible; ` +
        `a tab you open with new_tab is in a window of your own, where screenshots leave the user's tab alone; ` +
        `else bring it to the front with interact({action:"switch_tab", tab_id:${tab.id}}) (the user sees it) and retry`);
    }
    tab = shown;
    if ((await visibilityOf(tab, true)) === 'hidden') throw unpainted(tab);
    checked = true;
  }
  const maxDim = params.max_dim ?? 1568; // 64 to 8000: the contract's bounds
  // max_dim given: the agent chose the size; else also the default token bound.
  const maxPixels = params.max_dim === undefined ? MAX_PIXELS : Infinity;
  const full = params.full_resolution === true;
  const facts = { waited_ms: 0, reused: false, age_ms: 0 };

  let canvas;
  const target = targetOf(params);
  if (!checked && (target || params.full_page === true) && (await visibilityOf(tab, false)) === 'hidden') throw unpainted(tab);
  if (target) {
    const { resp } = await runtimeCall(tab, params.frame, target, { op: 'act', action: 'scroll_to', opts: {}, timeout_ms: 3000 });
    const m = await runtimeCall(tab, params.frame, null, { op: 'metrics' });
    const got = await captureAs(tab, 'png');
    facts.waited_ms = got.waited_ms;
    const shot = await bitmapOf(got.url);
    const k = shot.width / m.resp.width; // device pixels per CSS pixel
    const b = resp.box;
    const x = Math.max(0, Math.round(b.x * k));
    const y = Math.max(0, Math.round(b.y * k));
    const w = Math.max(1, Math.min(shot.width - x, Math.round(b.w * k)));
    const h = Math.max(1, Math.min(shot.height - y, Math.round(b.h * k)));
    canvas = new OffscreenCanvas(w, h);
    canvas.getContext('2d').drawImage(shot, x, y, w, h, 0, 0, w, h);
  } else if (params.full_page === true) {
    canvas = await fullPage(tab, params, signal, facts);
  } else {
    const v = await viewport(tab, full, maxDim, maxPixels);
    Object.assign(facts, { waited_ms: v.waited_ms, reused: v.reused, age_ms: v.age_ms });
    const b64 = v.dataURL.slice(v.dataURL.indexOf(',') + 1);
    if (v.format === 'jpeg') {
      const bytes = bytesOf(b64);
      const size = jpegSize(bytes);
      if (size && sameSize(scale(size.width, size.height, maxDim, maxPixels), size.width, size.height) && !full) {
        return report(tab, { value: b64, mime_type: 'image/jpeg', width: size.width, height: size.height, bytes: bytes.length, captured: size }, facts);
      }
    } else if (full) {
      const bytes = bytesOf(b64);
      const size = pngSize(bytes);
      if (size) {
        return report(tab, { value: b64, mime_type: 'image/png', width: size.width, height: size.height, bytes: bytes.length, captured: size }, facts);
      }
    }
    const shot = await bitmapOf(v.dataURL);
    canvas = new OffscreenCanvas(shot.width, shot.height);
    canvas.getContext('2d').drawImage(shot, 0, 0);
  }

  const captured = { width: canvas.width, height: canvas.height };
  let out = canvas;
  if (!full) {
    const s = scale(canvas.width, canvas.height, maxDim, maxPixels);
    if (s.width !== canvas.width) {
      out = new OffscreenCanvas(s.width, s.height);
      const ctx = out.getContext('2d');
      ctx.imageSmoothingQuality = 'high';
      ctx.drawImage(canvas, 0, 0, s.width, s.height);
    }
  }
  const type = full ? 'image/png' : 'image/jpeg';
  const blob = await out.convertToBlob(type === 'image/png' ? { type } : { type, quality: JPEG_QUALITY });
  return report(tab, { value: await base64Of(blob), mime_type: blob.type, width: out.width, height: out.height, bytes: blob.size, captured }, facts);
}

/** report completes a screenshot's result with the tab's facts and how the capture was made. */
async function report(tab, img, facts) {
  const after = await chrome.tabs.get(tab.id).catch(() => tab);
  const r = { ...img, tab_id: tab.id, url: after.url || tab.url || '' };
  if (facts.waited_ms > 0) r.waited_ms = facts.waited_ms;
  if (facts.reused) Object.assign(r, { reused: true, age_ms: facts.age_ms });
  return r;
}

/** fullPage scrolls the page a viewport at a time, captures each and stitches them, then scrolls back. */
async function fullPage(tab, params, signal, facts) {
  const { resp: m } = await runtimeCall(tab, params.frame, null, { op: 'metrics' });
  const plan = fullPagePlan(m.width, m.height, m.scroll_height);
  let canvas = null;
  let k = 1;
  try {
    for (const y of plan.offsets) {
      if (signal?.aborted) throw new CommandError('the screenshot was cut short by its deadline');
      const { resp: at } = await runtimeCall(tab, params.frame, null, { op: 'scroll', y });
      const got = await captureAs(tab, 'png');
      facts.waited_ms += got.waited_ms;
      const shot = await bitmapOf(got.url);
      if (!canvas) {
        k = shot.width / m.width;
        canvas = new OffscreenCanvas(shot.width, Math.min(16384, Math.round(plan.height * k)));
      }
      canvas.getContext('2d').drawImage(shot, 0, Math.round(at.y * k));
    }
  } finally {
    await runtimeCall(tab, params.frame, null, { op: 'scroll', y: m.scroll_y }).catch(() => {});
  }
  return canvas;
}
