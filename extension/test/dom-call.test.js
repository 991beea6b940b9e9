// Unit tests of actions/dom.js call: an action in the top frame goes to the
// document the origin rule judged (no getFrame), fails as "navigated" when
// that document is gone before the message reaches it, and asks Chrome as
// before for other frames or without a judged document. Chrome is faked:
// the runtime is present everywhere, and documents listed in gone are not.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const calls = { getFrame: [], sent: [] };
const gone = new Set();
const noop = { addListener() {}, removeListener() {} };
globalThis.chrome = {
  storage: { session: { get: async () => ({}), set: async () => {}, remove: async () => {} } },
  tabs: {
    onRemoved: noop,
    sendMessage: async (tabId, msg, { documentId }) => {
      if (gone.has(documentId)) throw new Error(`No document with id ${documentId} in tab with id ${tabId}.`);
      calls.sent.push({ tabId, documentId, msg });
      return { ok: true, clicked: true };
    },
  },
  scripting: {
    executeScript: async ({ target }) => {
      if (gone.has(target.documentIds[0])) throw new Error(`No document with id ${target.documentIds[0]}.`);
      return [{ result: { runtime: true, relay: true } }];
    },
  },
  webNavigation: {
    ...Object.fromEntries(['onCreatedNavigationTarget', 'onBeforeNavigate', 'onCommitted', 'onDOMContentLoaded', 'onCompleted', 'onErrorOccurred', 'onHistoryStateUpdated', 'onReferenceFragmentUpdated'].map((n) => [n, noop])),
    getFrame: async ({ tabId, frameId }) => {
      calls.getFrame.push({ tabId, frameId });
      return { documentId: `asked-${frameId}`, url: 'http://127.0.0.1:9/now' };
    },
  },
};
const { call } = await import('../actions/dom.js');

const tab = { id: 7, url: 'http://127.0.0.1:9/' };
const act = { op: 'act', action: 'click', opts: {}, timeout_ms: 1000, flush: true };
const target = { selector: '#go' };
const reset = () => {
  calls.getFrame.length = 0;
  calls.sent.length = 0;
  gone.clear();
};

test('an action in the top frame goes to the judged document without asking Chrome for it', async () => {
  reset();
  const judged = Promise.resolve({ documentId: 'judged-doc', url: 'http://127.0.0.1:9/judged' });
  const got = await call(tab, undefined, target, act, { judged });
  assert.deepEqual(calls.getFrame, []);
  assert.equal(calls.sent.length, 1);
  assert.equal(calls.sent[0].documentId, 'judged-doc');
  assert.deepEqual(calls.sent[0].msg.flush, { polls: [] }, 'the flush asks for the judged document\'s origin');
  assert.deepEqual({ frameId: got.frameId, documentId: got.documentId, url: got.url }, { frameId: 0, documentId: 'judged-doc', url: 'http://127.0.0.1:9/judged' });
  assert.deepEqual(got.resp, { clicked: true });
});

test('a judged document gone before the message reached it fails as navigated, and nothing is sent elsewhere', async () => {
  reset();
  gone.add('old-doc');
  const judged = Promise.resolve({ documentId: 'old-doc', url: 'http://127.0.0.1:9/old' });
  await assert.rejects(call(tab, undefined, target, act, { judged }), (err) => {
    assert.equal(err.reason, 'navigated');
    assert.match(err.message, /tab 7 navigated .* before click reached the page, so it did nothing/);
    return true;
  });
  assert.deepEqual(calls.sent, [], 'never retried in a document the rule did not judge');
  assert.deepEqual(calls.getFrame, []);
});

test('without a judged document, or for a ref in another frame, Chrome is asked for the frame as before', async () => {
  reset();
  for (const judged of [undefined, Promise.resolve(null), Promise.reject(new Error('no frame'))]) {
    await call(tab, undefined, target, act, { judged });
  }
  assert.deepEqual(calls.getFrame.map((f) => f.frameId), [0, 0, 0]);
  assert.deepEqual(calls.sent.map((s) => s.documentId), ['asked-0', 'asked-0', 'asked-0']);
  reset();
  const judged = Promise.resolve({ documentId: 'judged-doc', url: 'http://127.0.0.1:9/judged' });
  await call(tab, undefined, { ref: 'f3e12' }, act, { judged });
  assert.deepEqual(calls.getFrame.map((f) => f.frameId), [3]);
  assert.equal(calls.sent[0].documentId, 'asked-3');
});
