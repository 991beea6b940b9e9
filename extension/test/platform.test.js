// Unit tests of platform.js, the one module that knows Chrome from Firefox:
// each browser is a fake chrome global, and the module is imported afresh
// under each (its facts are read once, at import).
import { test } from 'node:test';
import assert from 'node:assert/strict';

// load imports platform.js with chrome set to a fake whose extension pages
// live under base and whose storage.local is local.
async function load(base, local) {
  globalThis.chrome = { runtime: { getURL: (p) => base + p }, storage: { local } };
  try {
    return await import(`../platform.js?${encodeURIComponent(base)}`);
  } finally {
    delete globalThis.chrome;
  }
}

test('in Chrome, restrictStorage keeps storage.local from content scripts', async () => {
  const calls = [];
  const local = { setAccessLevel: async (o) => calls.push(o) };
  const p = await load('chrome-extension://abc/', local);
  globalThis.chrome = { storage: { local } };
  await p.restrictStorage();
  delete globalThis.chrome;
  assert.equal(p.firefox, false);
  assert.deepEqual(calls, [{ accessLevel: 'TRUSTED_CONTEXTS' }]);
});

test('in Firefox, restrictStorage resolves: there is no such setting, and the worker must go on', async () => {
  const local = {};
  const p = await load('moz-extension://6a0b3c2e/', local);
  globalThis.chrome = { storage: { local } };
  await assert.doesNotReject(p.restrictStorage());
  delete globalThis.chrome;
  assert.equal(p.firefox, true);
});

test('a refused setAccessLevel is logged, not thrown', async () => {
  const local = { setAccessLevel: async () => { throw new Error('nope'); } };
  const p = await load('chrome-extension://def/', local);
  globalThis.chrome = { storage: { local } };
  const warn = console.warn;
  const warned = [];
  console.warn = (...a) => warned.push(a.join(' '));
  try {
    await assert.doesNotReject(p.restrictStorage());
  } finally {
    console.warn = warn;
    delete globalThis.chrome;
  }
  assert.match(warned.join('\n'), /nope/);
});

test('allowUserScriptsText names each browser\'s own place to allow user scripts', async () => {
  const chrome = await load('chrome-extension://ghi/', {});
  assert.match(chrome.allowUserScriptsText('ipimnlogmeffgddjpdmodnligphcpfag'), /"Allow User Scripts".*chrome:\/\/extensions\/\?id=ipimnlogmeffgddjpdmodnligphcpfag/);
  const firefox = await load('moz-extension://jkl/', {});
  const text = firefox.allowUserScriptsText('gasoline@gasoline-mcp');
  assert.match(text, /about:addons/);
  assert.doesNotMatch(text, /chrome:/);
});

// fakeLocal is a chrome.storage.local of the keys in data.
function fakeLocal(data = {}) {
  return {
    data,
    get: async (k) => (k in data ? { [k]: data[k] } : {}),
    set: async (o) => Object.assign(data, o),
    remove: async (k) => { delete data[k]; },
  };
}

// fakeIDB is an indexedDB of named databases of object stores (Maps), with
// the callbacks IndexedDB calls asynchronously; dbs is what it holds.
function fakeIDB(dbs = {}) {
  const later = (fn) => setTimeout(fn, 0);
  const db = (name) => ({
    createObjectStore: (s) => { dbs[name][s] = new Map(); },
    transaction: (s, mode) => {
      const tx = {};
      const store = dbs[name][s];
      const req = (fn) => {
        const r = {};
        later(() => {
          if (mode !== 'readwrite' && fn.writes) throw new Error('a write in a readonly transaction');
          r.result = fn();
          later(() => tx.oncomplete?.());
        });
        return r;
      };
      const write = (fn) => Object.assign(fn, { writes: true });
      tx.objectStore = () => ({
        get: (k) => req(() => store.get(k)),
        put: (v, k) => req(write(() => { store.set(k, v); return k; })),
        delete: (k) => req(write(() => { store.delete(k); })),
      });
      return tx;
    },
    close: () => {},
  });
  return {
    dbs,
    open: (name) => {
      const r = {};
      later(() => {
        const fresh = !dbs[name];
        dbs[name] ??= {};
        r.result = db(name);
        if (fresh) r.onupgradeneeded?.();
        r.onsuccess?.();
      });
      return r;
    },
  };
}

test('in Chrome, the token stays in storage.local (closed to content scripts by restrictStorage)', async () => {
  const p = await load('chrome-extension://tok/', {});
  const local = fakeLocal();
  const idb = fakeIDB();
  const tokens = p.tokenStore(local, idb);
  assert.equal(await tokens.get(), '');
  await tokens.set('secret-1');
  assert.deepEqual(local.data, { token: 'secret-1' });
  assert.equal(await tokens.get(), 'secret-1');
  await tokens.remove();
  assert.deepEqual(local.data, {});
  assert.deepEqual(idb.dbs, {}, 'Chrome opens no IndexedDB');
});

test('in Firefox, the token lives in the extension origin\'s IndexedDB, never in storage.local', async () => {
  const p = await load('moz-extension://tok/', {});
  const local = fakeLocal({ port: 7890 });
  const idb = fakeIDB();
  const tokens = p.tokenStore(local, idb);
  assert.equal(await tokens.get(), '');
  await tokens.set('secret-2');
  assert.deepEqual(local.data, { port: 7890 }, 'storage.local, which content scripts can read in Firefox, holds no token');
  assert.equal(await tokens.get(), 'secret-2');
  assert.equal(await p.tokenStore(fakeLocal(), idb).get(), 'secret-2', 'the token outlives the store object (the worker restarts)');
  await tokens.remove();
  assert.equal(await tokens.get(), '');
});

test('in Firefox, a token an older build left in storage.local moves to IndexedDB at the first read', async () => {
  const p = await load('moz-extension://tok/', {});
  const local = fakeLocal({ token: 'old-secret', port: 7890 });
  const idb = fakeIDB();
  assert.equal(await p.tokenStore(local, idb).get(), 'old-secret');
  assert.deepEqual(local.data, { port: 7890 }, 'the old token left storage.local');
  assert.equal(await p.tokenStore(fakeLocal(), idb).get(), 'old-secret', 'and is in IndexedDB');
});

// fakePermissions is a chrome with a manifest of optional permissions and
// the granted ones, recording requests.
function fakePermissions(optional, granted = []) {
  const requests = [];
  return {
    requests,
    runtime: { getManifest: () => ({ optional_permissions: optional }) },
    permissions: {
      contains: async ({ permissions }) => permissions.every((p) => granted.includes(p)),
      request: async ({ permissions }) => {
        requests.push(permissions);
        granted.push(...permissions);
        return true;
      },
    },
  };
}

test('the popup offers user scripts only where they are an optional permission not granted yet', async () => {
  const p = await load('moz-extension://us/', {});
  assert.equal(await p.userScriptsAskable(fakePermissions(['userScripts'])), true, 'Firefox, not granted');
  assert.equal(await p.userScriptsAskable(fakePermissions(['userScripts'], ['userScripts'])), false, 'Firefox, granted');
  assert.equal(await p.userScriptsAskable(fakePermissions(undefined)), false, 'Chrome: a permission at install, switched on by a toggle');
  const c = fakePermissions(['userScripts']);
  assert.equal(await p.askUserScripts(c), true);
  assert.deepEqual(c.requests, [['userScripts']]);
  assert.equal(await p.userScriptsAskable(c), false, 'granted: the button goes');
  assert.match(p.allowUserScriptsText('gasoline@gasoline-mcp'), /"Allow user scripts" in the gasoline add-on's popup/);
});
