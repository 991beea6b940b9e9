// One annotation's note, typed in an extension page (overlay/note.html)
// that the overlay frames over the page. The page cannot script this
// cross-origin frame, dispatch events into it or hear its keystrokes, so
// what the agent receives as the note is what the user typed here.
//
// The frame's URL fragment is its key (chosen by the overlay). The note
// stays in this frame: at Done the worker asks for it with
// {gasoline: "draw-note-read", key} and this frame answers {note}.
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
