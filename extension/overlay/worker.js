// The worker side of draw mode (seed 004). drawModeShow is the command
// action that injects the overlay into a tab; startDrawRelay carries the
// overlay's Done (with a cropped screenshot per annotation, crop.js) or
// cancellation to POST /draw-mode/complete, and cancels
// the session when its tab closes or navigates away. Open sessions are kept
// in chrome.storage.session (id → tab), so a worker that restarted while
// the user was drawing still posts the result.
//
// The notes never pass through the page: each is typed in an extension
// frame (note.js) that keeps it. At Done the worker asks each frame named
// in the post for its note (readNotes), and relays the Ctrl+Enter and Esc
// pressed in a frame, and the keys a frame got that belong to a newer note
// (draw-late), to the overlay of the frame's tab.

import { CommandError } from '../runner.js';
import { resolveTab } from '../tabs/resolve.js';
import { ensureRuntime } from '../actions/inject.js';
import { addCrops } from './crop.js';
import * as L from './logic.js';
import { askFramedPages } from '../platform.js';

/**
 * OVERLAY_FILES are injected, in order, into the tab's top document, after
 * the DOM runtime (actions/inject.js), whose refs the overlay reports: the
 * overlay's modules bundled into one classic script (scripts/bundle).
 */
export const OVERLAY_FILES = ['dist/overlay.js'];
const OPEN_KEY = 'draw:open';

async function openSessions() {
  const got = await chrome.storage.session.get(OPEN_KEY).catch(() => ({}));
  return got[OPEN_KEY] || {};
}

async function setOpen(id, tabId) {
  const open = await openSessions();
  if (tabId === undefined) delete open[id];
  else open[id] = tabId;
  await chrome.storage.session.set({ [OPEN_KEY]: open });
}

/**
 * drawModeShow shows the overlay for session params.correlation_id in the
 * tab (params.tab_id, default the active one) and resolves once it shows.
 */
export async function drawModeShow(params) {
  const id = params.correlation_id;
  if (typeof id !== 'string' || !id.startsWith('ann_')) throw new CommandError('draw_mode_show needs the ann_ correlation_id of its session');
  const tab = await resolveTab(params.tab_id);
  try {
    const top = await chrome.webNavigation.getFrame({ tabId: tab.id, frameId: 0 }).catch(() => null);
    if (!top?.documentId) throw new Error('the tab has no document yet; wait for it to load and retry');
    const target = { tabId: tab.id, documentIds: [top.documentId] };
    await ensureRuntime(tab, top.documentId);
    await chrome.scripting.executeScript({ target, files: OVERLAY_FILES });
    await setOpen(id, tab.id);
    const [r] = await chrome.scripting.executeScript({
      target,
      func: (p) => globalThis.gasolineOverlay.open(p),
      args: [{ correlation_id: id, instructions: String(params.instructions || ''), mode: params.mode === 'pick' ? 'pick' : 'draw', max_items: Number(params.max_items) || 20 }],
    });
    if (!r?.result?.shown) throw new Error('the overlay did not start');
  } catch (err) {
    await setOpen(id, undefined).catch(() => {});
    const url = tab.url || '';
    const msg = err?.message || String(err);
    if (/^(chrome|chrome-extension|devtools|edge|view-source):/i.test(url) || /cannot be scripted|Cannot access/i.test(msg)) {
      throw new CommandError(`cannot show the draw-mode overlay in tab ${tab.id} (${url}): Chrome does not let extensions into browser pages; navigate it to a web page first`);
    }
    throw new CommandError(`cannot show the draw-mode overlay in tab ${tab.id} (${url}): ${msg}`);
  }
  return { shown: true, tab_id: tab.id, url: tab.url || '' };
}

/**
 * startDrawRelay listens for the overlay's posts and for tabs closing or
 * navigating under an open session. post(body) sends a body to
 * POST /draw-mode/complete and resolves when the daemon took it.
 */
export function startDrawRelay({ post }) {
  const finish = async (body) => {
    await setOpen(body.correlation_id, undefined);
    await post(body);
  };
  chrome.runtime.onMessage.addListener((msg, sender) => {
    if ((msg?.gasoline !== 'draw-key' && msg?.gasoline !== 'draw-late') || !isNoteFrame(sender)) return false;
    const relay = msg.gasoline === 'draw-key'
      ? { gasoline: 'draw-key', key: String(msg.key), action: String(msg.action) }
      : { gasoline: 'draw-late', key: String(msg.key), keys: L.timedKeys(msg.keys) };
    chrome.tabs.sendMessage(sender.tab.id, relay, { frameId: 0 }).catch(() => {});
    return false;
  });
  chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
    // Only our own content scripts (the overlay, ISOLATED world) can send
    // runtime messages with our id from a tab.
    if (sender.id !== chrome.runtime.id || !sender.tab || msg?.gasoline !== 'draw') return false;
    const body = msg.post;
    openSessions().then(async (open) => {
      if (open[body?.correlation_id] !== sender.tab.id) {
        sendResponse({ ok: false, error: 'this draw-mode session is no longer open (it ended or expired)' });
        return;
      }
      try {
        // The overlay hid itself before sending Done: the capture shows the page as the user marked it.
        if (!body.cancelled) await readNotes(body, sender.tab.id);
        if (!body.cancelled) await addCrops(body, sender.tab);
        await finish(body);
        sendResponse({ ok: true });
      } catch (err) {
        sendResponse({ ok: false, error: String(err?.message || err) });
      }
    });
    return true;
  });
  const cancelTab = async (tabId, reason) => {
    const open = await openSessions();
    for (const [id, t] of Object.entries(open)) {
      if (t === tabId) await finish({ correlation_id: id, cancelled: true, reason }).catch((err) => console.warn('gasoline: draw mode', id, err));
    }
  };
  chrome.tabs.onRemoved.addListener((tabId) => cancelTab(tabId, 'the tab was closed'));
  chrome.webNavigation.onCommitted.addListener((d) => {
    if (d.frameId === 0) cancelTab(d.tabId, 'the page navigated away');
  });
}

/** isNoteFrame reports whether sender is a note frame (note.html) inside a tab. */
function isNoteFrame(sender) {
  if (sender.id !== chrome.runtime.id || !sender.tab || !sender.url) return false;
  // The extension's own origin: chrome-extension:// in Chrome, moz-extension:// in Firefox.
  const u = new URL(sender.url);
  const own = new URL(chrome.runtime.getURL(''));
  return u.protocol === own.protocol && u.host === own.host && u.pathname === '/overlay/note.html';
}

/**
 * readNotes replaces each annotation's note_key with the note typed in the
 * frame of that key, in tab tabId, (an empty note when no frame answers within 2 s). A
 * note the post itself carries is dropped: only the frames speak for the user.
 */
export async function readNotes(body, tabId) {
  await Promise.all((body.annotations || []).map(async (a) => {
    const key = String(a.note_key ?? '');
    delete a.note_key;
    a.note = '';
    if (!key) return;
    const timeout = new Promise((resolve) => setTimeout(resolve, 2000));
    const got = await Promise.race([askFramedPages(tabId, { gasoline: 'draw-note-read', key }).catch(() => undefined), timeout]);
    a.note = L.noteText(got?.note);
  }));
}
