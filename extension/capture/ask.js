// An idle document's recorder on demand: the worker injects the recorder
// (dist/end-isolated.js, 20 KB: capture/record.js and the DOM engine) at
// DOMContentLoaded only while an agent is at work or into the page the
// user's action in the tab led to (capture/declared.js CaptureMode.loaded);
// any other document loaded while idle gets it when this script asks, at
// the user's first input there. A page loaded and left alone never pays
// for it.
// At the first trusted pointerdown, key, input, click, change or submit
// of a document without the recorder (globalThis.gasolineRecorder) it
// sends {gasoline: "capture", op: "recorder"} to the worker, once
// (CaptureMode.asked), and sets capture/tap.js's gasolineTap.asked, which
// tells the recorder its document's arrival is long past. A pointerdown
// comes before its click by as long as the user holds the button, so the
// recorder is usually there for the click; until it is, tap.js holds the
// events. What an action held meanwhile makes the page show is not lost:
// from the first held click, dblclick, change, submit or Enter on, a
// MutationObserver keeps the page's changes (at most 200 records, for at
// most 2 s, the recorder's watch's cap), which gasolineTap.changes() hands
// to the recorder, once (capture/record/appeared.js seedWatch).
//
// A classic script in the ISOLATED world of a document loaded idle, after
// tap.js, in dist/start-isolated-idle.js (scripts/bundle). At work the
// recorder comes at every DOMContentLoaded: the at-work bundle has no
// need of it.
(() => {
  const tap = globalThis.gasolineTap;
  if (!tap || 'asked' in tap) return;
  let seen = null;
  let obs = null;
  tap.asked = false;
  tap.changes = () => {
    obs?.disconnect();
    const ms = seen ?? [];
    seen = [];
    return ms;
  };
  const on = (e) => {
    if (!e.isTrusted || globalThis.gasolineRecorder) return;
    if (!tap.asked) {
      tap.asked = true;
      try {
        chrome.runtime.sendMessage({ gasoline: 'capture', op: 'recorder' }).catch(() => {});
      } catch {
        // the extension was reloaded: this document keeps no recorder
      }
    }
    const t = e.type;
    if (seen || t === 'pointerdown' || t === 'input' || (t === 'keydown' && e.key !== 'Enter')) return;
    seen = [];
    obs = new MutationObserver((ms) => {
      for (const m of ms) if (seen.length < 200) seen.push(m);
    });
    obs.observe(document, { childList: true, subtree: true, characterData: true });
    setTimeout(() => obs.disconnect(), 2000);
  };
  for (const type of ['pointerdown', 'keydown', 'input', 'click', 'dblclick', 'change', 'submit']) {
    addEventListener(type, on, { capture: true, passive: true });
  }
})();
