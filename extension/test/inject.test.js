// Unit tests of bringing the DOM runtime into a document on first use
// (actions/inject.js) on a scripted chrome.*.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ensureRuntime, RUNTIME_FILES } from '../actions/inject.js';

import { registrations } from '../capture/declared.js';

// registered is the registration at work (capture/declared.js): every frame.
const declared = JSON.parse(fs.readFileSync(new URL('../capture/declared.json', import.meta.url)));
const registered = registrations(declared, true);

// fakeChrome answers present() with has[documentId] ({runtime, relay}),
// after a turn of the event loop, and records every injection.
function fakeChrome(has) {
  const calls = [];
  const api = {
    // capture/declared.json, read by tabs/reach.js for the entries the worker injects itself
    runtime: { getURL: () => `data:application/json,${encodeURIComponent(JSON.stringify(declared))}` },
    scripting: {
      getRegisteredContentScripts: async () => registered,
      executeScript: async (opts) => {
        calls.push(opts);
        await new Promise((r) => setTimeout(r, 1));
        const docs = opts.target.documentIds ?? Object.keys(has);
        if (opts.func?.name === 'present') return docs.map((d) => ({ documentId: d, frameId: 0, result: has[d] }));
        if (opts.func?.name === 'hasIsolated') return docs.map((d) => ({ documentId: d, frameId: 0, result: has[d].relay }));
        if (opts.func?.name === 'hasPristine') return docs.map((d) => ({ documentId: d, frameId: 0, result: has[d].relay }));
        if (opts.files?.includes('dist/runtime.js')) for (const d of docs) has[d].runtime = true;
        if (opts.files?.includes('capture/relay.js')) for (const d of docs) has[d].relay = true;
        return docs.map((d) => ({ documentId: d, frameId: 0 }));
      },
    },
  };
  return { api, calls };
}

const tab = { id: 3, url: 'http://x/', status: 'complete' };
const fileSets = (calls) => calls.filter((c) => c.files).map((c) => `${c.world ?? 'ISOLATED'}:${c.files.join('+')}`);

test('concurrent first actions in one document inject the runtime once, into that document', async () => {
  const { api, calls } = fakeChrome({ d1: { runtime: false, relay: true } });
  await Promise.all([ensureRuntime(tab, 'd1', api), ensureRuntime(tab, 'd1', api), ensureRuntime(tab, 'd1', api)]);
  assert.deepEqual(fileSets(calls), [`ISOLATED:${RUNTIME_FILES.join('+')}`]);
  const inj = calls.find((c) => c.files);
  assert.deepEqual(inj.target, { tabId: 3, documentIds: ['d1'] });
  assert.equal(inj.injectImmediately, true, 'a page still loading gets it at once');
  const n = calls.length;
  await ensureRuntime(tab, 'd1', api);
  assert.equal(calls.length, n, 'a warm document costs nothing');
});

test('a document that has the runtime (another worker brought it) gets nothing', async () => {
  const { api, calls } = fakeChrome({ d2: { runtime: true, relay: true } });
  await ensureRuntime(tab, 'd2', api);
  assert.deepEqual(fileSets(calls), []);
});

test('a document older than the extension gets the declared scripts first, then the runtime', async () => {
  const { api, calls } = fakeChrome({ d3: { runtime: false, relay: false } });
  await ensureRuntime(tab, 'd3', api);
  assert.deepEqual(fileSets(calls), [
    'ISOLATED:dist/start-isolated.js',
    'MAIN:dist/start-main.js',
    'ISOLATED:dist/end-isolated.js',
    `ISOLATED:${RUNTIME_FILES.join('+')}`,
  ]);
});

test('a refused injection rejects, and the next call tries again', async () => {
  const { api, calls } = fakeChrome({ d4: { runtime: false, relay: true } });
  const real = api.scripting.executeScript;
  api.scripting.executeScript = async () => {
    throw new Error('Cannot access contents of the page');
  };
  await assert.rejects(ensureRuntime(tab, 'd4', api), /Cannot access/);
  api.scripting.executeScript = real;
  await ensureRuntime(tab, 'd4', api);
  assert.deepEqual(fileSets(calls), [`ISOLATED:${RUNTIME_FILES.join('+')}`]);
});
