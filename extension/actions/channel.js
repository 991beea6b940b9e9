// The ISOLATED world's end of dialogs.js's private channel, from
// document_start in the frames capture/declared.js registers (a content
// script, after capture/relay.js; late in an iframe that loaded idle).
// dialogs.js (MAIN world) offers a detached element on window before any
// page script runs; this script takes it (cancels the offer), so the
// wrappers of alert, confirm and prompt are live from the page's first
// line, and the DOM runtime, which comes into a document only on an agent's
// first action there (actions/inject.js), finds the channel here.
//
// It tells the worker about a dialog the page opened natively ({gasoline:
// "dialog", showing, type, message}; the worker takes tab and frame from
// the sender), so an action on a page a load-time alert froze fails at
// once with dialog_showing, even before any agent acted on that page.
//
// globalThis.gasolineChannel = {acting(), on(type, fn), send(type, data), arm(data)}:
// acting is whether the last "acting" sent said on (the relay reads it);
// on listens to what dialogs.js says (detail: JSON text), now or once the
// channel is taken; send tells dialogs.js something as JSON text (objects do
// not cross worlds), false without the channel; arm hands it the dialog
// action's answer and returns its acknowledgement {recent}, or null.
// globalThis.gasolineChannelLate: a list of functions a script that
// started before this one pushes; each is called with gasolineChannel.
(() => {
  if (globalThis.gasolineChannel) return;
  let node = null;
  let acting = false; // the runtime's last "acting" signal (capture/relay.js reads it)
  const subs = [];

  const report = (e) => {
    let d;
    try {
      d = JSON.parse(e.detail);
    } catch {
      return; // not a report
    }
    // late: a popup blocked after the action's end; only its url goes
    // (actions/dialog.js writes the advice and drops a url over 2 KB).
    if (d?.late === true && d.type === 'popup') {
      chrome.runtime.sendMessage({ gasoline: 'dialog', late: true, type: 'popup', message: String(d.message ?? '').slice(0, 2049) }).catch(() => {});
      return;
    }
    if (typeof d?.showing !== 'boolean') return;
    chrome.runtime.sendMessage({
      gasoline: 'dialog', showing: d.showing, type: String(d.type).slice(0, 20), message: String(d.message ?? '').slice(0, 200),
    }).catch(() => {});
  };

  const take = (e) => {
    if (node || typeof e.relatedTarget?.addEventListener !== 'function') return;
    node = e.relatedTarget;
    // Our MAIN start scripts are done (perf/collect.js): only true while the
    // document is loading; brought in later (tabs/reach.js), the page's own
    // scripts ran before, and no moment marks ours.
    if (document.readyState === 'loading') globalThis.gasolineStartEnd = performance.now();
    e.preventDefault();
    removeEventListener('gasoline:channel', take, true);
    node.addEventListener('dialog', report);
    for (const [type, fn] of subs) node.addEventListener(type, fn);
  };
  addEventListener('gasoline:channel', take, true);
  dispatchEvent(new Event('gasoline:channel-hello')); // for a dialogs.js that ran first

  const send = (type, data) => {
    if (!node) return false;
    if (type === 'acting') acting = data?.on === true;
    node.dispatchEvent(new CustomEvent(type, { detail: JSON.stringify(data) }));
    return true;
  };

  globalThis.gasolineChannel = Object.freeze({
    acting: () => acting,
    on(type, fn) {
      subs.push([type, fn]);
      node?.addEventListener(type, fn);
    },
    send,
    arm(data) {
      if (!node) return null;
      let ack = null;
      const on = (e) => {
        try {
          ack = JSON.parse(e.detail);
        } catch { /* not an acknowledgement */ }
      };
      node.addEventListener('armed', on);
      try {
        send('arm', data);
      } finally {
        node.removeEventListener('armed', on);
      }
      return ack;
    },
  });
  // Brought late: the recorder (capture/record.js) and the DOM runtime
  // (actions/runtime.js) may have started without it.
  for (const fn of globalThis.gasolineChannelLate ?? []) fn(globalThis.gasolineChannel);
})();
