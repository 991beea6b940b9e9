// interact({action:"screenshot"}): the visible part of a tab, the whole
// page, or one element, with chrome.tabs.captureVisibleTab (no debugger
// permission), downscaled in the worker so the longest side is at most
// max_dim (default 1568) and encoded as JPEG or WebP. The image travels as
// the result's "value" (base64), which the daemon turns into MCP image
// content; with full_resolution it is the captured PNG itself, which the
// daemon keeps behind a handle and shows fitted to ~1 600 image tokens
// (internal/tools/interact_screenshot.go holds that rule).

import { CommandError } from '../runner.js';
import { resolveTab } from '../tabs/resolve.js';
import { scale, fullPagePlan, MAX_PIXELS } from './imaging.js';
import { runtimeCall } from './dom.js';
import { targetOf } from './target.js';

/** CAPTURE_GAP_MS spaces captures: Chrome allows about two captureVisibleTab calls a second. */
const CAPTURE_GAP_MS = 550;

let lastCapture = 0;

/** capture returns a PNG data URL of the visible part of tab, spacing calls as Chrome requires. */
export async function capture(tab) {
  const wait = lastCapture + CAPTURE_GAP_MS - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  try {
    const url = await chrome.tabs.captureVisibleTab(tab.windowId, { format: 'png' });
    lastCapture = Date.now();
    return url;
  } catch (err) {
    lastCapture = Date.now();
    throw new CommandError(`cannot capture tab ${tab.id}: ${err?.message || err}`);
  }
}

// bitmapOf decodes a data URL (fetch cannot: the extension's CSP limits
// connect-src to the daemon).
export function bitmapOf(dataURL) {
  const comma = dataURL.indexOf(',');
  const bin = atob(dataURL.slice(comma + 1));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return createImageBitmap(new Blob([bytes], { type: dataURL.slice(5, dataURL.indexOf(';')) }));
}

export async function base64Of(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** JPEG_QUALITY is the quality of a downscaled screenshot: small, and sharp enough to read text. */
const JPEG_QUALITY = 0.8;

/**
 * screenshot captures the tab params name. The tab must be the one shown
 * in its window: without the debugger permission Chrome captures only what
 * is visible.
 */
export async function screenshot(params, signal) {
  const tab = await resolveTab(params.tab_id);
  if (!tab.active) {
    throw new CommandError(`tab ${tab.id} is not the tab shown in its window, and Chrome lets extensions capture only what is visible; ` +
      `bring it to the front with interact({action:"switch_tab", tab_id:${tab.id}}) and retry`);
  }
  const maxDim = params.max_dim ?? 1568; // 64 to 8000: the contract's bounds

  let canvas;
  const target = targetOf(params);
  if (target) {
    const { resp } = await runtimeCall(tab, params.frame, target, { op: 'act', action: 'scroll_to', opts: {}, timeout_ms: 3000 });
    const m = await runtimeCall(tab, params.frame, null, { op: 'metrics' });
    const shot = await bitmapOf(await capture(tab));
    const k = shot.width / m.resp.width; // device pixels per CSS pixel
    const b = resp.box;
    const x = Math.max(0, Math.round(b.x * k));
    const y = Math.max(0, Math.round(b.y * k));
    const w = Math.max(1, Math.min(shot.width - x, Math.round(b.w * k)));
    const h = Math.max(1, Math.min(shot.height - y, Math.round(b.h * k)));
    canvas = new OffscreenCanvas(w, h);
    canvas.getContext('2d').drawImage(shot, x, y, w, h, 0, 0, w, h);
  } else if (params.full_page === true) {
    canvas = await fullPage(tab, params, signal);
  } else {
    const shot = await bitmapOf(await capture(tab));
    canvas = new OffscreenCanvas(shot.width, shot.height);
    canvas.getContext('2d').drawImage(shot, 0, 0);
  }

  const full = { width: canvas.width, height: canvas.height };
  let out = canvas;
  if (params.full_resolution !== true) {
    // max_dim given: the agent chose the size; else also the default token bound.
    const s = scale(canvas.width, canvas.height, maxDim, params.max_dim === undefined ? MAX_PIXELS : Infinity);
    if (s.width !== canvas.width) {
      out = new OffscreenCanvas(s.width, s.height);
      const ctx = out.getContext('2d');
      ctx.imageSmoothingQuality = 'high';
      ctx.drawImage(canvas, 0, 0, s.width, s.height);
    }
  }
  const type = params.full_resolution === true ? 'image/png' : 'image/jpeg';
  const blob = await out.convertToBlob(type === 'image/png' ? { type } : { type, quality: JPEG_QUALITY });
  const after = await chrome.tabs.get(tab.id).catch(() => tab);
  return {
    value: await base64Of(blob),
    mime_type: blob.type,
    width: out.width,
    height: out.height,
    bytes: blob.size,
    captured: full,
    tab_id: tab.id,
    url: after.url || tab.url || '',
  };
}

/** fullPage scrolls the page a viewport at a time, captures each and stitches them, then scrolls back. */
async function fullPage(tab, params, signal) {
  const { resp: m } = await runtimeCall(tab, params.frame, null, { op: 'metrics' });
  const plan = fullPagePlan(m.width, m.height, m.scroll_height);
  let canvas = null;
  let k = 1;
  try {
    for (const y of plan.offsets) {
      if (signal?.aborted) throw new CommandError('the screenshot was cut short by its deadline');
      const { resp: at } = await runtimeCall(tab, params.frame, null, { op: 'scroll', y });
      const shot = await bitmapOf(await capture(tab));
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
