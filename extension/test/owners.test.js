// Tabs per agent (tabs/owners.js) on a fake browser: windows of tabs, tab
// groups and chrome.storage.session, with runQuery stood in for by exec,
// which acts in the tab it is given as the real actions do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TabOwners, STORAGE_KEY, fallbackName } from '../tabs/owners.js';
import { CommandError } from '../runner.js';

function event() {
  const listeners = [];
  return { addListener: (f) => listeners.push(f), listeners, fire: (...a) => listeners.forEach((f) => f(...a)) };
}

// fakeBrowser: windows 1 and 2; window 1 (last focused) holds the user's
// tabs 1 (active) and 2. session is the storage, shared across "workers".
// Windows an agent opens (chrome.windows.create) are numbered from 10 and
// listed in windowsMade with the properties they were made with.
function fakeBrowser({ session = new Map(), groupFails = false } = {}) {
  let nextTab = 100;
  let nextGroup = 500;
  let nextWindow = 10;
  const windowsMade = [];
  const tabs = new Map([[1, { id: 1, windowId: 1, active: true, groupId: -1 }], [2, { id: 2, windowId: 1, active: false, groupId: -1 }]]);
  const groups = new Map();
  let focused = 1;
  const onRemoved = event();
  const onCreated = event();
  const onReplaced = event();
  const api = {
    storage: {
      session: {
        get: async (k) => (session.has(k) ? { [k]: JSON.parse(session.get(k)) } : {}),
        set: async (items) => Object.entries(items).forEach(([k, v]) => session.set(k, JSON.stringify(v))),
      },
    },
    tabs: {
      onRemoved,
      onCreated,
      onReplaced,
      get: async (id) => {
        if (!tabs.has(id)) throw new Error(`No tab with id: ${id}.`);
        return { ...tabs.get(id) };
      },
      query: async ({ windowId, active } = {}) => [...tabs.values()]
        .filter((t) => (windowId === undefined || t.windowId === windowId) && (active === undefined || t.active === active))
        .map((t) => ({ ...t })),
      create: async ({ active = true, windowId = focused, openerTabId } = {}) => {
        const t = { id: nextTab++, windowId, active, groupId: -1, openerTabId };
        if (active) for (const o of tabs.values()) if (o.windowId === windowId) o.active = false;
        tabs.set(t.id, t);
        onCreated.fire({ ...t });
        return { ...t };
      },
      update: async (id, { active }) => {
        const t = tabs.get(id);
        if (!t) throw new Error(`No tab with id: ${id}.`);
        if (active) {
          for (const o of tabs.values()) if (o.windowId === t.windowId) o.active = false;
          t.active = true;
        }
        return { ...t };
      },
      remove: async (id) => {
        tabs.delete(id);
        onRemoved.fire(id, {});
      },
      group: async ({ groupId, tabIds, createProperties }) => {
        if (groupFails) throw new Error('Tabs cannot be edited right now (user may be dragging a tab).');
        if (groupId === undefined) {
          groupId = nextGroup++;
          groups.set(groupId, { id: groupId, windowId: createProperties.windowId, title: '', color: 'grey' });
        }
        if (!groups.has(groupId)) throw new Error(`No group with id: ${groupId}.`);
        for (const id of tabIds) tabs.get(id).groupId = groupId;
        return groupId;
      },
    },
    tabGroups: {
      get: async (id) => {
        if (!groups.has(id)) throw new Error(`No group with id: ${id}.`);
        return { ...groups.get(id) };
      },
      update: async (id, props) => Object.assign(groups.get(id), props),
    },
    windows: {
      getLastFocused: async () => ({ id: focused, left: 0, top: 0, width: 1000, height: 800, state: 'normal', type: 'normal',
        tabs: [...tabs.values()].filter((t) => t.windowId === focused).map((t) => ({ ...t })) }),
      get: async (id) => ({ id, type: 'normal', tabs: [...tabs.values()].filter((t) => t.windowId === id).map((t) => ({ ...t })) }),
      create: async (props) => {
        const id = nextWindow++;
        windowsMade.push({ id, ...props });
        const t = { id: nextTab++, windowId: id, active: true, groupId: -1 };
        tabs.set(t.id, t);
        onCreated.fire({ ...t });
        return { id, ...props, tabs: [{ ...t }] };
      },
      update: async () => {},
    },
  };
  return {
    api,
    tabs,
    groups,
    windowsMade,
    session,
    focus: (w) => { focused = w; },
    activate: (id) => {
      const t = tabs.get(id);
      for (const o of tabs.values()) if (o.windowId === t.windowId) o.active = false;
      t.active = true;
    },
    userCloses: (id) => { tabs.delete(id); onRemoved.fire(id, {}); },
    dissolve: (gid) => {
      groups.delete(gid);
      for (const t of tabs.values()) if (t.groupId === gid) t.groupId = -1;
    },
    // replace swaps tab id for a new id, as Chrome does for a prerendered or
    // discarded page: the old id is gone and onReplaced(added, removed) fires.
    replace: (id) => {
      const t = { ...tabs.get(id), id: nextTab++ };
      tabs.delete(id);
      tabs.set(t.id, t);
      onReplaced.fire(t.id, id);
      return t.id;
    },
    drag: (id, windowId) => { Object.assign(tabs.get(id), { windowId, groupId: -1 }); },
  };
}

