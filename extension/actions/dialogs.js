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
(() => {
  const apply = Reflect.apply;
  const hasOwn = Object.hasOwn;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const num = Number;
  const str = String;
  const slice = String.prototype.slice;
  const CE = CustomEvent;
  const detailOf = Object.getOwnPropertyDescriptor(CustomEvent.prototype, 'detail').get;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const listen = EventTarget.prototype.addEventListener;
  const now = Date.now.bind(Date);
  const native = { alert: window.alert, confirm: window.confirm, prompt: window.prompt, open: window.open };
  const Url = window.URL;
  const node = document.createElement('span');
  const RECENT = 5;
  const RECENT_MS = 60000;
  // LATE_MS is how long after an action's end a blocked popup is still its
  // own: as long as settle follows the action at most (capture/settle.js
  // SETTLE_CAP_MS: a handler's timer, the timers it sets in turn, the
  // requests they make), and the worker's LATE_MS (actions/dialog.js); a
  // test checks.
  const LATE_MS = 2000;
  // recent is a ring of the last RECENT dialogs, {type, message, answered,
  // at}, written by index (count: how many ever): no Array method.
  const recent = [null, null, null, null, null];
  let count = 0;

  let acting = null; // {dialog?, text?} while an agent's action runs
  let armed = null; // {accept, text, until, used} from the dialog action
  let actedUntil = 0; // LATE_MS after the last action ended

  const own = (o, k) => (hasOwn(o, k) ? o[k] : undefined);
  const send = (type, json) => apply(dispatch, node, [new CE(type, { __proto__: null, detail: json })]);
  const on = (type, fn) => apply(listen, node, [type, (e) => {
    let d;
    try {
      d = parse(apply(detailOf, e, []));
    } catch {
      return;
    }
    if (d !== null && typeof d === 'object') fn(d);
  }]);
  const report = (d) => {
    recent[count % RECENT] = { __proto__: null, type: d.type, message: d.message, answered: d.answered, at: now() };
    count++;
    send('dialog', stringify(d));
  };

  on('acting', (d) => {
    if (acting) actedUntil = now() + LATE_MS;
    acting = own(d, 'on') ? { dialog: own(d, 'dialog'), text: own(d, 'prompt_text') } : null;
  });

  on('arm', (d) => {
    const ms = num(own(d, 'window_ms'));
    armed = ms > 0 ? { accept: own(d, 'dialog') === 'accept', text: own(d, 'text'), until: now() + ms, used: false } : null;
    const t = now();
    let list = '';
    for (let i = count > RECENT ? count - RECENT : 0; i < count; i++) {
      const r = recent[i % RECENT];
      if (t - r.at >= RECENT_MS) continue;
      list += (list ? ',' : '') + stringify({ __proto__: null, type: r.type, message: r.message, answered: r.answered, ago_ms: t - r.at });
    }
    send('armed', '{"recent":[' + list + ']}');
  });

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
    const text = apply(slice, str(message ?? ''), [0, 500]);
    const answer = answerOf(type);
    if (!answer) {
      report({ __proto__: null, type, message: text, answered: 'by the user', showing: true });
      let got;
      try {
        got = apply(native[type], window, [message, fallback]);
      } finally {
        const accepted = type === 'alert' || (type === 'confirm' ? got === true : got !== null && got !== undefined);
        send('dialog', stringify({ __proto__: null, type, message: text, answered: accepted ? 'accepted by the user' : 'dismissed by the user', showing: false }));
        const last = count ? recent[(count - 1) % RECENT] : null;
        if (last?.answered === 'by the user') last.answered = accepted ? 'accepted by the user' : 'dismissed by the user';
      }
      return got;
    }
    const accept = type === 'alert' || answer.accept;
    report({ __proto__: null, type, message: text, answered: accept ? 'accepted' : 'dismissed' });
    if (type === 'alert') return undefined;
    if (type === 'confirm') return accept;
    return accept ? String(answer.text ?? fallback ?? '') : null;
  };

  function install() {
    window.alert = function alert(message) { return open('alert', message); };
    window.confirm = function confirm(message) { return open('confirm', message); };
    window.prompt = function prompt(message, fallback) { return open('prompt', message, fallback); };
    // A script's click gives no user activation, so Chrome's popup blocker
    // makes window.open return null: reported while acting, and within
    // LATE_MS of an action's end (a handler's timer) marked late, which
    // the worker adds to the effects of the action still settling. A
    // noopener open returns null even when a tab opened: the worker drops
    // a report whose url a tab the action opened shows (actionDialogs).
    window.open = function open(url, target, features) {
      const w = apply(native.open, this, arguments);
      const late = !acting && now() < actedUntil;
      if (w === null && (acting || late)) {
        let href = String(url ?? '');
        try {
          href = new Url(href || 'about:blank', document.baseURI).href;
        } catch { /* reported as given */ }
        report({ __proto__: null, type: 'popup', message: href, answered: 'blocked (Chrome opens none for a script\'s click): open its url with interact({action:"new_tab", url})', late });
      }
      return w;
    };
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
})();
