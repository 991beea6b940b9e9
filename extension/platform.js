// The one module that knows which browser the extension runs in (Chrome or
// Firefox, from the same sources: extension/firefox.go writes Firefox's
// manifest). Code elsewhere calls these functions instead of an API only one
// browser has, and never branches on the browser itself.
//
// What Firefox (ESR 153) lacks, and what each function does there instead:
//   - chrome.storage.local.setAccessLevel: Firefox has no way to keep
//     content scripts from reading storage.local (restrictStorage).
//   - the "Allow User Scripts" toggle: userScripts is an optional
//     permission there, granted in about:addons (allowUserScriptsText).
// What it has, unlike older Firefoxes: webNavigation's and scripting's
// documentId, scripting.registerContentScripts with matchOriginAsFallback
// and the MAIN world. Not looked at yet: offscreen documents (none in
// Firefox) and userScripts, an optional permission there that the user
// grants at run time.

import { BROWSER_CHROME, BROWSER_FIREFOX } from './contract.js';

/** firefox is true in Firefox: its extension pages are moz-extension://. */
export const firefox = typeof chrome === 'object' && chrome.runtime?.getURL?.('').startsWith('moz-extension:') === true;

/** browser names the browser for the daemon ('gasoline doctor'), sent with each poll. */
export const browser = firefox ? BROWSER_FIREFOX : BROWSER_CHROME;

/**
 * restrictStorage keeps content scripts (which run in every page) from
 * reading chrome.storage.local, where the pairing token lives. Chrome
 * does it with setAccessLevel; Firefox has no such setting, so there it
 * resolves without doing anything and content scripts could read the
 * token (they are the extension's own code; pages cannot). It never rejects.
 */
export function restrictStorage() {
  const local = chrome.storage.local;
  if (typeof local.setAccessLevel !== 'function') return Promise.resolve();
  return local.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' })
    .catch((err) => console.warn('gasoline: restricting chrome.storage.local to the extension:', err));
}

/**
 * allowUserScriptsText says where the user allows the extension's user
 * scripts (execute_js on a page whose CSP forbids eval), as one clause for
 * an error: Chrome's "Allow User Scripts" toggle on the extension's details
 * page, Firefox's optional permission on the add-on's Permissions tab.
 */
export function allowUserScriptsText(extensionId) {
  if (firefox) {
    return 'grant the gasoline add-on its optional user scripts permission (about:addons, Gasoline, Permissions; Firefox 136 or later)';
  }
  const details = extensionId ? `chrome://extensions/?id=${extensionId}` : 'chrome://extensions';
  return `switch on "Allow User Scripts" on the extension's details page (${details}; in Chrome before 138: ` +
    'switch on Developer mode at chrome://extensions)';
}

/**
 * hidingClosesDialogs is whether hiding a tab dismisses the native alert,
 * confirm or prompt its page shows, the one way an extension without the
 * debugger permission can close one (actions/dialog.js dismissNative):
 * Chrome does (its TabModalDialogManager); Firefox keeps a tab's dialog
 * across tab switches, so there only the user can answer it.
 */
export const hidingClosesDialogs = !firefox;

/** browserName is the browser's name as the user knows it, for errors that tell what it does. */
export const browserName = firefox ? 'Firefox' : 'Chrome';
