// The DOM runtime's dialogs: the page's alert, confirm and prompt calls an
// action caused, and what it tells dialogs.js (MAIN world).
import { core } from './globals.js';

// --- dialogs -------------------------------------------------------------------

// dialogs are the page's alert, confirm and prompt calls that dialogs.js
// (MAIN world) reported during actions, newest last, at most 50.
// dialogs.js's private channel is held by channel.js (this world, from
// document_start), which also tells the worker about native ones.
// In a document loaded idle, channel.js may come after this runtime
// (tabs/reach.js): it then hands itself over (gasolineChannelLate).
export const dialogs = [];
let channel = globalThis.gasolineChannel;
/** onDialog lists a dialog dialogs.js reports (JSON in e.detail), unless it answers one already listed or may not show. */
const onDialog = (e) => {
  let d;
  try {
    d = JSON.parse(e.detail);
  } catch {
    return; // not a report
  }
  if (d.showing === false || d.unsure) return; // the answer to one already listed, or one that may not show
  dialogs.push({ type: String(d.type), message: core.clip(String(d.message ?? ''), 200), answered: String(d.answered) });
  if (dialogs.length > 50) dialogs.shift();
};
/** listenDialogs starts listing the dialogs dialogs.js reports, through channel.js now or once it comes. */
export function listenDialogs() {
  if (channel) channel.on('dialog', onDialog);
  else {
    (globalThis.gasolineChannelLate ??= []).push((c) => {
      channel = c;
      c.on('dialog', onDialog);
    });
  }
}

/** toMain tells dialogs.js (MAIN world) something, through channel.js. */
export const toMain = (type, data) => channel?.send(type, data);