// exec stands in for runQuery: new_tab creates its tab (telling the hook),
// the other actions act in params.tab_id and say so; what each acted on is
// logged in b.acted.
function executor(b) {
  b.acted = [];
  return async (query, _signal, hooks = {}) => {
    const p = query.params ?? {};
    const action = query.action;
    if (action === 'new_tab') {
      const props = { url: p.url, active: p.active ?? true };
      const t = hooks.create ? await hooks.create(props) : await b.api.tabs.create(props);
      if (hooks.onCreated) await hooks.onCreated(t);
      b.acted.push([action, t.id]);
      return { tab_id: t.id, url: p.url ?? '' };
    }
    if (p.tab_id === undefined) throw new CommandError('exec got no tab_id: the owners must choose one');
    const tab = await b.api.tabs.get(Number(p.tab_id)).catch(() => { throw new CommandError(`no tab with id ${p.tab_id}`); });
    b.acted.push([action, tab.id]);
    if (action === 'close_tab') {
      await b.api.tabs.remove(tab.id);
      return { closed: tab.id };
    }
    return { tab_id: tab.id };
  };
}

function setup(opts) {
  const b = fakeBrowser(opts);
  const changed = [];
  const owners = new TabOwners({ api: b.api, onChange: (id) => changed.push(id), log: { warn() {} } });
  owners.listen();
  const exec = executor(b);
  const run = (client, action, params = {}, name = client === 'A' ? 'claude-code' : 'cursor') =>
    owners.run({ correlation_id: 'x', action, params, client, client_name: name }, undefined, exec);
  return { b, owners, run, changed };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

test('new_tab: the tab is the client\'s, in its group titled after it, and its commands go there', async () => {
  const { b, owners, run, changed } = setup();
  const { tab_id: a } = await run('A', 'new_tab', { url: 'http://x/a' });
  assert.deepEqual(owners.ownerOf(a), { client: 'A', name: 'claude-code' });
  const gid = b.tabs.get(a).groupId;
  assert.equal(b.groups.get(gid).title, 'claude-code');
  assert.ok(changed.includes(a), 'capture is told the tab changed owner');

  b.activate(1); // the user looks at their own tab again
  assert.deepEqual(await run('A', 'fill', { selector: '#q', text: 'x' }), { tab_id: a });
  assert.deepEqual(await run('A', 'execute_js', { script: '1' }), { tab_id: a });

  const { tab_id: a2 } = await run('A', 'new_tab', {});
  assert.equal(b.tabs.get(a2).groupId, gid, 'one group per client and window');
  assert.equal(owners.lastOf('A'), a2);

  const { tab_id: c } = await run('C', 'new_tab', {});
  assert.notEqual(b.tabs.get(c).groupId, gid, 'another client gets its own group');
  assert.equal(b.groups.get(b.tabs.get(c).groupId).title, 'cursor');
  assert.ok(b.groups.get(gid).color !== undefined);
});

test('a group the user dissolved, or in another window, is made again; grouping failures do not fail new_tab', async () => {
  const { b, run } = setup();
  const { tab_id: a } = await run('A', 'new_tab', {});
  const gid = b.tabs.get(a).groupId;
  b.dissolve(gid);
  const { tab_id: a2 } = await run('A', 'new_tab', {});
  assert.notEqual(b.tabs.get(a2).groupId, -1);
  assert.notEqual(b.tabs.get(a2).groupId, gid);
  assert.equal(b.groups.get(b.tabs.get(a2).groupId).title, 'claude-code');

  b.drag(a2, 2); // the user drags the agent's tab into a window of its own
  const { tab_id: a3 } = await run('A', 'new_tab', {});
  assert.equal(b.groups.get(b.tabs.get(a3).groupId).windowId, 2, 'a group in the tab\'s own window');

  const failing = setup({ groupFails: true });
  const { tab_id: f } = await failing.run('A', 'new_tab', {});
  assert.equal(failing.b.tabs.get(f).groupId, -1);
  assert.deepEqual(failing.owners.ownerOf(f), { client: 'A', name: 'claude-code' }, 'owned even ungrouped');
  assert.deepEqual(await failing.run('A', 'click', { text: 'Go' }), { tab_id: f });
});

test('a client with no tab: navigate opens an owned tab, close_tab fails, others use the active tab', async () => {
  const { b, owners, run } = setup();
  await assert.rejects(run('A', 'close_tab'), (err) => err instanceof CommandError &&
    /close_tab without tab_id closes only a tab this agent opened, and it has none open; pass the tab_id/.test(err.message));
  assert.ok(b.tabs.has(1), 'the user\'s tab is still open');

  assert.deepEqual(await run('B', 'get_text', {}), { tab_id: 1 }, 'the active tab of the last focused window');
  assert.equal(owners.lastOf('B'), 1, 'and it sticks');
  b.activate(2);
  assert.deepEqual(await run('B', 'get_text', {}), { tab_id: 1 }, 'its last used tab, not the one the user now has in front');

  const { tab_id: n } = await run('A', 'navigate', { url: 'http://x/' });
  assert.ok(n >= 100, 'navigate opened a tab rather than using the user\'s');
  assert.deepEqual(owners.ownerOf(n), { client: 'A', name: 'claude-code' });
  assert.notEqual(b.tabs.get(n).groupId, -1);
  assert.equal(owners.lastOf('A'), n);
});

test('navigate and close_tab never default to a tab the client does not own', async () => {
  const { b, owners, run } = setup();
  await run('A', 'get_text', {}); // A's last used tab is the user's tab 1
  assert.equal(owners.lastOf('A'), 1);
  const { tab_id: n } = await run('A', 'navigate', { url: 'http://x/' });
  assert.notEqual(n, 1);
  assert.equal(b.acted.filter(([a, id]) => a === 'navigate' && id === 1).length, 0);

  b.activate(1);
  await run('B', 'get_text', {});
  await assert.rejects(run('B', 'close_tab'), /close_tab without tab_id/);
  assert.ok(b.tabs.has(1));

  assert.deepEqual(await run('A', 'close_tab'), { closed: n }, 'its own last tab it may close');
  assert.equal(owners.ownerOf(n), undefined, 'forgotten once closed');
});

test('another agent\'s tab: never by default, only by naming it with force', async () => {
  const { b, owners, run } = setup();
  const { tab_id: a } = await run('A', 'new_tab', {});
  b.focus(b.tabs.get(a).windowId); // the user looks at A's window
  // B has no tab; the active tab is A's.
  await assert.rejects(run('B', 'type', { selector: '#q', text: 'hi' }), (err) => err instanceof CommandError &&
    err.message === `tab ${a} (the active tab) belongs to agent claude-code; pass tab_id:${a} and force:true to act on it anyway, or open your own tab with new_tab`);
  // A mistyped or stale tab_id must not read or change A's page.
  for (const action of ['type', 'execute_js', 'refresh', 'back', 'forward', 'screenshot', 'get_text', 'dom', 'draw_mode_show', 'har_bodies']) {
    const before = b.acted.length;
    await assert.rejects(run('B', action, { selector: '#q', text: 'hi', script: 'x', tab_id: a }), (err) => err instanceof CommandError &&
      err.message === `tab ${a} belongs to agent claude-code, so ${action} there is refused; pass force:true to ${action} there anyway, or use a tab of your own (new_tab)`,
    `${action} with A's tab_id`);
    assert.equal(b.acted.length, before, `${action} was refused before it ran`);
  }
  assert.deepEqual(await run('B', 'type', { selector: '#q', text: 'hi', tab_id: a, force: true }), { tab_id: a });
  assert.deepEqual(await run('B', 'switch_tab', { tab_id: a }), { tab_id: a }, 'switch_tab only brings it to the front');
  assert.equal(owners.lastOf('B'), undefined, 'naming another agent\'s tab does not make it a default');
  assert.deepEqual(await run('B', 'type', { selector: '#q', text: 'hi', tab_id: 1 }), { tab_id: 1 }, 'the user\'s tab needs no force');
  const { tab_id: bt } = await run('B', 'new_tab', {});
  for (const action of ['close_tab', 'navigate']) {
    await assert.rejects(run('B', action, { tab_id: a, url: 'http://x/' }), (err) => err instanceof CommandError &&
      err.message.startsWith(`tab ${a} belongs to agent claude-code, so ${action} there is refused; pass force:true`));
  }
  assert.ok(b.tabs.has(a), 'refused: A\'s tab is still open');
  await assert.rejects(run('A', 'close_tab', { tab_id: bt }), /belongs to agent .*, so close_tab there is refused/, 'and the other way round');
  assert.deepEqual(await run('B', 'close_tab', { tab_id: a, force: true }), { closed: a });
  assert.ok(!b.tabs.has(a));
  assert.deepEqual(await run('B', 'fill', { selector: '#q', text: 'x' }), { tab_id: bt });
});

test('the user closes the agent\'s tab: its other tab, else as a client with none', async () => {
  const { b, owners, run } = setup();
  const { tab_id: a1 } = await run('A', 'new_tab', {});
  const { tab_id: a2 } = await run('A', 'new_tab', {});
  b.userCloses(a2);
  await flush();
  assert.equal(owners.lastOf('A'), a1);
  assert.deepEqual(await run('A', 'click', { text: 'x' }), { tab_id: a1 });
  b.userCloses(a1);
  await flush();
  assert.equal(owners.lastOf('A'), undefined);
  b.activate(2);
  assert.deepEqual(await run('A', 'click', { text: 'x' }), { tab_id: 2 }, 'the active tab');
  const { tab_id: n } = await run('A', 'navigate', { url: 'http://x/' });
  assert.ok(n >= 100);

  // A tab closed while no worker ran to see it is found out at use.
  b.tabs.delete(n);
  await assert.rejects(run('A', 'close_tab'), /close_tab without tab_id/);
});

test('a dragged tab keeps its owner; the next new_tab there gets a group of that window', async () => {
  const { b, owners, run } = setup();
  const { tab_id: a } = await run('A', 'new_tab', {});
  b.drag(a, 2);
  assert.deepEqual(await run('A', 'navigate', { url: 'http://x/' }), { tab_id: a });
  assert.deepEqual(owners.ownerOf(a), { client: 'A', name: 'claude-code' });
});

test('switch_tab to the user\'s tab makes it the default, not a tab to navigate', async () => {
  const { owners, run } = setup();
  await run('A', 'new_tab', {});
  await run('A', 'switch_tab', { tab_id: 2 });
  assert.equal(owners.lastOf('A'), 2);
  const { tab_id } = await run('A', 'navigate', { url: 'http://x/' });
  assert.notEqual(tab_id, 2, 'navigate goes to a tab A owns');
});

test('two navigates at once from a client with no tab open one tab', async () => {
  const { b, run } = setup();
  const [x, y] = await Promise.all([run('A', 'navigate', { url: 'http://x/1' }), run('A', 'navigate', { url: 'http://x/2' })]);
  assert.equal(x.tab_id, y.tab_id);
  assert.equal([...b.tabs.keys()].filter((id) => id >= 100).length, 1);
});

test('tabs a client\'s tab opens are the client\'s', async () => {
  const { b, owners, run, changed } = setup();
  const { tab_id: a } = await run('A', 'new_tab', {});
  const popup = await b.api.tabs.create({ openerTabId: a });
  await flush();
  assert.deepEqual(owners.ownerOf(popup.id), { client: 'A', name: 'claude-code' });
  assert.ok(changed.includes(popup.id));
  const user = await b.api.tabs.create({ openerTabId: 1 });
  await flush();
  assert.equal(owners.ownerOf(user.id), undefined);
});

test('the state survives a worker restart and forgets tabs closed meanwhile', async () => {
  const first = setup();
  const { tab_id: a1 } = await first.run('A', 'new_tab', {});
  const { tab_id: a2 } = await first.run('A', 'new_tab', {});
  await first.owners.saving;
  first.b.tabs.delete(a2); // closed while no worker ran
  const owners = new TabOwners({ api: first.b.api, log: { warn() {} } });
  await owners.ready();
  assert.deepEqual(owners.ownerOf(a1), { client: 'A', name: 'claude-code' });
  assert.equal(owners.ownerOf(a2), undefined);
  assert.equal(owners.lastOf('A'), undefined);
  const got = await owners.run({ action: 'click', params: {}, client: 'A', client_name: '' }, undefined, executor(first.b));
  assert.deepEqual(got, { tab_id: a1 }, 'its remaining tab');
  assert.ok(JSON.parse(first.b.session.get(STORAGE_KEY)).tabs[a1]);
});

test('a query without a client, and draw mode, run as before; a client without a name gets one from its id', async () => {
  const { b, owners, run } = setup();
  let seen;
  await owners.run({ action: 'click', params: {} }, undefined, async (q) => { seen = q; return {}; });
  assert.deepEqual(seen.params, {}, 'no tab chosen for it');
  await run('A', 'new_tab', {});
  await owners.run({ action: 'draw_mode_show', params: { correlation_id: 'ann_1' }, client: 'A' }, undefined, async (q) => { seen = q; return {}; });
  assert.equal(seen.params.tab_id, undefined, 'draw mode shows in the tab in front, which the user looks at');
  const exec = executor(b);
  const { tab_id: t } = await owners.run({ action: 'new_tab', params: {}, client: '01HZX9ABCD' }, undefined, exec);
  assert.equal(owners.ownerOf(t).name, fallbackName('01HZX9ABCD'));
  assert.equal(b.groups.get(b.tabs.get(t).groupId).title, 'agent abcd');
});

test('describe: owner and group for capture', async () => {
  const { b, owners, run } = setup();
  const { tab_id: a } = await run('A', 'new_tab', {});
  assert.deepEqual(await owners.describe(b.tabs.get(a)), { owner: 'A', owner_name: 'claude-code', group: 'claude-code' });
  assert.deepEqual(await owners.describe(b.tabs.get(1)), { owner: '', owner_name: '', group: '' });
  assert.deepEqual(await owners.describe({ id: 1 }), { owner: '', owner_name: '' }, 'no groupId: group not said');
});

test('a replaced tab stays its agent\'s and its last used under the new id', async () => {
  const { b, owners, run, changed } = setup();
  const { tab_id: a } = await run('A', 'new_tab', {});
  await run('B', 'new_tab', {});
  const { tab_id: a2 } = await run('A', 'new_tab', {});
  await run('A', 'click', { tab_id: a }); // a is A's last used again
  const renamed = b.replace(a);
  await flush();
  assert.equal(owners.ownerOf(a), undefined);
  assert.deepEqual(owners.ownerOf(renamed), { client: 'A', name: 'claude-code' });
  assert.equal(owners.lastOf('A'), renamed);
  assert.ok(changed.includes(renamed), 'capture is told the new id\'s owner');
  assert.deepEqual(await run('A', 'navigate', { url: 'http://x/c' }), { tab_id: renamed }, 'its commands keep going to it, not to its other tab');
  assert.deepEqual(await run('A', 'back'), { tab_id: renamed });
  assert.notEqual(renamed, a2);
  const saved = JSON.parse(b.session.get(STORAGE_KEY));
  assert.equal(saved.tabs[a], undefined);
  assert.equal(saved.tabs[renamed].client, 'A');
  assert.equal(saved.last.A, renamed);
});

test('replacing a tab no agent knows changes nothing', async () => {
  const { b, owners, run, changed } = setup();
  await run('A', 'new_tab', {});
  const before = JSON.stringify(owners.state);
  const n = changed.length;
  b.replace(2);
  await flush();
  assert.equal(JSON.stringify(owners.state), before);
  assert.equal(changed.length, n);
});

test('navigate that opens the client\'s tab opens it at its URL, not blank and navigated after', async () => {
  const { b, owners } = setup();
  const exec = executor(b);
  const seen = [];
  const run = (params, fail) => owners.run({ correlation_id: 'x', action: 'navigate', params, client: 'A', client_name: 'claude-code' }, undefined,
    async (q, s, h) => {
      seen.push([q.action, q.params.url, q.params.tab_id]);
      if (fail) throw new CommandError('"nope:" is not an absolute URL');
      return exec(q, s, h);
    });
  await assert.rejects(run({ url: 'nope:' }, true), /not an absolute URL/, 'a tab that could not be opened fails the navigate');
  assert.equal([...b.tabs.keys()].filter((id) => id >= 100).length, 0);
  const got = await run({ url: 'http://x/a' });
  assert.deepEqual(seen.at(-1), ['new_tab', 'http://x/a', undefined], 'one new_tab at the URL: its history starts with the agent\'s page');
  assert.deepEqual(got, { tab_id: got.tab_id, url: 'http://x/a' });
  assert.deepEqual(owners.ownerOf(got.tab_id), { client: 'A', name: 'claude-code' });
  assert.notEqual(b.tabs.get(got.tab_id).groupId, -1, 'in its group');
  assert.equal(owners.lastOf('A'), got.tab_id);
  await run({ url: 'http://x/b' });
  assert.deepEqual(seen.at(-1), ['navigate', 'http://x/b', got.tab_id], 'then navigate goes to that tab');
});

test('new_tab opens in a window of the agent\'s own, unfocused, beside the user\'s; the user\'s tab stays in front', async () => {
  const { b, run } = setup();
  const { tab_id: a } = await run('A', 'new_tab', { url: 'http://x/a' });
  const w = b.tabs.get(a).windowId;
  assert.notEqual(w, 1, 'not in the user\'s window');
  assert.deepEqual(b.windowsMade, [{ id: w, url: 'http://x/a', focused: false, state: 'normal', left: 40, top: 40, width: 1000, height: 800 }]);
  assert.equal(b.tabs.get(1).active, true, 'the user\'s tab is still the one their window shows');

  const { tab_id: a2 } = await run('A', 'new_tab', { active: false });
  assert.equal(b.tabs.get(a2).windowId, w, 'the agent\'s next tab joins its window');
  assert.equal(b.tabs.get(a).active, true, 'active:false leaves the agent\'s window as it was');
  assert.equal(b.tabs.get(a2).groupId, b.tabs.get(a).groupId);

  const { tab_id: c } = await run('C', 'new_tab', {});
  assert.notEqual(b.tabs.get(c).windowId, w, 'another agent has a window of its own');

  // A tab of the user's in the agent's window: no longer the agent's window.
  await b.api.tabs.create({ windowId: w, active: false });
  const { tab_id: a3 } = await run('A', 'new_tab', {});
  assert.ok(![1, w].includes(b.tabs.get(a3).windowId), 'a window of its own again');
  assert.equal(b.windowsMade.length, 3);
});

test('an agent\'s tab its own window does not show is brought to the front there, never in the user\'s window', async () => {
  const { b, owners, run } = setup();
  const { tab_id: a } = await run('A', 'new_tab', {});
  const { tab_id: a2 } = await run('A', 'new_tab', {});
  assert.equal(b.tabs.get(a).active, false);
  assert.deepEqual(await run('A', 'execute_js', { script: '1', tab_id: a }), { tab_id: a });
  assert.equal(b.tabs.get(a).active, true, 'shown in the agent\'s window, so not throttled');
  assert.deepEqual(await run('A', 'get_text', {}), { tab_id: a });
  assert.deepEqual(await run('A', 'get_text', { tab_id: a2 }), { tab_id: a2 });
  assert.equal(b.tabs.get(a2).active, true);

  // Another agent naming A's tab (with force) does not switch A's window.
  await run('C', 'get_text', { tab_id: a, force: true });
  assert.equal(b.tabs.get(a).active, false);
  assert.equal(await owners.reveal(b.tabs.get(a), 'C'), null);

  // A's tab dragged into the user's window is not brought to the front.
  b.drag(a, 1);
  await run('A', 'get_text', { tab_id: a });
  assert.equal(b.tabs.get(a).active, false);
  assert.equal(b.tabs.get(1).active, true, 'the user\'s tab is still in front');
  assert.equal(await owners.reveal(b.tabs.get(a), 'A'), null, 'screenshot is told it may not');
  assert.equal((await owners.reveal(b.tabs.get(a2), 'A')).id, a2, 'a tab already shown is returned as it is');
});

test('commands in the same tab store nothing more; another client or tab does', async () => {
  const { b, owners, run } = setup();
  const { tab_id: a } = await run('A', 'new_tab', {});
  await owners.saving;
  let writes = 0;
  const set = b.api.storage.session.set;
  b.api.storage.session.set = (items) => {
    writes++;
    return set(items);
  };
  await run('A', 'execute_js', { script: '1' });
  await run('A', 'execute_js', { script: '2' });
  assert.equal(writes, 0, 'the last tab of the last client to act is unchanged');
  await run('C', 'new_tab', {});
  const before = writes;
  await run('A', 'execute_js', { script: '3' });
  await owners.saving;
  assert.ok(writes > before, 'A acts after C: the order of the clients changed');
  assert.equal(owners.lastOf('A'), a);
});
