// Unit tests of back and forward (historyStep) and of the wait for a
// navigation to start and finish (loadAndWait), on a scripted chrome.tabs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { historyStep, loadAndWait, refusedScripting } from '../actions/tabs.js';
import { CommandError } from '../runner.js';

// fakeChrome is a browser with one tab, 7, showing url. inject decides what
// chrome.scripting.executeScript does; buttons what tabs.goBack does.
function fakeChrome({ url = 'http://x/b', inject, buttons } = {}) {
  const listeners = { updated: new Set(), removed: new Set() };
  const tab = { id: 7, url, title: 'B', status: 'complete' };
  const event = (set) => ({ addListener: (f) => set.add(f), removeListener: (f) => set.delete(f) });
  const fire = (info) => {
    Object.assign(tab, info);
    for (const f of [...listeners.updated]) f(7, info, { ...tab });
  };
  globalThis.chrome = {
    tabs: {
      get: async (id) => {
        if (id !== 7) throw new Error('no tab');
        return { ...tab };
      },
      onUpdated: event(listeners.updated),
      onRemoved: event(listeners.removed),
      goBack: buttons ?? (async () => { throw new Error('Cannot find a next page in history.'); }),
      goForward: buttons ?? (async () => { throw new Error('Cannot find a next page in history.'); }),
    },
    scripting: { executeScript: async (opts) => inject(opts, fire) },
  };
  return { fire, listeners };
}

// navigates makes history.go load a page: loading, then complete with url.
const navigates = (to, title) => async (opts, fire) => {
  assert.equal(opts.target.tabId, 7);
  setTimeout(() => fire({ status: 'loading', url: to }), 5);
  setTimeout(() => fire({ status: 'complete', title }), 10);
  return [{ result: 3 }];
};

test('back loads the previous page through the page\'s history', async () => {
  let delta;
  const c = fakeChrome({
    inject: async (opts, fire) => {
      delta = opts.args[0];
      return navigates('http://x/a', 'A')(opts, fire);
    },
  });
  const got = await historyStep({ tab_id: 7 }, undefined, -1, 1000);
  assert.equal(delta, -1);
  assert.deepEqual(got, { tab_id: 7, url: 'http://x/a', title: 'A' });
  assert.equal(c.listeners.updated.size, 0, 'listeners removed');
});

test('a history of one page fails at once', async () => {
  fakeChrome({ inject: async () => [{ result: 1 }] });
  await assert.rejects(historyStep({ tab_id: 7 }, undefined, -1, 60000),
    (err) => err instanceof CommandError && /no page to go back to: its history holds only/.test(err.message));
});

test('nothing to go forward to fails after the settle time, not the deadline', async () => {
  fakeChrome({ inject: async () => [{ result: 4 }] });
  await assert.rejects(historyStep({ tab_id: 7 }, undefined, 1, 20),
    (err) => err instanceof CommandError && /no page to go forward to \(it did not navigate within 20 ms\)/.test(err.message));
});

test('a page that cannot be scripted falls back to the browser button', async () => {
  let pressed = false;
  const c = fakeChrome({
    url: 'chrome://settings',
    inject: async () => { throw new Error('Cannot access a chrome:// URL'); },
    buttons: async () => {
      pressed = true;
      setTimeout(() => c.fire({ status: 'loading', url: 'http://x/a' }), 5);
      setTimeout(() => c.fire({ status: 'complete', title: 'A' }), 10);
    },
  });
  const got = await historyStep({ tab_id: 7 }, undefined, -1, 1000);
  assert.ok(pressed);
  assert.equal(got.url, 'http://x/a');
});

test('when both ways fail the error gives both reasons', async () => {
  fakeChrome({ url: 'chrome://settings', inject: async () => { throw new Error('Cannot access a chrome:// URL'); } });
  await assert.rejects(historyStep({ tab_id: 7 }, undefined, -1, 1000),
    (err) => /cannot go back in tab 7: .*Chrome does not let extensions script browser pages.*Cannot find a next page in history/.test(err.message));
});

test('a reply lost after history.go ran does not press the button too (one step, not two)', async () => {
  let pressed = false;
  const c = fakeChrome({
    // history.go(-1) ran and the page navigated away before its reply came back.
    inject: async (opts, fire) => {
      setTimeout(() => fire({ status: 'loading', url: 'http://x/a' }), 5);
      setTimeout(() => fire({ status: 'complete', title: 'A' }), 10);
      throw new Error('Frame with ID 0 was removed.');
    },
    buttons: async () => {
      pressed = true;
      setTimeout(() => c.fire({ status: 'loading', url: 'chrome://new-tab-page/' }), 1);
    },
  });
  const got = await historyStep({ tab_id: 7 }, undefined, -1, 1000);
  assert.equal(pressed, false, 'the browser button was pressed after history.go');
  assert.deepEqual(got, { tab_id: 7, url: 'http://x/a', title: 'A' });
});

test('a lost reply with no navigation after it says there is no page to go to', async () => {
  let pressed = false;
  fakeChrome({
    inject: async () => { throw new Error('Frame with ID 0 was removed.'); },
    buttons: async () => { pressed = true; },
  });
  await assert.rejects(historyStep({ tab_id: 7 }, undefined, -1, 20),
    (err) => err instanceof CommandError && /no page to go back to \(it did not navigate within 20 ms\)/.test(err.message));
  assert.equal(pressed, false);
});

test('refusedScripting tells a refused page from a lost frame', () => {
  for (const m of ['Cannot access a chrome:// URL', 'The extensions gallery cannot be scripted.',
    'Frame with ID 0 is showing error page', 'Cannot access contents of the page. Extension manifest must request permission to access the respective host.']) {
    assert.equal(refusedScripting(new Error(m)), true, m);
  }
  for (const m of ['Frame with ID 0 was removed.', 'No tab with id: 7.', 'The page was navigated']) {
    assert.equal(refusedScripting(new Error(m)), false, m);
  }
});

test('a settled wait does not take the page still shown for the new one', async () => {
  const c = fakeChrome({});
  // start returns before the navigation begins: the tab still says complete.
  const wait = loadAndWait(7, async () => {}, undefined, { settleMs: 1000, nothing: 'nothing' });
  setTimeout(() => c.fire({ status: 'loading', url: 'http://x/c' }), 20);
  setTimeout(() => c.fire({ status: 'complete', title: 'C' }), 30);
  const got = await wait;
  assert.equal(got.url, 'http://x/c');
});

test('an abort ends the wait with its reason', async () => {
  fakeChrome({});
  const ac = new AbortController();
  const wait = loadAndWait(7, async () => {}, ac.signal, { settleMs: 60000, nothing: 'nothing' });
  ac.abort(new Error('deadline'));
  await assert.rejects(wait, /deadline/);
});
