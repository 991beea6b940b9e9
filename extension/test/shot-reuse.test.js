// Unit tests of the pure parts of screenshots in actions/imaging.js: image
// sizes read from headers, and when a capture may be served again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jpegSize, pngSize, cacheable, reusable, QUIET_MS, REUSE_MAX_MS } from '../actions/imaging.js';

// A minimal JPEG head: SOI, an APP0 segment, then SOF0 of 780×493.
const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00,
  0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xed, 0x03, 0x0c, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

test('jpegSize reads the frame header, skipping other segments', () => {
  assert.deepEqual(jpegSize(jpeg), { width: 780, height: 493 });
  const progressive = jpeg.slice();
  progressive[9] = 0xc2;
  assert.deepEqual(jpegSize(progressive), { width: 780, height: 493 });
  const dht = jpeg.slice();
  dht[9] = 0xc4; // a Huffman table is not a frame header
  assert.equal(jpegSize(dht), null);
  assert.equal(jpegSize(Uint8Array.from([0x89, 0x50, 0x4e, 0x47])), null, 'not a JPEG');
  assert.equal(jpegSize(jpeg.slice(0, 12)), null, 'cut short');
});

test('pngSize reads IHDR', () => {
  const png = new Uint8Array(24);
  png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0x0a, 0x00, 0, 0, 0x05, 0xa0]);
  assert.deepEqual(pngSize(png), { width: 2560, height: 1440 });
  assert.equal(pngSize(jpeg), null);
});

const stamp = (over = {}) => ({ id: 'doc1', gen: 4, changed_at: 1000, live: false, w: 800, h: 600, x: 0, y: 0, dpr: 1, ...over });

test('cacheable: same watcher and generation around the capture, quiet before it, nothing live', () => {
  const start = 1000 + QUIET_MS;
  assert.equal(cacheable(stamp(), stamp(), start), true);
  assert.equal(cacheable(stamp(), stamp(), start - 1), false, 'changed too shortly before the capture to be painted');
  assert.equal(cacheable(stamp(), stamp({ gen: 5 }), start), false, 'changed during the capture');
  assert.equal(cacheable(stamp(), stamp({ id: 'doc2' }), start), false, 'another document after it');
  assert.equal(cacheable(stamp({ live: true }), stamp({ live: true }), start), false, 'a canvas, a video or an animation');
  assert.equal(cacheable(stamp(), null, start), false, 'the page could not say');
});

test('reusable: same tab, window, url, document, generation and viewport, young enough', () => {
  const tab = { id: 7, windowId: 2, url: 'http://127.0.0.1/a' };
  const entry = { tabId: 7, windowId: 2, url: 'http://127.0.0.1/a', stamp: stamp(), at: 5000 };
  assert.equal(reusable(entry, tab, stamp(), 5000 + REUSE_MAX_MS), true);
  assert.equal(reusable(entry, tab, stamp(), 5001 + REUSE_MAX_MS), false, 'too old');
  for (const [what, t, s] of [
    ['another tab', { ...tab, id: 8 }, stamp()],
    ['another window', { ...tab, windowId: 3 }, stamp()],
    ['another url', { ...tab, url: 'http://127.0.0.1/b' }, stamp()],
    ['another document', tab, stamp({ id: 'doc2' })],
    ['a change since', tab, stamp({ gen: 5 })],
    ['live now', tab, stamp({ live: true })],
    ['scrolled', tab, stamp({ y: 300 })],
    ['resized', tab, stamp({ w: 1024 })],
    ['zoomed', tab, stamp({ dpr: 2 })],
  ]) {
    assert.equal(reusable(entry, t, s, 6000), false, what);
  }
  assert.equal(reusable(null, tab, stamp(), 6000), false, 'nothing captured yet');
  assert.equal(reusable(entry, tab, null, 6000), false, 'the page could not say');
});
