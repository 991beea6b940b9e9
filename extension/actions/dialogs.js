// The page's alert, confirm, prompt and beforeunload, in the MAIN world of
// every document from document_start (a declared content script). Without
// the debugger permission an extension cannot answer a native dialog, and a
// native dialog blocks the page (and the DOM runtime with it), so:
//   - while an agent's action runs (the ISOLATED runtime says so with a
//     "gasoline:acting" event), a dialog is answered without showing: as
//     the action's dialog option says, else dismissed (an alert closed);
//   - while an answer armed by the dialog action ("gasoline:arm") is live
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
// Every dialog is reported to the runtime with a "gasoline:dialog" event
// (detail: JSON text), which the action's effects list; a native one is
// reported with showing:true before it shows and showing:false once the
// user answered, so the worker knows the tab is blocked. "gasoline:arm"
// is acknowledged with "gasoline:armed" carrying the recent dialogs.
//
// Events between worlds carry strings only. A page can see and send these
// events too: what it can do with them is to answer its own dialogs, or to
// make an action's effects list a dialog that did not open.
(() => {
  if (window.__gasolineDialogs) return;
  Object.defineProperty(window, '__gasolineDialogs', { value: true });
  const native = { alert: window.alert, confirm: window.confirm, prompt: window.prompt };
  const now = Date.now.bind(Date);
  const send = (type, d) => dispatchEvent(new CustomEvent(type, { detail: JSON.stringify(d) }));
  const RECENT = 5;
  const RECENT_MS = 60000;
  const recent = []; // the last dialogs: {type, message, answered, at}

  let acting = null; // {dialog?, text?} while an agent's action runs
  let armed = null; // {accept, text, until, used} from the dialog action

  const report = (d) => {
    recent.push({ type: d.type, message: d.message, answered: d.answered, at: now() });
    if (recent.length > RECENT) recent.shift();
    send('gasoline:dialog', d);
  };
  const parse = (e) => {
    try {
      return JSON.parse(e.detail);
    } catch {
      return null; // not ours
    }
  };

  addEventListener('gasoline:acting', (e) => {
    const d = parse(e);
    if (d) acting = d.on ? { dialog: d.dialog, text: d.prompt_text } : null;
  }, true);

  addEventListener('gasoline:arm', (e) => {
    const d = parse(e);
    if (!d) return;
    const ms = Number(d.window_ms);
    armed = ms > 0 ? { accept: d.dialog === 'accept', text: d.text, until: now() + ms, used: false } : null;
    const t = now();
    send('gasoline:armed', { recent: recent.filter((r) => t - r.at < RECENT_MS).map((r) => ({ ...r, ago_ms: t - r.at })) });
  }, true);

  /** live is the armed answer while its window lasts. */
  const live = () => (armed && now() < armed.until ? armed : null);

  /**
   * answerOf decides a dialog of type without showing it: {accept, text},
   * or null when it is the user's to answer natively.
   */
  function answerOf(type) {
    if (acting?.dialog === 'accept' || acting?.dialog === 'dismiss') {
      return { accept: acting.dialog === 'accept', text: acting.text };
    }
    const a = live();
    if (a && !a.used && type !== 'alert') {
      a.used = true;
      return { accept: a.accept, text: a.text };
    }
    if (a || acting) return { accept: false };
    return null;
  }

  const open = (type, message, fallback) => {
    const text = String(message ?? '').slice(0, 500);
    const answer = answerOf(type);
    if (!answer) {
      report({ type, message: text, answered: 'by the user', showing: true });
      let got;
      try {
        got = native[type].call(window, message, fallback);
      } finally {
        const accepted = type === 'alert' || (type === 'confirm' ? got === true : got !== null && got !== undefined);
        send('gasoline:dialog', { type, message: text, answered: accepted ? 'accepted by the user' : 'dismissed by the user', showing: false });
        const last = recent[recent.length - 1];
        if (last?.answered === 'by the user') last.answered = accepted ? 'accepted by the user' : 'dismissed by the user';
      }
      return got;
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

  // The window's first beforeunload listener (registered before any page
  // script): an armed accept keeps the page's listeners from asking.
  addEventListener('beforeunload', (e) => {
    const a = live();
    if (a && !a.used && a.accept) {
      a.used = true;
      e.stopImmediatePropagation();
      report({ type: 'beforeunload', message: '', answered: 'accepted' });
    } else if (navigator.userActivation?.hasBeenActive) {
      send('gasoline:dialog', { type: 'beforeunload', message: '', showing: true, unsure: true });
    }
  }, true);
})();
