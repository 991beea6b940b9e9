// The worker side of drag, fill_form and resize: drag and fill_form are DOM
// actions (dom.js's acting: one runtime request, one settle, effects) whose
// page side is runtime.js's; resize sizes the tab's window
// (chrome.windows) until the page's viewport has the size asked for.

import { CommandError } from '../runner.js';
import { resolveTab } from '../tabs/resolve.js';
import { acting } from './dom.js';
import { targetOf, frameOfRef, describeTarget } from './target.js';

/** drag drags the element params name onto the element params.to names, in the same document. */
export async function drag(params, signal, ctx) {
  const from = targetOf(params);
  const to = dropTarget(from, params.to);
  return acting('drag', params, signal, ctx, { to });
}

/**
 * dropTarget reads drag's to, a canonical target as target is, and refuses a ref of
 * another document than from's: one drag happens in one document.
 */
export function dropTarget(from, raw) {
  const to = targetOf({ target: raw });
  if (!to) throw new CommandError('drag needs "to", the element to drop on');
  const frameOf = (t) => (t?.ref ? frameOfRef(t.ref) : 0);
  if ((from?.ref || to.ref) && frameOf(from) !== frameOf(to)) {
    throw new CommandError(`drag moves within one document: ${describeTarget(from)} and ${describeTarget(to)} are in different frames; ` +
      'pass targets of the same document (with frame for an iframe)');
  }
  return to;
}

/** fillForm fills params.fields, each {target, value}, in one document, and settles once. */
export async function fillForm(params, signal, ctx) {
  const fields = formFields(params.fields, Boolean(params.frame));
  return acting('fill_form', params, signal, ctx, { fields }, { needsTarget: false, targetless: true });
}

/** MAX_FIELDS mirrors the daemon's bound (internal/tools maxFormFields). */
export const MAX_FIELDS = 50;

/**
 * formFields checks fill_form's fields: 1 to MAX_FIELDS of {target, value}
 * with value a string, a list of strings or a boolean; refs must be the top
 * document's unless framed (frame names the iframe). It returns them as the
 * runtime takes them, {target, value}, or throws CommandError naming the
 * field's index.
 */
export function formFields(fields, framed) {
  if (!Array.isArray(fields) || fields.length === 0 || fields.length > MAX_FIELDS) {
    throw new CommandError(`fill_form needs 1 to ${MAX_FIELDS} fields, each {target, value}`);
  }
  return fields.map((f, i) => {
    if (!f || typeof f !== 'object' || Array.isArray(f)) throw new CommandError(`fill_form: field ${i} is not {target, value}`);
    let target;
    try {
      target = targetOf({ target: f.target });
      if (!target) throw new CommandError('it has no target');
    } catch (err) {
      throw new CommandError(`fill_form: field ${i}: ${err.message}`);
    }
    if (target.ref && frameOfRef(target.ref) !== 0 && !framed) {
      throw new CommandError(`fill_form: field ${i}'s ref ${target.ref} is in an iframe; pass frame (the iframe's CSS selector) and fill that frame's fields in their own call`);
    }
    const v = f.value;
    const ok = typeof v === 'string' || typeof v === 'boolean' || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
    if (!ok) throw new CommandError(`fill_form: field ${i}'s value ${JSON.stringify(v)} is not text, a list of options or true/false`);
    return { target, value: v };
  });
}

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
