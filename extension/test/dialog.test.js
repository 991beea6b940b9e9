// Unit tests of actions/dialog.js (the dialog action and the tabs a native
// dialog freezes) on a scripted chrome.*.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dialog, dismissNative, nativeDialog, nativeDialogText, watchDialogs, blockedSince, actionDialogs, LATE_MS, BLOCKED_ADVICE } from '../actions/dialog.js';
import { CommandError } from '../runner.js';
import { paramsOf } from '../params.js';
import fs from 'node:fs';
import { registrations } from '../capture/declared.js';

// fake is the chrome.* the module uses. frozen holds the "tabId:frameId"
// of frames that do not answer (a native dialog shows there); inject
// decides what chrome.scripting.executeScript returns.
// registered is the registration at work (capture/declared.js): every frame.
const registered = registrations(JSON.parse(fs.readFileSync(new URL('../capture/declared.json', import.meta.url))), true);
const fake = {
  frozen: new Set(),
  inject: async () => [],
  injected: [],
  session: new Map(),
  listeners: { message: [], removed: [], committed: [] },
};
const event = (list) => ({ addListener: (f) => list.push(f) });
globalThis.chrome = {
  runtime: {
    id: 'gasoline',
    onMessage: event(fake.listeners.message),
    // capture/declared.json, read by tabs/reach.js for the entries the worker injects itself
    getURL: () => `data:application/json,${encodeURIComponent(fs.readFileSync(new URL('../capture/declared.json', import.meta.url), 'utf8'))}`,
  },
  tabs: {
    get: async (id) => ({ id, url: `http://x/${id}`, status: 'complete' }),
    sendMessage: (tabId, msg, { frameId }) => (fake.frozen.has(`${tabId}:${frameId}`) ? new Promise(() => {}) : Promise.resolve({ ok: true })),
    onRemoved: event(fake.listeners.removed),
  },
  webNavigation: { onCommitted: event(fake.listeners.committed) },
  scripting: {
    getRegisteredContentScripts: async () => registered,
    executeScript: async (opts) => {
      fake.injected.push(opts);
      return fake.inject(opts);
    },
  },
  storage: {
    session: {
      get: async (k) => (fake.session.has(k) ? { [k]: fake.session.get(k) } : {}),
      set: async (o) => Object.entries(o).forEach(([k, v]) => fake.session.set(k, v)),
      remove: async (k) => fake.session.delete(k),
    },
  },
};
watchDialogs();

/** report is a runtime's message from frame frameId of tab tabId. */
const report = (tabId, frameId, msg, id = 'gasoline') => {
  for (const f of fake.listeners.message) f({ gasoline: 'dialog', ...msg }, { id, tab: { id: tabId }, frameId });
};
const settle = () => new Promise((r) => setTimeout(r, 0));
const ctx = { deadlineMs: 10000 };

test('a frame that reports a native dialog and does not answer freezes its tab', async () => {
  fake.frozen.add('5:0');
  report(5, 0, { showing: true, type: 'confirm', message: 'Delete?' });
  await settle();
  const d = await nativeDialog(5); // after PROBE_MS without an answer
  assert.equal(d.frameId, 0);
  assert.equal(d.type, 'confirm');
  assert.equal(d.message, 'Delete?');
  assert.deepEqual(Object.keys(fake.session.get('dialog:5')), ['0'], 'kept for a restarted worker');
  await assert.rejects(dialog({ dialog: 'accept', tab_id: 5 }, undefined, ctx),
    (e) => e instanceof CommandError && /^dialog_showing: tab 5 shows a native confirm \("Delete\?"\)/.test(e.message) && /ask the user/.test(e.message));
  assert.equal(fake.injected.length, 0, 'nothing is injected into a frozen page');

  report(5, 0, { showing: false });
  await settle();
  assert.equal(await nativeDialog(5), null, 'answered');
  assert.equal(fake.session.has('dialog:5'), false);
  fake.frozen.delete('5:0');
});

test('a report the page does not back up (it answers a ping) is forgotten', async () => {
  report(6, 3, { showing: true, type: 'alert', message: 'x' });
  await settle();
  assert.equal(await nativeDialog(6), null);
  assert.equal(fake.session.has('dialog:6'), false);
});

