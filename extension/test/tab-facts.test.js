// tabs/facts.js on a fake chrome.tabs: which gets ask the browser, which
// are answered from what it said before the tab last changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TabFacts, MAX_AGE_MS } from '../tabs/facts.js';

function event() {
  const listeners = [];
  return { addListener: (f) => listeners.push(f), fire: (...a) => listeners.forEach((f) => f(...a)) };
}

function fakeTabs() {
  const tabs = new Map([[1, { id: 1, url: 'http://localhost/a', active: true }], [2, { id: 2, url: 'http://localhost/b', active: false }]]);
  const asked = [];
  const api = {
    tabs: {
      get: async (id) => {
        asked.push(id);
        if (!tabs.has(id)) throw new Error(`No tab with id: ${id}.`);
        return { ...tabs.get(id) };
      },
    },
  };
  for (const e of ['onUpdated', 'onCreated', 'onRemoved', 'onMoved', 'onAttached', 'onDetached', 'onReplaced', 'onActivated', 'onHighlighted']) api.tabs[e] = event();
  return { api, tabs, asked };
}

test('without its listeners every get asks Chrome', async () => {
  const { api, asked } = fakeTabs();
  const facts = new TabFacts({ api });
  await facts.get(1);
  await facts.get(1);
  await facts.fresh(1);
  assert.deepEqual(asked, [1, 1, 1]);
});

test('a get is answered from the last answer until the tab changes', async () => {
  const { api, tabs, asked } = fakeTabs();
  const facts = new TabFacts({ api });
  facts.listen();
  assert.equal((await facts.get(1)).url, 'http://localhost/a');
  assert.equal((await facts.get(1)).url, 'http://localhost/a');
  assert.deepEqual(asked, [1]);

  tabs.get(1).url = 'https://example.com/';
  api.tabs.onUpdated.fire(2, { title: 'b' }, tabs.get(2)); // another tab: 1's answer stays
  await facts.get(1);
  assert.deepEqual(asked, [1]);
  api.tabs.onUpdated.fire(1, { url: 'https://example.com/' }, tabs.get(1));
  assert.equal((await facts.get(1)).url, 'https://example.com/');
  assert.deepEqual(asked, [1, 1]);
});

test('events that change other tabs drop every answer', async () => {
  for (const e of ['onCreated', 'onRemoved', 'onMoved', 'onAttached', 'onDetached', 'onReplaced', 'onActivated', 'onHighlighted']) {
    const { api, asked } = fakeTabs();
    const facts = new TabFacts({ api });
    facts.listen();
    await facts.get(1);
    await facts.get(2);
    api.tabs[e].fire({});
    await facts.get(1);
    await facts.get(2);
    assert.deepEqual(asked, [1, 2, 1, 2], e);
  }
});

test('fresh always asks, and the gets after it share its answer', async () => {
  const { api, tabs, asked } = fakeTabs();
  const facts = new TabFacts({ api });
  facts.listen();
  await facts.get(1);
  tabs.get(1).url = 'https://example.com/'; // its event still on its way
  assert.equal((await facts.fresh(1)).url, 'https://example.com/');
  assert.equal((await facts.get(1)).url, 'https://example.com/');
  assert.deepEqual(asked, [1, 1]);
});

test('drop, a failed get and age make the next get ask', async () => {
  const { api, tabs, asked } = fakeTabs();
  let now = 0;
  const facts = new TabFacts({ api, now: () => now });
  facts.listen();
  await facts.get(1);
  facts.drop(1);
  await facts.get(1);
  assert.deepEqual(asked, [1, 1]);

  await assert.rejects(facts.get(7), /No tab with id: 7/);
  tabs.set(7, { id: 7 });
  assert.equal((await facts.get(7)).id, 7);
  assert.deepEqual(asked, [1, 1, 7, 7]);

  now += MAX_AGE_MS + 1;
  await facts.get(1);
  assert.deepEqual(asked, [1, 1, 7, 7, 1]);
});

test('each caller gets its own copy', async () => {
  const { api } = fakeTabs();
  const facts = new TabFacts({ api });
  facts.listen();
  const a = await facts.get(1);
  a.url = 'changed by a caller';
  assert.equal((await facts.get(1)).url, 'http://localhost/a');
});
