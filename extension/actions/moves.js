// resize sizes the tab's window (chrome.windows) until the page's viewport
// has the size asked for. (drag and fill_form, once here, are DOM actions
// on the generic path, actions/verb.js: the daemon checks and sends their
// targets canonically, internal/tools/interact_moves.go.)

import { CommandError } from '../runner.js';
import { resolveTab } from '../tabs/resolve.js';

/** RESIZE_WAIT_MS bounds the wait for the page to see a new window size. */
const RESIZE_WAIT_MS = 2000;

/**
 * resize sizes the window of the tab params name so that the page's
 * viewport (innerWidth × innerHeight) is params.width × params.height:
 * it sizes the window by the frame's size (outer minus inner) and corrects
 * once by what the page then reports. It resolves to the viewport got,
 * with a note when it differs from the one asked (a screen too small, a
 * zoomed page).
 */
export async function resize(params, signal) {
  const tab = await resolveTab(params.tab_id);
  const want = { width: params.width, height: params.height };
  let win = await chrome.windows.get(tab.windowId);
  if (win.state !== 'normal') win = await chrome.windows.update(win.id, { state: 'normal' });
  let view = await viewportOf(tab);
  for (let pass = 0; pass < 2 && !same(view, want) && !signal?.aborted; pass++) {
    const next = { width: win.width + want.width - view.width, height: win.height + want.height - view.height };
    win = await sizeWindow(tab, win, next);
    view = await newViewport(tab, view, want, signal);
  }
  const out = { tab_id: tab.id, url: tab.url || '', viewport: view, window: { width: win.width, height: win.height } };
  if (!same(view, want)) {
    out.note = `the viewport is ${view.width}x${view.height}, not ${want.width}x${want.height}: ` + (tab.active
      ? 'the window cannot be sized so (the screen is smaller, or the page is zoomed); use a smaller size or reset the zoom'
      : 'the tab is not the one shown in its window, whose size it takes when shown; switch_tab to it and resize again');
  }
  return out;
}

/**
 * sizeWindow sets win's outer size. Chrome refuses bounds less than half
 * on the screen: the window is then moved to the screen's corner and
 * sized again, and when that is refused too the error says the screen's
 * size.
 */
async function sizeWindow(tab, win, size) {
  try {
    return await chrome.windows.update(win.id, size);
  } catch (err) {
    if (!/within visible screen space/i.test(err?.message || '')) throw new CommandError(`cannot resize the window of tab ${tab.id}: ${err?.message || err}`);
  }
  const [got] = await chrome.scripting.executeScript({
    target: { tabId: tab.id, frameIds: [0] }, injectImmediately: true, func: () => [screen.availLeft, screen.availTop, screen.availWidth, screen.availHeight],
  }).catch(() => []);
  const [left, top, sw, sh] = got?.result || [0, 0, 0, 0];
  try {
    return await chrome.windows.update(win.id, { ...size, left, top });
  } catch (err) {
    throw new CommandError(`Chrome refuses a ${size.width}x${size.height} window (the viewport plus the window's frame) on this ${sw}x${sh} screen: ` +
      'at least half of a window must be on the screen; ask for a smaller size');
  }
}

const same = (a, b) => a.width === b.width && a.height === b.height;

/** viewportOf reads the tab's top document's innerWidth and innerHeight. */
async function viewportOf(tab) {
  let got;
  try {
    [got] = await chrome.scripting.executeScript({
      target: { tabId: tab.id, frameIds: [0] }, injectImmediately: true, func: () => [innerWidth, innerHeight],
    });
  } catch (err) {
    throw new CommandError(`cannot read the viewport of tab ${tab.id} (${tab.url || ''}): ${err?.message || err}; resize works on web pages`);
  }
  const [width, height] = got?.result || [];
  if (!Number.isInteger(width) || !Number.isInteger(height)) throw new CommandError(`tab ${tab.id} reported no viewport size; retry once it has loaded`);
  return { width, height };
}

/**
 * newViewport waits until the page's viewport is want, or has stopped
 * changing from before for a while (the window took another size), or
 * RESIZE_WAIT_MS passed; it returns the last one read.
 */
async function newViewport(tab, before, want, signal) {
  const start = Date.now();
  let last = before;
  let changedAt = start;
  for (;;) {
    await new Promise((r) => setTimeout(r, 25));
    const v = await viewportOf(tab);
    if (same(v, want)) return v;
    if (!same(v, last)) {
      last = v;
      changedAt = Date.now();
    }
    if (Date.now() - changedAt >= 300 || Date.now() - start >= RESIZE_WAIT_MS || signal?.aborted) return last;
  }
}
