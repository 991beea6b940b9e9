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
