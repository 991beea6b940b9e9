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
