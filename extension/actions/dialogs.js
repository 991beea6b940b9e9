// The page's alert, confirm, prompt and beforeunload, in the MAIN world of
// every document from document_start (a declared content script). Without
// the debugger permission an extension cannot answer a native dialog, and a
// native dialog blocks the page (and the DOM runtime with it), so:
//   - while an agent's action runs (the ISOLATED runtime says so with an
//     "acting" event), a dialog is answered without showing: as
//     the action's dialog option says, else dismissed (an alert closed);
//   - while an answer armed by the dialog action ("arm") is live
//     (its window_ms), the first confirm, prompt or beforeunload gets it
//     (a prompt gets its text); alerts are closed and later confirms and
//     prompts dismissed until the window ends, so none blocks the page;
//   - any other dialog is the user's: it shows natively, as before.
// beforeunload: an armed accept stops the page's beforeunload listeners
// for the next unload (this script's capturing listener is the window's
// first), so the agent's navigation or close_tab leaves without Chrome's
// "Leave site?" prompt. Nothing can make Chrome stay without the user:
// an armed dismiss does not touch beforeunload. Unarmed, on a page the
// user has interacted with (Chrome prompts on no other), the worker is
// told that a prompt may show (unsure: true); it checks whether the page
// is frozen before it believes it.
//
// Every dialog is reported to the runtime with a "dialog" event (detail:
// JSON text), which the action's effects list; a native one is reported
// with showing:true before it shows and showing:false once the user
// answered, so the worker knows the tab is blocked. "arm" is acknowledged
// with "armed" carrying the recent dialogs.
//
// The page sees none of this. The events go through a private channel: a
// detached element made here and handed, once, to the runtime (ISOLATED
// world) as the relatedTarget of a FocusEvent "gasoline:channel" on window
// at document_start, before any page script exists; the runtime takes the
// first and cancels it (should the runtime start after this script, its
// "gasoline:channel-hello" asks for it again). No page listener is on that
// element, no name is left on window, and the handlers of "acting" and
// "arm" call only built-ins saved here before the page ran, so a page that
// hooks JSON, Number, Array or event methods learns nothing of them (the
// recent dialogs are a ring written by index: no Array method of the page
// ever gets it as this, so none can read or forge the history). The
// wrappers are installed only once the runtime holds the channel. A
// document older than the extension gets this script late (dialog.js); its
// page's scripts could then hear the handover and take the channel.
//
// An ES module (its parts in dialogs/), shipped bundled: in dist/start-main.js
// and, for a document loaded idle, dist/dialogs.js (scripts/bundle).
import { hear } from './dialogs/answer.js';
import { node } from './dialogs/channel.js';
import { install } from './dialogs/install.js';

hear();

// The handover: taken (cancelled) by the runtime's listener, or given
// again when the runtime says hello.
const offer = () => !dispatchEvent(new FocusEvent('gasoline:channel', { relatedTarget: node, cancelable: true }));
if (offer()) {
  install();
} else {
  const hello = () => {
    if (!offer()) return;
    removeEventListener('gasoline:channel-hello', hello, true);
    install();
  };
  addEventListener('gasoline:channel-hello', hello, true);
}