test('reports from elsewhere than a tab of this extension are ignored; closing or navigating forgets', async () => {
  fake.frozen.add('7:0');
  report(7, 0, { showing: true, type: 'alert' }, 'other-extension');
  for (const f of fake.listeners.message) f({ gasoline: 'dialog', showing: true, type: 'alert' }, { id: 'gasoline', frameId: 0 });
  await settle();
  assert.equal(await nativeDialog(7), null);

  report(7, 0, { showing: true, type: 'beforeunload' });
  await settle();
  assert.equal((await nativeDialog(7))?.type, 'beforeunload');
  for (const f of fake.listeners.committed) f({ tabId: 7, frameId: 0 });
  assert.equal(await nativeDialog(7), null, 'a new document: the prompt is gone');

  report(7, 0, { showing: true, type: 'alert' });
  await settle();
  for (const f of fake.listeners.removed) f(7);
  assert.equal(await nativeDialog(7), null);
  fake.frozen.delete('7:0');
});

test('dialog arms every frame, brings the declared scripts where they are missing, and lists the recent dialogs', async () => {
  fake.injected = [];
  fake.inject = async (opts) => {
    if (opts.files) return [];
    if (opts.func?.name === 'hasIsolated' || opts.func?.name === 'hasPristine') {
      return [{ frameId: 0, documentId: 'top', result: true }, { frameId: 4, documentId: 'old', result: false }];
    }
    if (opts.target.allFrames) {
      return [
        { frameId: 0, result: { recent: [{ type: 'alert', message: 'Hi', answered: 'accepted by the user', at: 1, ago_ms: 2000 }] } },
        { frameId: 4, result: null },
      ];
    }
    return (opts.target.frameIds || []).map((frameId) => ({ frameId, result: { recent: [] } }));
  };
  const got = await dialog({ dialog: 'accept', text: 'Ada', window_ms: 5000, tab_id: 8 }, undefined, ctx);
  assert.deepEqual(got, {
    tab_id: 8, url: 'http://x/8', armed: 'accept', window_ms: 5000, frames: 2, text: 'Ada',
    recent: [{ type: 'alert', message: 'Hi', answered: 'accepted by the user', ago_ms: 2000 }],
  });
  const [all, ...rest] = fake.injected;
  assert.deepEqual(all.target, { tabId: 8, allFrames: true });
  assert.deepEqual(all.args, [{ dialog: 'accept', window_ms: 5000, text: 'Ada' }]);
  assert.equal(all.world, undefined, 'armed from the isolated world');
  const brought = rest.filter((o) => o.files).map((o) => [o.world, o.files.join('+'), o.target.documentIds.join('+')]);
  assert.deepEqual(brought, [
    ['ISOLATED', 'dist/start-isolated.js', 'old'],
    ['MAIN', 'dist/start-main.js', 'old'],
    ['ISOLATED', 'dist/end-isolated.js', 'old'],
  ], 'the declared scripts in their order (channel.js takes the channel dialogs.js offers); no DOM runtime');
  assert.deepEqual(rest.at(-1).target, { tabId: 8, frameIds: [4] }, 'then armed again');
});

test('dialog arms for the command\'s deadline without window_ms; the contract checks its answer', async () => {
  fake.inject = async () => [{ frameId: 0, result: { recent: [] } }];
  const got = await dialog({ dialog: 'dismiss', tab_id: 9 }, undefined, { deadlineMs: 7000 });
  assert.equal(got.window_ms, 7000);
  assert.equal('recent' in got, false);
  assert.throws(() => paramsOf('dialog', { dialog: 'ok', tab_id: 9 }), /param dialog must be one of accept, dismiss, got "ok"/);
  fake.inject = async () => [{ frameId: 0, result: null }];
  await assert.rejects(dialog({ dialog: 'accept', tab_id: 9 }, undefined, ctx), /could not arm the answer in tab 9/);
});

