// The wrappers dialogs.js installs on the page's window once the runtime
// holds the channel. Each is a method ({alert(message) {...}}.alert):
// minifying keeps a method's name (the page reads alert.name), and like
// the native one it is no constructor and has no prototype; naming every
// function of the bundle instead (scripts/bundle KeepNames) cost every
// page 241 bytes at document_start.
import { apply, native, now, stringify, Url } from './saved.js';
import { report, send } from './channel.js';
import { dialog, live, state } from './answer.js';

/** install wraps alert, confirm, prompt and open, and listens first for beforeunload. */
export function install() {
  window.alert = { alert(message) { return dialog('alert', message); } }.alert;
  window.confirm = { confirm(message) { return dialog('confirm', message); } }.confirm;
  window.prompt = { prompt(message, fallback) { return dialog('prompt', message, fallback); } }.prompt;
  // A script's click gives no user activation, so Chrome's popup blocker
  // makes window.open return null: reported while acting, and within
  // LATE_MS of an action's end (a handler's timer) marked late, which
  // the worker adds to the effects of the action still settling. A
  // noopener open returns null even when a tab opened: the worker drops
  // a report whose url a tab the action opened shows (actionDialogs).
  window.open = { open(url, target, features) {
    const w = apply(native.open, this, arguments);
    const late = !state.acting && now() < state.actedUntil;
    if (w === null && (state.acting || late)) {
      let href = String(url ?? '');
      try {
        href = new Url(href || 'about:blank', document.baseURI).href;
      } catch { /* reported as given */ }
      report({ __proto__: null, type: 'popup', message: href, answered: 'blocked (Chrome opens none for a script\'s click): open its url with interact({action:"new_tab", url})', late });
    }
    return w;
  } }.open;
  // The window's first beforeunload listener (registered before any page
  // script): an armed accept keeps the page's listeners from asking.
  addEventListener('beforeunload', (e) => {
    const a = live();
    if (a && !a.used && a.accept) {
      a.used = true;
      e.stopImmediatePropagation();
      report({ __proto__: null, type: 'beforeunload', message: '', answered: 'accepted' });
    } else if (navigator.userActivation?.hasBeenActive) {
      send('dialog', stringify({ __proto__: null, type: 'beforeunload', message: '', showing: true, unsure: true }));
    }
  }, true);
}
