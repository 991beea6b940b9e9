// One annotation's note, typed in an extension page (overlay/note.html)
// that the overlay frames over the page. The page cannot script this
// cross-origin frame, dispatch events into it or hear its keystrokes, so
// what the agent receives as the note is what the user typed here.
//
// The frame's URL fragment is its key (chosen by the overlay). The note
// stays in this frame: at Done the worker asks for it with
// {gasoline: "draw-note-read", key} and this frame answers {note}.
//
// A key typed for this note can land elsewhere: in the overlay, while the
// focus is on its way here, or in another note's frame, whose process learns
// late that the focus left it. Those come here as {gasoline: "draw-type",
// key, keys} (from the overlay, which also passes on the draw-late below),
// each key with when it was typed on the clock all frames share
// (performance.timeOrigin + the event's timeStamp: the browser's time of
// the key, whichever process got it). This frame types the keys that reach
// it itself, and keeps the note as every key typed for it in the order
// typed (L.makeNote): a key that comes late, by whatever route, lands where
// it was typed, not after what was typed since. Once the user edits the
// note otherwise (moves the caret, selects, pastes, composes) the input is
// theirs: keys handed over after that go first.
//
// A key typed here after the overlay began another note's box is that
// note's: the focus was on its way out of this frame when it came. When
// the overlay says a note was made ({gasoline: "draw-new", to, at, notes}),
// this frame takes back what it got since `at` (unless it had the focus
// again since) and hands it, with any such key that comes later, to the
// worker ({gasoline: "draw-late", key: to, keys}), which relays it to the
// overlay.
//
// Ctrl+Enter and Esc typed here (trusted keys only) go to the worker as
// {gasoline: "draw-key", key, action: "done" | "cancel"}, which hands them
// to the overlay in the tab's top document.
//
// An ES module, shipped as the classic script dist/note.js (scripts/bundle),
// which note.html loads.
import * as L from './logic.js';

const key = location.hash.slice(1);
const input = document.querySelector('input');
const at = (e) => performance.timeOrigin + e.timeStamp;
const note = L.makeNote(input.maxLength);

let lastFocus = -Infinity; // when this frame last got the focus
let moved = null; // {to, at}: the newest note made since, whose box was begun at `at`
const log = []; // {k, t, before}: the last keys typed here, with the note before each (to hand back from a free note)

/** tracked reports whether the input still holds the note its keys make; once not, the note is the user's (free). */
function tracked() {
  if (!note.free && input.value !== note.text()) note.release();
  return !note.free;
}

// Focused only when the overlay gives this frame the focus (focusing the
// input at load would take the focus from wherever the user is), which it
// may have done while this page was still loading: then no focus event
// comes, and the input takes the focus the frame already has.
function take() {
  input.focus();
  if (tracked()) input.setSelectionRange(input.value.length, input.value.length);
}
addEventListener('focus', (e) => {
  lastFocus = at(e);
  take();
});
if (document.hasFocus()) take();

addEventListener('keydown', (e) => {
  if (!e.isTrusted) return;
  const k = L.editKey(e);
  const t = at(e);
  if (k && moved && L.handBack([{ t }], moved.at, lastFocus) === 0) {
    // Typed after another note's box was begun, before the focus left.
    e.preventDefault();
    e.stopImmediatePropagation();
    handOn(moved.to, [{ k, t }]);
    return;
  }
  if (k) {
    log.push({ k, t, before: input.value });
    if (log.length > 64) log.shift();
    // A key that came before the focus did is typed at the end too.
    const focused = document.activeElement === input;
    const end = input.value.length;
    if (tracked()) {
      if (!focused || (input.selectionStart === end && input.selectionEnd === end)) {
        e.preventDefault();
        if (!focused) input.focus();
        note.add([{ k, t }]);
        input.value = note.text();
        return;
      }
      note.release();
    } else if (!focused && k !== 'Backspace') {
      e.preventDefault();
      input.focus();
      if (end + k.length <= input.maxLength) input.value += k;
      return;
    }
  }
  let action = '';
  if (e.key === 'Escape') action = 'cancel';
  else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) action = 'done';
  if (!action) return;
  e.preventDefault();
  chrome.runtime.sendMessage({ gasoline: 'draw-key', key, action }).catch(() => {});
}, true);

function handOn(to, keys) {
  chrome.runtime.sendMessage({ gasoline: 'draw-late', key: to, keys }).catch(() => {});
}

chrome.runtime.onMessage.addListener((msg, sender, reply) => {
  if (sender.id !== chrome.runtime.id || sender.tab || msg?.gasoline !== 'draw-note-read' || msg.key !== key) return false;
  reply({ note: input.value });
  return false;
});

// The overlay made another note: what this frame got since its box was begun is that note's.
chrome.runtime.onMessage.addListener((msg, sender) => {
  if (sender.id !== chrome.runtime.id || !sender.tab || msg?.gasoline !== 'draw-new' || !Array.isArray(msg.notes) ||
      !msg.notes.includes(key) || typeof msg.to !== 'string' || !Number.isFinite(msg.at)) return false;
  if (moved && moved.at > msg.at) return false;
  moved = { to: msg.to, at: msg.at };
  if (!(lastFocus < msg.at)) return false; // the user came back here since
  const i = L.handBack(log, msg.at, lastFocus);
  const typed = i < 0 ? [] : log.splice(i);
  if (tracked()) {
    // Every key typed since, wherever it reached this note from.
    const late = note.takeFrom(msg.at);
    if (!late.length) return false;
    input.value = note.text();
    handOn(msg.to, late);
    return false;
  }
  if (!typed.length) return false;
  input.value = typed[0].before;
  handOn(msg.to, typed.map(({ k, t }) => ({ k, t })));
  return false;
});

// Keys typed for this note that landed elsewhere.
chrome.runtime.onMessage.addListener((msg, sender) => {
  // Only the overlay (our content script, in a tab) sends it; the key is
  // this frame's secret name.
  if (sender.id !== chrome.runtime.id || !sender.tab || msg?.gasoline !== 'draw-type' || msg.key !== key) return false;
  let keys = L.timedKeys(msg.keys);
  if (moved && lastFocus < moved.at) {
    // Typed after another note's box was begun: that note's.
    const on = keys.filter((x) => x.t >= moved.at);
    if (on.length) handOn(moved.to, on);
    keys = keys.filter((x) => x.t < moved.at);
  }
  if (!keys.length) return false;
  if (tracked()) {
    note.add(keys);
    input.value = note.text();
    return false;
  }
  const lead = L.typedText([...keys].sort((a, b) => a.t - b.t).map((x) => x.k), input.maxLength);
  input.value = (lead + input.value).slice(0, input.maxLength);
  return false;
});