test('nativeDialogText says what froze the tab and what to do', () => {
  const prompt = nativeDialogText(3, { type: 'beforeunload', message: '', at: 0 }, 4000);
  assert.match(prompt, /^dialog_showing: tab 3 shows Chrome's "Leave site\?" prompt since 4 s/);
  assert.match(prompt, /An extension cannot close it \(that needs the debugger permission\): ask the user to answer it in the browser, then retry/);
  assert.match(prompt, /arm interact\(\{action:"dialog", dialog:"accept"\}\) before navigating or closing the tab/);
  const alert = nativeDialogText(3, { type: 'alert', message: 'Saved', at: 0 }, 0);
  assert.match(alert, /native alert \("Saved"\) that the page opened 0 s ago outside any agent action/);
  assert.match(alert, /ask the user to answer it in the browser, then retry, or dismiss it with interact\(\{action:"dialog", dialog:"dismiss", tab_id:3\}\)/);
});

test('a popup blocked after an action ended is kept for the action still settling, not taken for a native dialog', async () => {
  const before = Date.now();
  report(21, 0, { late: true, type: 'popup', message: 'http://x/print', answered: 'blocked (...)' });
  assert.deepEqual(blockedSince(21, before), [{ type: 'popup', message: 'http://x/print', answered: BLOCKED_ADVICE }], 'the advice is the worker\'s, not the page\'s');
  assert.deepEqual(blockedSince(21, Date.now() + 1), [], 'an action that started later does not list it');
  assert.deepEqual(blockedSince(22, before), [], 'nor one in another tab');
  assert.equal(await nativeDialog(21), null);
  for (let i = 0; i < 7; i++) report(21, 0, { late: true, type: 'popup', message: `http://x/${i}` });
  assert.equal(blockedSince(21, before).length, 5, 'at most the last five');
  for (const f of fake.listeners.removed) f(21);
  assert.deepEqual(blockedSince(21, before), [], 'a closed tab is forgotten');
});

test('an action lists its dialogs, then the popups blocked after it, less those whose url a tab it opened shows', () => {
  const before = Date.now();
  report(23, 0, { late: true, type: 'popup', message: 'http://x/late', answered: 'blocked' });
  const during = [
    { type: 'confirm', message: 'Sure?', answered: 'dismissed' },
    { type: 'popup', message: 'http://x/noopener', answered: 'blocked' },
    { type: 'popup', message: 'http://x/blocked', answered: 'blocked' },
  ];
  const opened = new Map([[99, 'http://x/noopener']]);
  assert.deepEqual(actionDialogs(during, 23, before, opened).map((d) => d.message), ['Sure?', 'http://x/blocked', 'http://x/late']);
  assert.deepEqual(actionDialogs(undefined, 24, before, undefined), []);
});

test('a late report is believed only as a popup with a url, from the frame the action acted in, within LATE_MS of its end', () => {
  const before = Date.now();
  report(25, 0, { late: true, type: 'confirm', message: 'Delete all data?', answered: 'accepted' });
  report(25, 0, { late: true, type: 'popup', message: 'not a url', answered: 'x' });
  report(25, 0, { late: true, type: 'popup', message: 'http://x/' + 'a'.repeat(3000) });
  report(25, 0, { late: true, type: 'popup', message: 42 });
  assert.deepEqual(blockedSince(25, before), [], 'none of these is a blocked popup');
  report(25, 3, { late: true, type: 'popup', message: 'http://x/from-iframe' });
  report(25, 0, { late: true, type: 'popup', message: 'http://x/top' });
  assert.deepEqual(blockedSince(25, before, { frameId: 0, ended: before }).map((d) => d.message), ['http://x/top']);
  assert.deepEqual(blockedSince(25, before, { frameId: 3, ended: before }).map((d) => d.message), ['http://x/from-iframe']);
  assert.deepEqual(blockedSince(25, before, { frameId: 0, ended: before - LATE_MS - 1000 }), [], 'reported long after the action ended: not its own');
  const long = 'http://x/' + 'b'.repeat(1500);
  report(25, 0, { late: true, type: 'popup', message: long });
  assert.equal(blockedSince(25, before).at(-1).message, long, 'a url up to 2 KB is kept whole');
  for (const f of fake.listeners.removed) f(25);
});

test('a noopener popup whose long url the runtime clipped is not listed blocked when its tab opened', () => {
  const url = 'http://x/report?q=' + 'c'.repeat(400);
  const clipped = url.slice(0, 199) + '…'; // what the runtime reports (core.clip, 200)
  const opened = new Map([[98, url]]);
  assert.deepEqual(actionDialogs([{ type: 'popup', message: clipped, answered: 'blocked' }], 26, Date.now(), opened), []);
  const other = 'http://x/other?q=' + 'd'.repeat(400);
  assert.equal(actionDialogs([{ type: 'popup', message: other.slice(0, 199) + '…', answered: 'blocked' }], 26, Date.now(), opened).length, 1, 'another url is still listed');
});

// switcher is the chrome.tabs dismissNative uses: a window of tabs, the
// activations logged; hiding tab 5 dismisses its dialog (as Chrome does
// unless a debugger is attached: sticky).
function switcher(ids, { front = 5, sticky = false } = {}) {
  const log = [];
  let next = 100;
  const tabs = ids.map((id) => ({ id, windowId: 1, active: id === front }));
  const api = {
    tabs: {
      query: async ({ active }) => tabs.filter((t) => active === undefined || t.active === active),
      update: async (id, { active }) => {
        log.push(['show', id]);
        for (const t of tabs) t.active = t.id === id;
        if (id !== 5 && !sticky) fake.frozen.delete('5:0');
      },
      create: async ({ active }) => {
        const t = { id: next++, windowId: 1, active: false };
        tabs.push(t);
        log.push(['create', t.id]);
        if (active) await api.tabs.update(t.id, { active });
        return t;
      },
      remove: async (id) => {
        log.push(['remove', id]);
        tabs.splice(tabs.findIndex((t) => t.id === id), 1);
      },
    },
  };
  return { api, log };
}

test('dialog on a tab a native dialog holds: another tab shows a moment, which makes Chrome dismiss it', async () => {
  const tab = { id: 5, windowId: 1, url: 'http://x/5' };
  const confirm = { frameId: 0, type: 'confirm', message: 'Save changes?', at: Date.now() };
  fake.frozen.add('5:0');
  let { api, log } = switcher([5, 6]);
  assert.deepEqual(await dismissNative(tab, confirm, 'dismiss', api), { tab_id: 5, url: 'http://x/5', answered: { type: 'confirm', message: 'Save changes?', answered: 'dismissed' } });
  assert.deepEqual(log, [['show', 6], ['show', 5]], 'the user\'s tab is in front again');

  fake.frozen.add('5:0');
  ({ api, log } = switcher([5]));
  const alert = { ...confirm, type: 'alert', message: 'Session expired' };
  assert.equal((await dismissNative(tab, alert, 'accept', api)).answered.answered, 'accepted', 'an alert has one answer');
  assert.deepEqual(log, [['create', 100], ['show', 100], ['show', 5], ['remove', 100]], 'a window of one tab gets a blank one for a moment');

  fake.frozen.add('5:0');
  ({ api, log } = switcher([5, 6]));
  await assert.rejects(dismissNative(tab, confirm, 'accept', api),
    (e) => e instanceof CommandError && /^dialog_showing: tab 5 shows a native confirm \("Save changes\?"\), which an extension can dismiss but not accept/.test(e.message) && /ask the user to accept it/.test(e.message));
  await assert.rejects(dismissNative(tab, { ...confirm, type: 'beforeunload', message: '' }, 'dismiss', api), /"Leave site\?" prompt/);
  assert.deepEqual(log, [], 'neither switches tabs');

  fake.frozen.add('5:0');
  ({ api, log } = switcher([5, 6, 7], { front: 7 }));
  await dismissNative(tab, confirm, 'dismiss', api);
  assert.deepEqual(log, [['show', 5], ['show', 6], ['show', 7]], 'a tab behind is shown, then hidden, and the tab in front is again');

  fake.frozen.add('5:0');
  ({ api, log } = switcher([5, 6], { sticky: true }));
  await assert.rejects(dismissNative(tab, confirm, 'dismiss', api), /Chrome did not close when its tab was hidden .*ask the user to answer it/);
  assert.deepEqual(log, [['show', 6], ['show', 5]]);
  fake.frozen.delete('5:0');
});

test('in a browser that keeps a hidden tab\'s dialog (Firefox), dialog says only the user can answer it, switching no tab', async () => {
  const tab = { id: 5, windowId: 1, url: 'http://x/5' };
  const alert = { frameId: 0, type: 'alert', message: 'Hello', at: Date.now() };
  const { api, log } = switcher([5, 6]);
  await assert.rejects(dismissNative(tab, alert, 'dismiss', api, false),
    (e) => e instanceof CommandError && /^dialog_showing: tab 5 shows a native alert \("Hello"\)/.test(e.message) && /ask the user/.test(e.message) &&
      /no extension can close it/.test(e.message) && !/dismiss it with/.test(e.message));
  assert.deepEqual(log, [], 'no tab is switched');
  assert.doesNotMatch(nativeDialogText(5, alert, Date.now(), false), /dismiss it with/);
  assert.match(nativeDialogText(5, alert, Date.now(), true), /dismiss it with/);
});
