// The layout shifts of perf/collect.js's report: CLS and the image that
// likely caused a shift.
import { element, round } from './measure.js';

/** cls is the largest session window of shifts (gaps under 1 s, at most 5 s long). */
export function cls(shifts) {
  let best = 0;
  let sum = 0;
  let first = -Infinity;
  let last = -Infinity;
  for (const s of shifts) {
    if (s.startTime - last > 1000 || s.startTime - first > 5000) {
      sum = 0;
      first = s.startTime;
    }
    sum += s.value;
    last = s.startTime;
    best = Math.max(best, sum);
  }
  return best;
}

/**
 * lateImage is the image that likely caused a shift at time t: one whose
 * response was arriving then or ended within the 2 s before (decoding and
 * the next frame can take that long on a busy machine; an image is laid
 * out once its header gives its size, before its last byte), laid out
 * without width and height attributes (so no space was kept for it), the
 * one whose response began last.
 */
export function lateImage(t, loaded) {
  let best = null;
  for (const [img, began, end] of loaded) {
    if (began > t || end < t - 2000) continue;
    if (img.hasAttribute('width') && img.hasAttribute('height')) continue;
    if (!best || began > best[1]) best = [img, began, end];
  }
  if (!best) return undefined;
  const e = element(best[0]);
  return e ? { ...e, url: best[0].currentSrc || best[0].src, loaded: round(best[2]) } : undefined;
}
