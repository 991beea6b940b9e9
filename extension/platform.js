// The one module that knows which browser the extension runs in (Chrome or
// Firefox, from the same sources: extension/firefox.go writes Firefox's
// manifest). Code elsewhere calls these functions instead of an API only one
// browser has, and never branches on the browser itself.
//
// What Firefox (ESR 153) lacks, and what each function does there instead:
//   - chrome.storage.local.setAccessLevel: Firefox has no way to keep
//     content scripts from reading storage.local (restrictStorage), so the
//     pairing token lives in the extension origin's IndexedDB there
//     (tokenStore).
//   - the "Allow User Scripts" toggle: userScripts is an optional
//     permission there, granted in about:addons (allowUserScriptsText).
//   - runtime messages to the extension's pages framed in a web page (draw
//     mode's note frames): Firefox treats such a frame as a content script,
//     which hears the tab's messages only (askFramedPages).
// What it has, unlike older Firefoxes: webNavigation's and scripting's
// documentId, scripting.registerContentScripts with matchOriginAsFallback
// and the MAIN world. Not looked at yet: offscreen documents (none in
// Firefox) and userScripts, an optional permission there that the user
// grants at run time.

import { BROWSER_CHROME, BROWSER_FIREFOX } from './contract.js';
import { KEYS } from './status.js';

/** firefox is true in Firefox: its extension pages are moz-extension://. */
export const firefox = typeof chrome === 'object' && chrome.runtime?.getURL?.('').startsWith('moz-extension:') === true;

/** browser names the browser for the daemon ('gasoline doctor'), sent with each poll. */
export const browser = firefox ? BROWSER_FIREFOX : BROWSER_CHROME;

/**
 * restrictStorage keeps content scripts (which run in every page) from
 * reading chrome.storage.local. Chrome does it with setAccessLevel; Firefox
 * has no such setting, so there it resolves without doing anything and
 * content scripts could read what storage.local holds: the pairing token is
 * not there in Firefox (tokenStore). It never rejects.
 */
export function restrictStorage() {
  const local = chrome.storage.local;
  if (typeof local.setAccessLevel !== 'function') return Promise.resolve();
  return local.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' })
    .catch((err) => console.warn('gasoline: restricting chrome.storage.local to the extension:', err));
}

const TOKEN_KEY = KEYS.token; // in storage.local: Chrome's, and Firefox's before the move
const TOKEN_DB = 'gasoline-secrets';
const TOKEN_STORE = 'secrets';

/**
 * tokenStore is where the pairing token lives: {get() → '' when none,
 * set(token), remove()}, for the worker and the popup (the extension's own
 * pages). In Chrome, chrome.storage.local, which restrictStorage closes to
 * content scripts. In Firefox, which cannot close it, an IndexedDB database
 * of the extension's origin (moz-extension://…): content scripts run with
 * the page's origin, so the indexedDB they see is the page's, and they
 * cannot open this one. A token an older build left in storage.local moves
 * there at the first get (and leaves storage.local).
 */
export function tokenStore(local = chrome.storage.local, idb = globalThis.indexedDB) {
  if (!firefox) return localTokens(local);
  return idbTokens(idb, local);
}

/** localTokens keeps the token in storage.local under TOKEN_KEY. */
function localTokens(local) {
  return {
    get: async () => {
      const got = await local.get(TOKEN_KEY);
      return typeof got?.[TOKEN_KEY] === 'string' ? got[TOKEN_KEY] : '';
    },
    set: (token) => local.set({ [TOKEN_KEY]: token }),
    remove: () => local.remove(TOKEN_KEY),
  };
}

/** idbTokens keeps the token in the extension origin's IndexedDB, moving one from storage.local first. */
function idbTokens(idb, local) {
  const put = (token) => inTokenDB(idb, 'readwrite', (s) => s.put(token, TOKEN_KEY));
  return {
    get: async () => {
      const token = await inTokenDB(idb, 'readonly', (s) => s.get(TOKEN_KEY));
      if (typeof token === 'string') return token;
      const old = await localTokens(local).get();
      if (!old) return '';
      await put(old);
      await local.remove(TOKEN_KEY);
      return old;
    },
    set: async (token) => {
      await put(token);
      await local.remove(TOKEN_KEY); // none may stay where content scripts read
    },
    remove: async () => {
      await inTokenDB(idb, 'readwrite', (s) => s.delete(TOKEN_KEY));
      await local.remove(TOKEN_KEY);
    },
  };
}

/** inTokenDB runs op on the token store in one transaction of mode and resolves to its request's result once committed. */
async function inTokenDB(idb, mode, op) {
  const db = await new Promise((resolve, reject) => {
    const open = idb.open(TOKEN_DB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(TOKEN_STORE);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(TOKEN_STORE, mode);
      const req = op(tx.objectStore(TOKEN_STORE));
      tx.oncomplete = () => resolve(req.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error || new Error('the token store\'s transaction was aborted'));
    });
  } finally {
    db.close();
  }
}

/**
 * allowUserScriptsText says where the user allows the extension's user
 * scripts (execute_js on a page whose CSP forbids eval), as one clause for
 * an error: Chrome's "Allow User Scripts" toggle on the extension's details
 * page, Firefox's optional permission on the add-on's Permissions tab.
 */
export function allowUserScriptsText(extensionId) {
  if (firefox) {
    return 'click "Allow user scripts" in the gasoline add-on\'s popup, or grant it its optional user scripts permission ' +
      '(about:addons, Gasoline, Permissions; Firefox 136 or later)';
  }
  const details = extensionId ? `chrome://extensions/?id=${extensionId}` : 'chrome://extensions';
  return `switch on "Allow User Scripts" on the extension's details page (${details}; in Chrome before 138: ` +
    'switch on Developer mode at chrome://extensions)';
}

const USER_SCRIPTS = { permissions: ['userScripts'] };

/**
 * userScriptsAskable resolves to true when the user can grant user scripts
 * from the popup: the manifest asks for them as an optional permission
 * (Firefox's build) and they are not granted yet. In Chrome they are a
 * permission granted at install, switched on by a toggle the extension
 * cannot ask for (allowUserScriptsText): false.
 */
export async function userScriptsAskable(c = globalThis.chrome) {
  if (!c.runtime.getManifest().optional_permissions?.includes('userScripts')) return false;
  return !(await c.permissions.contains(USER_SCRIPTS));
}

/**
 * askUserScripts asks the user for the optional user scripts permission
 * and resolves to whether it was granted. Firefox takes the request only
 * from a user's action: call it from the click's handler, before any await.
 */
export function askUserScripts(c = globalThis.chrome) {
  return c.permissions.request(USER_SCRIPTS);
}

/**
 * askFramedPages sends msg to the extension's own pages framed in the web
 * page of tab tabId (draw mode's note frames) and resolves with the first
 * answer. Chrome delivers runtime messages to them; Firefox gives such a
 * frame a content script's messaging, so there it hears only the tab's
 * messages (w3c/webextensions#35).
 */
export function askFramedPages(tabId, msg) {
  return firefox ? chrome.tabs.sendMessage(tabId, msg) : chrome.runtime.sendMessage(msg);
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
