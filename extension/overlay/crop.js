// Cropped screenshots of draw-mode annotations (seed 004), in the worker.
// When the user presses Done the overlay hides itself and sends its post;
// addCrops captures the visible tab once and cuts each annotation's
// rectangle out of it (device-pixel-ratio aware, with OffscreenCanvas),
// adding to each annotation a crop {data (base64), mime_type, partial?} or a
// screenshot_error saying why there is none. The daemon stores the crops
// and gives the agent handles (internal/annotate).

import { capture, bitmapOf, base64Of } from '../actions/screenshot.js';
import { cropBox, scale, MAX_PIXELS } from '../actions/imaging.js';
import { MAX_CROP_BYTES, MAX_CROPS_BYTES } from '../contract.js';

/** MAX_DIM and MAX_PIXELS bound a crop as a default screenshot is bounded (about 1 600 image tokens). */
const MAX_DIM = 1568;
/** PNG_LIMIT is the largest PNG kept: a crop above it (a photo, say) is sent as JPEG. */
const PNG_LIMIT = 512 * 1024;
const JPEG_QUALITY = 0.85;

/**
 * addCrops adds a crop, or a screenshot_error, to each annotation of post
 * (the body of POST /draw-mode/complete) from a capture of tab, which must
 * show the page as the user marked it, without the overlay. It never
 * throws: a failed capture becomes every annotation's screenshot_error.
 */
export async function addCrops(post, tab) {
  const anns = post?.annotations;
  if (!Array.isArray(anns) || anns.length === 0) return;
  let shot;
  try {
    shot = await bitmapOf(await capture(tab));
  } catch (err) {
    for (const a of anns) a.screenshot_error = `no screenshot: ${err?.message || err}`;
    return;
  }
  let total = 0;
  try {
    for (const a of anns) {
      try {
        const box = cropBox(a.rect, post.viewport, shot.width, shot.height);
        if (!box) {
          a.screenshot_error = 'no screenshot: the rectangle was outside the visible part of the page when Done was pressed';
          continue;
        }
        const crop = await encode(shot, box);
        if (crop.bytes > MAX_CROP_BYTES) {
          a.screenshot_error = `no screenshot: the crop is ${(crop.bytes / 1048576).toFixed(1)} MB, over ${MAX_CROP_BYTES >> 20} MB`;
          continue;
        }
        if (total + crop.bytes > MAX_CROPS_BYTES) {
          a.screenshot_error = `left out: the crops together exceed ${MAX_CROPS_BYTES >> 20} MB`;
          continue;
        }
        total += crop.bytes;
        a.crop = { data: crop.data, mime_type: crop.mime_type };
        if (box.partial) a.crop.partial = true;
      } catch (err) {
        a.screenshot_error = `no screenshot: ${err?.message || err}`;
      }
    }
  } finally {
    shot.close();
  }
}

/** encode cuts box out of shot, downscales it within the bounds, and encodes it as PNG (or JPEG when large). */
async function encode(shot, box) {
  const s = scale(box.width, box.height, MAX_DIM, MAX_PIXELS);
  const canvas = new OffscreenCanvas(s.width, s.height);
  const ctx = canvas.getContext('2d');
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(shot, box.x, box.y, box.width, box.height, 0, 0, s.width, s.height);
  let blob = await canvas.convertToBlob({ type: 'image/png' });
  if (blob.size > PNG_LIMIT) blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: JPEG_QUALITY });
  return { data: await base64Of(blob), mime_type: blob.type, bytes: blob.size };
}
