// Unit tests of actions/dom.js's navWatch, openWatch and navEffects (what an action's
// effects say of its navigation) on fake chrome.webNavigation events fed
// to a real Settler.
import { test } from 'node:test';
import assert from 'node:assert/strict';

const listeners = {};
const event = (name) => ({
  addListener: (f) => (listeners[name] ||= []).push(f),
  removeListener: (f) => { listeners[name] = listeners[name].filter((g) => g !== f); },
});
const NAV = ['onCreatedNavigationTarget', 'onBeforeNavigate', 'onCommitted', 'onDOMContentLoaded', 'onCompleted', 'onErrorOccurred', 'onHistoryStateUpdated', 'onReferenceFragmentUpdated'];
globalThis.chrome = { webNavigation: Object.fromEntries(NAV.map((n) => [n, event(n)])), tabs: { onRemoved: event('onRemoved') } };
const { navWatch, navEffects, openWatch, frameLeft } = await import('../actions/dom.js');
const { Settler } = await import('../capture/settle.js');

const fire = (name, d) => (listeners[name] || []).forEach((f) => f({ tabId: 7, frameId: 0, ...d }));
const effects = (w, s) => navEffects(w, s.navigating, 'http://x/form', 'http://x/form', 'Form');

test('navigation A aborted because B started (either order, another url or the same): the tab is navigating to B, not "the page stayed"', () => {
  for (const [abortFirst, a] of [[false, 'http://x/a'], [true, 'http://x/a'], [false, 'http://x/b']]) {
    const s = new Settler({ capMs: 0 });
    const w = navWatch(7, s);
    fire('onBeforeNavigate', { url: a });
    if (abortFirst) fire('onErrorOccurred', { url: a, error: 'net::ERR_ABORTED' });
    fire('onBeforeNavigate', { url: 'http://x/b' });
    if (!abortFirst) fire('onErrorOccurred', { url: a, error: 'net::ERR_ABORTED' });
    assert.equal(w.failed, null, `abort first: ${abortFirst}, ${a}`);
    assert.equal(s.navigating, true, 'A\'s end does not mark B ready');
    const e = effects(w, s);
    assert.equal(e.navigation_failed, undefined);
    assert.equal(e.navigated, true);
    assert.equal(e.loading, true);
    fire('onCommitted', { url: 'http://x/b' });
    fire('onDOMContentLoaded', { url: 'http://x/b' });
    assert.equal(s.navigating, false);
    w.stop();
  }
});

test('a navigation that ends before committing (a download, a 204) is still navigation_failed: the page stayed', () => {
  const s = new Settler({ capMs: 0 });
  const w = navWatch(7, s);
  fire('onBeforeNavigate', { url: 'http://x/file.zip' });
  fire('onErrorOccurred', { url: 'http://x/file.zip', error: 'net::ERR_ABORTED' });
  assert.equal(s.navigating, false);
  assert.deepEqual(effects(w, s), { navigation_failed: { url: 'http://x/file.zip', error: 'net::ERR_ABORTED', note: 'the page stayed (a download, a 204 answer or a cancelled navigation)' } });
  w.stop();
});

test('B failing after A was replaced is B\'s failure; other tabs and frames are not watched', () => {
  const s = new Settler({ capMs: 0 });
  const w = navWatch(7, s);
  fire('onBeforeNavigate', { url: 'http://x/a' });
  fire('onBeforeNavigate', { url: 'http://x/b' });
  fire('onErrorOccurred', { url: 'http://x/b', error: 'net::ERR_NAME_NOT_RESOLVED' });
  fire('onBeforeNavigate', { url: 'http://x/c', tabId: 8 });
  fire('onBeforeNavigate', { url: 'http://x/d', frameId: 2 });
  assert.deepEqual(w.failed, { url: 'http://x/b', error: 'net::ERR_NAME_NOT_RESOLVED' });
  assert.equal(s.navigating, false);
  assert.match(effects(w, s).navigation_failed.note, /error page/);
  w.stop();
});

