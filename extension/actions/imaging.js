// Image geometry for screenshots, without chrome.*: tested under node.

/** MAX_SIDE is the longest side a screenshot may ever have, in pixels. */
export const MAX_SIDE = 8000;

/** MAX_PAGE_HEIGHT bounds a full-page capture in CSS pixels (a canvas cannot be taller than 16 384 device pixels). */
export const MAX_PAGE_HEIGHT = 16000;

/** MAX_PIXELS keeps a default screenshot under about 1 600 image tokens (width × height / 750). */
export const MAX_PIXELS = 1_200_000;

/**
 * scale returns the size of a width × height image shrunk so that its
 * longest side is at most maxDim (and MAX_SIDE) and its area at most
 * maxPixels, keeping the aspect ratio; an image that fits is unchanged.
 * Sides never round to 0.
 */
export function scale(width, height, maxDim, maxPixels = Infinity) {
  const limit = Math.min(maxDim, MAX_SIDE);
  const bySide = limit / Math.max(width, height);
  const byArea = Math.sqrt(maxPixels / (width * height));
  if (bySide >= 1 && byArea >= 1) return { width, height };
  if (bySide <= byArea) { // the longest side becomes exactly limit
    return width >= height
      ? { width: limit, height: Math.max(1, Math.round(height * bySide)) }
      : { width: Math.max(1, Math.round(width * bySide)), height: limit };
  }
  return { width: Math.max(1, Math.floor(width * byArea)), height: Math.max(1, Math.floor(height * byArea)) };
}

/**
 * fullPagePlan returns the scroll offsets (CSS pixels) that capture a page
 * of scrollHeight with a viewport of viewportHeight, top to bottom, the
 * last one flush with the bottom, and the height stitched (at most
 * MAX_PAGE_HEIGHT).
 */
export function fullPagePlan(viewportWidth, viewportHeight, scrollHeight) {
  const height = Math.min(Math.max(scrollHeight, viewportHeight), MAX_PAGE_HEIGHT);
  const offsets = [];
  for (let y = 0; y + viewportHeight < height; y += viewportHeight) offsets.push(y);
  offsets.push(Math.max(0, height - viewportHeight));
  return { width: viewportWidth, height, offsets };
}

/** imageTokens estimates the tokens a model is charged for an image (width × height / 750, as Anthropic documents). */
export const imageTokens = (width, height) => Math.ceil((width * height) / 750);

/**
 * cropBox is the part of a capture of the viewport that shows rect (page
 * CSS pixels, as draw mode records them), in the capture's device pixels:
 * {x, y, width, height, partial}. The viewport ({width, scroll_x, scroll_y},
 * CSS pixels) was captured as shotWidth × shotHeight, so the device pixel
 * ratio is shotWidth / viewport.width. partial is true when part of rect
 * was outside the viewport; null when none of it was, or it has no area.
 */
export function cropBox(rect, viewport, shotWidth, shotHeight) {
  const k = shotWidth / viewport.width;
  if (!(k > 0)) return null;
  const x0 = (rect.x - (viewport.scroll_x || 0)) * k;
  const y0 = (rect.y - (viewport.scroll_y || 0)) * k;
  const x1 = x0 + rect.width * k;
  const y1 = y0 + rect.height * k;
  const x = Math.round(Math.max(0, x0));
  const y = Math.round(Math.max(0, y0));
  const width = Math.round(Math.min(shotWidth, x1)) - x;
  const height = Math.round(Math.min(shotHeight, y1)) - y;
  if (!(width >= 1 && height >= 1)) return null;
  const partial = x0 < -0.5 || y0 < -0.5 || x1 > shotWidth + 0.5 || y1 > shotHeight + 0.5;
  return { x, y, width, height, partial };
}

/**
 * jpegSize reads the width and height of the JPEG in bytes (a Uint8Array)
 * from its first start-of-frame marker without decoding it; null when
 * bytes are not a JPEG or have no frame header.
 */
export function jpegSize(bytes) {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let i = 2;
  while (i + 9 < bytes.length) {
    if (bytes[i] !== 0xff) return null;
    const marker = bytes[i + 1];
    if (marker === 0xff) { i++; continue; } // fill byte
    const len = (bytes[i + 2] << 8) | bytes[i + 3];
    // SOF0..SOF15 except DHT (c4), JPG (c8) and DAC (cc).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: (bytes[i + 7] << 8) | bytes[i + 8], height: (bytes[i + 5] << 8) | bytes[i + 6] };
    }
    if (marker === 0xda || len < 2) return null; // scan data before any frame header
    i += 2 + len;
  }
  return null;
}

/** pngSize reads a PNG's size from its IHDR chunk (the first 24 bytes); null when bytes are not a PNG. */
export function pngSize(bytes) {
  if (bytes.length < 24 || bytes[0] !== 0x89 || bytes[1] !== 0x50 || bytes[2] !== 0x4e || bytes[3] !== 0x47) return null;
  const u32 = (i) => ((bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3]) >>> 0;
  return { width: u32(16), height: u32(20) };
}

/** QUIET_MS is how long a page must have been unchanged before a capture for it to be served again: a change paints within a frame or two. */
export const QUIET_MS = 150;

/** REUSE_MAX_MS bounds the age of a capture served again, for changes a page cannot report (a canvas, a decoding image). */
export const REUSE_MAX_MS = 10_000;

/**
 * Stamp is what the page reports about its viewport (shotStamp in
 * screenshot.js): a watcher id (new per document), a change generation
 * and the time of the last change (page clock = worker clock, ms), whether
 * something changes without DOM events (running animations, playing video,
 * a canvas), the viewport, and document.visibilityState (a hidden page is
 * not painted).
 * @typedef {{id: string, gen: number, changed_at: number, live: boolean,
 *   w: number, h: number, x: number, y: number, dpr: number, vis: string}} Stamp
 */

/**
 * cacheable says whether a capture started at captureStart may be served
 * again: the page reported the same watcher and generation before (a) and
 * after (b) it, nothing live, and its last change was at least QUIET_MS
 * before the capture began (so it was painted).
 */
export function cacheable(a, b, captureStart) {
  return !!a && !!b && a.id === b.id && a.gen === b.gen && !a.live && !b.live &&
    a.changed_at <= captureStart - QUIET_MS;
}

/**
 * reusable says whether entry (a cached capture: {tabId, windowId, url,
 * stamp, at}) shows what tab shows now, as stamp (asked now) and now
 * (worker clock, ms) tell: same tab, window, url and document watcher, no
 * change since, nothing live, same viewport and scroll, and younger than
 * REUSE_MAX_MS.
 */
export function reusable(entry, tab, stamp, now) {
  if (!entry || !stamp) return false;
  const s = entry.stamp;
  return entry.tabId === tab.id && entry.windowId === tab.windowId && entry.url === tab.url &&
    s.id === stamp.id && s.gen === stamp.gen && !stamp.live &&
    s.w === stamp.w && s.h === stamp.h && s.x === stamp.x && s.y === stamp.y && s.dpr === stamp.dpr &&
    now - entry.at <= REUSE_MAX_MS;
}
