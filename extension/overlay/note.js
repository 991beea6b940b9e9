// One annotation's note, typed in an extension page (overlay/note.html)
// that the overlay frames over the page. The page cannot script this
// cross-origin frame, dispatch events into it or hear its keystrokes, so
// what the agent receives as the note is what the user typed here.
//
// The frame's URL fragment is its key (chosen by the overlay). The note
// stays in this frame: at Done the worker asks for it with
// {gasoline: "draw-note-read", key} and this frame answers {note}.
// Keys the user typed before the focus reached this frame come from the
// overlay ({gasoline: "draw-type", key, keys}: characters and "Backspace")
// and go before what was typed here, in the order typed; one that reaches
// this frame before its input has the focus goes into it too.
// Ctrl+Enter and Esc typed here (trusted keys only) go to the worker as
// {gasoline: "draw-key", key, action: "done" | "cancel"}, which hands them
// to the overlay in the tab's top document.
const key = location.hash.slice(1);
const input = document.querySelector('input');
// Focused only when the overlay gives this frame the focus (focusing the
// input at load would take the focus from wherever the user is), which it
// may have done while this page was still loading: then no focus event
// comes, and the input takes the focus the frame already has.
addEventListener('focus', () => input.focus());
if (document.hasFocus()) input.focus();

addEventListener('keydown', (e) => {
  if (!e.isTrusted) return;
  if (document.activeElement !== input && [...e.key].length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey && !e.isComposing) {
    // A key that came before the focus did: it is the note's.
    e.preventDefault();
    input.focus();
    if (input.value.length + e.key.length <= input.maxLength) input.value += e.key;
    return;
  }
  let action = '';
  if (e.key === 'Escape') action = 'cancel';
  else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) action = 'done';
  if (!action) return;
  e.preventDefault();
  chrome.runtime.sendMessage({ gasoline: 'draw-key', key, action }).catch(() => {});
}, true);

chrome.runtime.onMessage.addListener((msg, sender, reply) => {
  if (sender.id !== chrome.runtime.id || sender.tab || msg?.gasoline !== 'draw-note-read' || msg.key !== key) return false;
  reply({ note: input.value });
  return false;
});

let early = 0; // how many characters of the note came from the overlay (they lead it)
chrome.runtime.onMessage.addListener((msg, sender) => {
  // Only the overlay (our content script, in a tab) sends it; the key is
  // this frame's secret name.
  if (sender.id !== chrome.runtime.id || !sender.tab || msg?.gasoline !== 'draw-type' || msg.key !== key || !Array.isArray(msg.keys)) return false;
  let v = input.value;
  for (const k of msg.keys) {
    if (k === 'Backspace') {
      const cut = [...v.slice(0, early)].at(-1)?.length ?? 0;
      v = v.slice(0, early - cut) + v.slice(early);
      early -= cut;
    } else if (typeof k === 'string' && [...k].length === 1 && v.length + k.length <= input.maxLength) {
      v = v.slice(0, early) + k + v.slice(early);
      early += k.length;
    }
  }
  input.value = v;
  return false;
});
