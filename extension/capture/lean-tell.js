// The ISOLATED end of capture/lean-dialogs.js (see there), in the idle
// start bundle (dist/start-isolated-idle.js), which runs before the MAIN
// one: it takes the channel the first FocusEvent "gasoline:dlg" hands over
// (cancelling it, which lean-dialogs.js reads as taken; once: a later one
// is not heard) and hands each report to the worker as written,
// {gasoline: "dialog", lean: "<kind>\n<message>"}: the worker
// (actions/dialog.js watchDialogs) reads and caps it, and takes tab and
// frame from the sender. Not capped here (bytes): the page handed the
// same text to Chrome with its dialog anyway.
addEventListener('gasoline:dlg', (e) => {
  e.preventDefault();
  e.relatedTarget?.addEventListener('d', (m) => chrome.runtime.sendMessage({ gasoline: 'dialog', lean: m.detail }).catch(() => {}));
}, { once: true });
