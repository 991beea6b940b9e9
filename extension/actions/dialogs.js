// The page's alert, confirm and prompt, in the MAIN world of every
// document from document_start (a declared content script). Without the
// debugger permission an extension cannot answer a native dialog, and a
// native dialog blocks the page (and the DOM runtime with it), so:
//   - while an agent's action runs (the ISOLATED runtime says so with a
//     "gasoline:acting" event), a dialog is answered without showing: as
//     the action's dialog option says (accept, with prompt_text for a
//     prompt), else dismissed (an alert is simply closed);
//   - any other dialog is the user's: it shows natively, as before.
// Every dialog is reported to the runtime with a "gasoline:dialog" event
// (detail: JSON text), which the action's effects list.
//
// Events between worlds carry strings only. A page can see and send these
// events too: what it can do with them is to answer its own dialogs, or to
// make an action's effects list a dialog that did not open.
(() => {
  if (window.__gasolineDialogs) return;
  Object.defineProperty(window, '__gasolineDialogs', { value: true });
  const native = { alert: window.alert, confirm: window.confirm, prompt: window.prompt };
  const report = (d) => dispatchEvent(new CustomEvent('gasoline:dialog', { detail: JSON.stringify(d) }));
  let answer = null; // {accept, text} while an agent's action runs

  addEventListener('gasoline:acting', (e) => {
    try {
      const d = JSON.parse(e.detail);
      answer = d.on ? { accept: d.accept === true, text: d.prompt_text } : null;
    } catch { /* not ours */ }
  }, true);

  const open = (type, message, fallback) => {
    const text = String(message ?? '').slice(0, 500);
    if (!answer) {
      report({ type, message: text, answered: 'by the user' });
      return native[type].call(window, message, fallback);
    }
    const accept = type === 'alert' || answer.accept;
    report({ type, message: text, answered: accept ? 'accepted' : 'dismissed' });
    if (type === 'alert') return undefined;
    if (type === 'confirm') return accept;
    return accept ? String(answer.text ?? fallback ?? '') : null;
  };
  window.alert = function alert(message) { return open('alert', message); };
  window.confirm = function confirm(message) { return open('confirm', message); };
  window.prompt = function prompt(message, fallback) { return open('prompt', message, fallback); };
})();
