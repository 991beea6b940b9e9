import assert from 'node:assert/strict';
import test from 'node:test';

import { TopDocuments } from '../tabs/tops.js';

// fakeApi is the part of chrome that TopDocuments listens to, with a way to fire each event.
function fakeApi() {
  const listeners = {};
  const ev = (name) => ({ addListener: (fn) => (listeners[name] = fn) });
  return {
    fire: (name, ...args) => listeners[name](...args),
    webNavigation: { onCommitted: ev('committed'), onHistoryStateUpdated: ev('history'), onReferenceFragmentUpdated: ev('fragment') },
    tabs: { onUpdated: ev('updated'), onRemoved: ev('removed'), onReplaced: ev('replaced') },
  };
}

test('a tab\'s top document is the last one committed there, its URL moved by pushState and fragments', () => {
  const api = fakeApi();
  const tops = new TopDocuments();
  tops.listen(api);
  assert.equal(tops.get(7), null, 'nothing is known before an event');
  api.fire('committed', { tabId: 7, frameId: 0, documentId: 'A', url: 'http://localhost/a' });
  api.fire('committed', { tabId: 7, frameId: 3, documentId: 'F', url: 'http://other.test/frame' });
  assert.deepEqual(tops.get(7), { documentId: 'A', url: 'http://localhost/a' }, 'an iframe\'s commit is not the top document');
  api.fire('history', { tabId: 7, frameId: 0, documentId: 'A', url: 'http://localhost/a/2' });
  api.fire('fragment', { tabId: 7, frameId: 0, documentId: 'A', url: 'http://localhost/a/2#x' });
  assert.deepEqual(tops.get(7), { documentId: 'A', url: 'http://localhost/a/2#x' });
  api.fire('committed', { tabId: 7, frameId: 0, documentId: 'B', url: 'https://shop.example/' });
  assert.deepEqual(tops.get(7), { documentId: 'B', url: 'https://shop.example/' });
  const copy = tops.get(7);
  copy.url = 'http://localhost/';
  assert.equal(tops.get(7).url, 'https://shop.example/', 'a caller gets a copy');
});

test('a closed or replaced tab is forgotten', () => {
  const api = fakeApi();
  const tops = new TopDocuments();
  tops.listen(api);
  api.fire('committed', { tabId: 1, frameId: 0, documentId: 'A', url: 'http://localhost/' });
  api.fire('committed', { tabId: 2, frameId: 0, documentId: 'B', url: 'http://localhost/' });
  api.fire('removed', 1);
  api.fire('replaced', 9, 2);
  assert.equal(tops.get(1), null);
  assert.equal(tops.get(2), null);
  assert.equal(tops.get(9), null, 'the tab that took another\'s place is asked, not guessed');
});

test('a tab that starts loading or changes URL is asked again until its next commit', () => {
  const api = fakeApi();
  const tops = new TopDocuments();
  tops.listen(api);
  api.fire('committed', { tabId: 1, frameId: 0, documentId: 'A', url: 'http://localhost/' });
  api.fire('updated', 1, { title: 'A page' });
  api.fire('updated', 1, { status: 'loading', url: 'http://localhost/' });
  assert.deepEqual(tops.get(1), { documentId: 'A', url: 'http://localhost/' }, 'a new title, or the commit told again, is no new document');
  api.fire('updated', 1, { url: 'https://shop.example/' }); // a prerendered page activated: no commit is told
  assert.equal(tops.get(1), null);
  api.fire('committed', { tabId: 1, frameId: 0, documentId: 'B', url: 'http://localhost/b' });
  api.fire('updated', 1, { status: 'loading' }); // a reload starting
  assert.equal(tops.get(1), null);
  // A pushState names the document again.
  api.fire('history', { tabId: 1, frameId: 0, documentId: 'B', url: 'http://localhost/b/2' });
  assert.deepEqual(tops.get(1), { documentId: 'B', url: 'http://localhost/b/2' });
});

test('an answer asked of Chrome is kept, unless an event of the tab came while it was on its way', async () => {
  const api = fakeApi();
  const tops = new TopDocuments();
  tops.listen(api);
  const frame = { documentId: 'A', url: 'http://localhost/', frameType: 'outermost_frame' };
  assert.equal(await tops.ask(1, Promise.resolve(frame)), frame);
  assert.deepEqual(tops.get(1), { documentId: 'A', url: 'http://localhost/' });

  let answer;
  const asked = tops.ask(2, new Promise((resolve) => (answer = resolve)));
  api.fire('committed', { tabId: 2, frameId: 0, documentId: 'B', url: 'https://shop.example/' });
  answer({ documentId: 'OLD', url: 'http://localhost/old' }); // asked before the commit, answered after
  await asked;
  assert.deepEqual(tops.get(2), { documentId: 'B', url: 'https://shop.example/' });

  const dropped = tops.ask(3, new Promise((resolve) => (answer = resolve)));
  api.fire('updated', 3, { status: 'loading' });
  answer({ documentId: 'OLD', url: 'http://localhost/old' });
  await dropped;
  assert.equal(tops.get(3), null, 'a tab that started loading meanwhile is asked again next time');
  await tops.ask(4, Promise.resolve(null));
  assert.equal(tops.get(4), null, 'no answer, nothing kept');
});