test('navEffects never says navigation_failed while the tab navigates', () => {
  const w = { started: true, committed: false, failed: { url: 'http://x/a', error: 'net::ERR_ABORTED' } };
  assert.equal(navEffects(w, true, 'http://x/', 'http://x/', '').navigation_failed, undefined);
  assert.ok(navEffects(w, false, 'http://x/', 'http://x/', '').navigation_failed);
  assert.deepEqual(navEffects({ started: false, committed: false, failed: null }, false, 'http://x/', 'http://x/', ''), {});
});

test('openWatch follows the first five tabs an action opened and counts the others (more_tabs)', () => {
  const s = new Settler({ capMs: 0 });
  const w = openWatch(7, s);
  for (let i = 0; i < 8; i++) fire('onCreatedNavigationTarget', { sourceTabId: 7, tabId: 100 + i, url: `http://x/${i}` });
  fire('onCreatedNavigationTarget', { sourceTabId: 9, tabId: 200, url: 'http://x/other' });
  assert.deepEqual([...w.opened.keys()], [100, 101, 102, 103, 104]);
  assert.equal(w.more, 3);
  w.stop();
});

test('after a replaced navigation\'s abort, the next one\'s own abort (a download) is its failure; a committed one replaced aborts nothing', () => {
  const s = new Settler({ capMs: 0 });
  const w = navWatch(7, s);
  fire('onBeforeNavigate', { url: 'http://x/export' });
  fire('onBeforeNavigate', { url: 'http://x/export' });
  fire('onErrorOccurred', { url: 'http://x/export', error: 'net::ERR_ABORTED' });
  assert.equal(s.navigating, true);
  fire('onErrorOccurred', { url: 'http://x/export', error: 'net::ERR_ABORTED' });
  assert.equal(s.navigating, false);
  assert.ok(effects(w, s).navigation_failed);
  w.stop();

  const s2 = new Settler({ capMs: 0 });
  const w2 = navWatch(7, s2);
  fire('onBeforeNavigate', { url: 'http://x/a' });
  fire('onCommitted', { url: 'http://x/a' });
  fire('onBeforeNavigate', { url: 'http://x/file.zip' });
  fire('onErrorOccurred', { url: 'http://x/file.zip', error: 'net::ERR_ABORTED' });
  assert.equal(s2.navigating, false, 'the download ended what was followed');
  w2.stop();
});

test('a subframe\'s document gone during an action went with it only when its runtime took the message and that frame began navigating', () => {
  const w = navWatch(7, new Settler({ capMs: 0 }));
  const gone = (frameId, message) => Object.assign(new Error(message), { frameId });
  const closed = 'A listener indicated an asynchronous response by returning true, but the message channel closed before a response was received';
  assert.equal(frameLeft(w, gone(3, closed)), false, 'no navigation began in frame 3');
  fire('onBeforeNavigate', { frameId: 3, url: 'http://x/widget-login' });
  fire('onBeforeNavigate', { tabId: 8, frameId: 4, url: 'http://x/other-tab' });
  assert.equal(w.started, false, 'a subframe\'s navigation is not the tab\'s');
  assert.equal(frameLeft(w, gone(3, closed)), true, 'the form posted in the iframe took its document away');
  assert.equal(frameLeft(w, gone(3, 'No document with id ABC in tab with id 7.')), false, 'never delivered: the action did not run');
  assert.equal(frameLeft(w, gone(4, closed)), false, 'frame 4 navigated in another tab');
  assert.equal(frameLeft(w, gone(0, closed)), false, 'the top frame is the tab\'s navigation (started)');
  w.stop();
  fire('onBeforeNavigate', { frameId: 5, url: 'http://x/late' });
  assert.equal(frameLeft(w, gone(5, closed)), false, 'not watched after stop');
});
