// One annotation's note, typed in an extension page (overlay/note.html)
// that the overlay frames over the page. The page cannot script this
// cross-origin frame, dispatch events into it or hear its keystrokes, so
// what the agent receives as the note is what the user typed here.
//
// The frame's URL fragment is its key (chosen by the overlay). The note
// stays in this frame: at Done the worker asks for it with
// {gasoline: "draw-note-read", key} and this frame answers {note}.
//
// Keys typed for this note elsewhere lead it, in the order typed: first
// those that reached other notes' frames after this note's box was begun
// (draw-type's late: the focus left them first), then those the overlay
// took before the focus got here (draw-type's keys); one that reaches this
// frame before its input has the focus goes into it too.
//
// A key typed here after the overlay began another note's box is that
// note's: the focus was on its way out of this frame (another process) when
// it came. When the overlay says a note was made ({gasoline: "draw-new",
// to, at, notes}), this frame takes back what it got since `at` (unless it
// had the focus again since) and hands it, with any such key that comes
// later, to the worker ({gasoline: "draw-late", key: to, keys}), which
// relays it to the overlay. Times are event times on the clock all frames
// share (performance.timeOrigin + timeStamp).
//
// Ctrl+Enter and Esc typed here (trusted keys only) go to the worker as
// {gasoline: "draw-key", key, action: "done" | "cancel"}, which hands them
// to the overlay in the tab's top document.
const L = globalThis.gasolineOverlayLogic;
const key = location.hash.slice(1);
const input = document.querySelector('input');
const at = (e) => performance.timeOrigin + e.timeStamp;

let lastFocus = -Infinity; // when this frame last got the focus
let moved = null; // {to, at}: the newest note made since, whose box was begun at `at`
const log = []; // {k, t, before}: the last keys typed here, with the note before each

// Focused only when the overlay gives this frame the focus (focusing the
// input at load would take the focus from wherever the user is), which it
// may have done while this page was still loading: then no focus event
// comes, and the input takes the focus the frame already has.
addEventListener('focus', (e) => {
  lastFocus = at(e);
  input.focus();
});
if (document.hasFocus()) input.focus();

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
  }
  if (document.activeElement !== input && k && k !== 'Backspace') {
    // A key that came before the focus did: it is the note's.
    e.preventDefault();
    input.focus();
    if (input.value.length + k.length <= input.maxLength) input.value += k;
    return;
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
  const i = L.handBack(log, msg.at, lastFocus);
  if (i < 0) return false;
  const late = log.splice(i);
  input.value = late[0].before;
  handOn(msg.to, late.map(({ k, t }) => ({ k, t })));
  return false;
});

const early = []; // the keys the overlay took for this note
const late = []; // the keys other notes' frames got for this note
let prefix = 0; // how many characters of the note came from elsewhere (they lead it)
chrome.runtime.onMessage.addListener((msg, sender) => {
  // Only the overlay (our content script, in a tab) sends it; the key is
  // this frame's secret name.
  if (sender.id !== chrome.runtime.id || !sender.tab || msg?.gasoline !== 'draw-type' || msg.key !== key || !Array.isArray(msg.keys)) return false;
  early.push(...msg.keys.filter((k) => typeof k === 'string'));
  late.push(...L.lateKeys(msg.late));
  const p = L.notePrefix(late, early, input.maxLength);
  input.value = (p + input.value.slice(prefix)).slice(0, input.maxLength);
  prefix = p.length;
  return false;
});
