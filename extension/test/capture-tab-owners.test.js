// The capture worker's tab events carry what tabs/owners.js says about the
// tab (owner, owner_name, group), in the order Chrome reported them, and a
// change of owner or group reports the tab again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noteTab, startCapture } from '../capture/worker.js';
import { sanitise, DEFAULT_SETTINGS } from '../capture/events.js';

function event() {
  const listeners = [];
  return { addListener: (f) => listeners.push(f), fire: (...a) => listeners.forEach((f) => f(...a)) };
}

const store = new Map();
const tabs = new Map([[5, { id: 5, windowId: 1, url: 'https://a.test/', title: 'A', status: 'complete', active: true, groupId: 9 }]]);
const api = {
  runtime: { id: 'gasoline', getURL: (p) => `chrome-extension://gasoline/${p}`, onMessage: event() },
  storage: {
    session: {
      get: async () => Object.fromEntries(store),
      set: async (items) => Object.entries(items).forEach(([k, v]) => store.set(k, v)),
      remove: async (k) => [].concat(k).forEach((x) => store.delete(x)),
    },
    onChanged: event(),
  },
  tabs: {
    onUpdated: event(), onRemoved: event(), onActivated: event(),
    get: async (id) => ({ ...tabs.get(id) }),
    query: async ({ groupId }) => [...tabs.values()].filter((t) => t.groupId === groupId),
  },
  tabGroups: { onUpdated: event() },
  webNavigation: { onHistoryStateUpdated: event(), onReferenceFragmentUpdated: event() },
};

const posts = [];
const client = {
  postEvents: async (body) => {
    posts.push(body);
    return { accepted: body.events.length, rejected: [], config_version: 1 };
  },
  captureConfig: async () => ({ version: 1, redact_headers: true, body_cap: 1000, kinds: {} }),
};

// tabInfo answers slowly for the first event, fast after: order must hold.
let group = 'claude-code';
let calls = 0;
const tabInfo = async (tab) => {
  if (calls++ === 0) await new Promise((r) => setTimeout(r, 50));
  return { owner: 'client-a', owner_name: 'claude-code', group: tab.groupId >= 0 ? group : '' };
};
startCapture({ loadConfig: async () => ({ token: 't', port: 1 }), makeClient: () => client, tabInfo, api, log: { warn() {}, error() {} } });

const tabEvents = () => posts.flatMap((p) => p.events).filter((e) => e.kind === 'tab');

async function until(what, check, limitMs = 5000) {
  for (const end = Date.now() + limitMs; Date.now() < end; await new Promise((r) => setTimeout(r, 10))) {
    if (check()) return;
  }
  assert.fail(`not within ${limitMs} ms: ${what}`);
}

test('tab events carry owner and group, in order', async () => {
  api.tabs.onUpdated.fire(5, { status: 'loading' }, { ...tabs.get(5), status: 'loading' });
  api.tabs.onUpdated.fire(5, { status: 'complete' }, { ...tabs.get(5) });
  api.tabs.onUpdated.fire(5, { groupId: -1 }, { ...tabs.get(5), groupId: -1 }); // the user ungrouped it
  await until('three tab events', () => tabEvents().length === 3);
  const [a, b, c] = tabEvents();
  assert.equal(a.status, 'loading', 'the slow first event still goes first');
  assert.equal(b.status, 'complete');
  assert.deepEqual([a.owner, a.owner_name, a.group], ['client-a', 'claude-code', 'claude-code']);
  assert.equal(c.group, '', 'ungrouped: group cleared');
});

test('noteTab and a renamed group report the tab again', async () => {
  posts.length = 0;
  noteTab(5);
  await until('the noted tab', () => tabEvents().length === 1);
  assert.equal(tabEvents()[0].type, 'updated');
  assert.equal(tabEvents()[0].title, 'A');
  group = 'renamed';
  api.tabGroups.onUpdated.fire({ id: 9, title: 'renamed' });
  await until('the renamed group', () => tabEvents().length === 2);
  assert.equal(tabEvents()[1].group, 'renamed');
});

test('sanitise keeps the owner fields of tab events, capped', () => {
  const e = sanitise({ kind: 'tab', type: 'updated', owner: 'c', owner_name: 'n'.repeat(100), group: '' }, { tab_id: 1, frame_id: 0, page_url: '' },
    DEFAULT_SETTINGS, { allowTab: true });
  assert.equal(e.owner, 'c');
  assert.equal(e.owner_name.length, 64);
  assert.equal(e.group, '');
});
