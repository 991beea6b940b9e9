// Unit tests of bringing the content scripts into tabs opened before the
// extension started (tabs/reach.js) and of the frozen-tab state (tabs/hung.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { missing, injections, scriptable, hasIsolated, hasPristine, withFrames, forgetFramed, reachFramesOfOpenTabs, reachOpenTabs, reachTab, reachWhenLoaded, watchNavigations } from '../tabs/reach.js';
import { registrations } from '../capture/declared.js';
import { HungTabs, RECHECK_MS, RECOVERS } from '../tabs/hung.js';
import { CommandError } from '../runner.js';

// turns lets n turns of the event loop pass; until, turns until cond() holds
// (setImmediate: tests that fake setTimeout leave it real).
const turn = () => new Promise((r) => setImmediate(r));
const turns = async (n) => {
  for (let i = 0; i < n; i++) await turn();
};
async function until(cond, what) {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return;
    await turn();
  }
  assert.fail(`never happened: ${what}`);
}

const declared = JSON.parse(readFileSync(new URL('../capture/declared.json', import.meta.url)));
// atWork and idle are the registrations of capture/declared.js's two modes.
const atWork = registrations(declared, true);
const idle = registrations(declared, false);

// isolatedWorld is a document's ISOLATED-world global as the declared
// scripts leave it: top (the top document's window, or this one's), relay
// (start-isolated.js ran), main (start-main.js ran too and handed its ports
// over: pristine.js's only in the top document, pristine-relay.js returns
// at once in iframes; the MAIN-world capture's (capture/main/) in every frame).
function isolatedWorld({ top = null, relay = false, main = false, recorder = relay, loading = false } = {}) {
  const g = { document: { readyState: loading ? 'loading' : 'complete' } };
  g.top = top ?? g;
  if (!relay) return g;
  g.gasolineRelay = () => null;
  if (recorder) g.gasolineRecorder = true;
  if (main) g.gasolineCaptureLinked = true;
  if (g.top === g) g.gasolinePristineRelay = { connected: () => main };
  if (g.top === g && main) g.gasolineChannel = {};
  return g;
}

// probe runs both probes over a tab's documents ({frameId, documentId, g})
// as reachOnce gets them from chrome.scripting.
function probe(docs) {
  const run = (f) => docs.map((d) => ({ frameId: d.frameId, documentId: d.documentId, result: f(d.g) }));
  return missing(run(hasIsolated), run(hasPristine));
}

test('the MAIN probe: the pristine port in the top document, the MAIN-world capture\'s port in an iframe', () => {
  const top = isolatedWorld({ relay: true, main: true });
  assert.equal(hasPristine(top), true);
  assert.equal(hasPristine(isolatedWorld({ top, relay: true, main: true })), true, 'an iframe has no gasolinePristineRelay, yet its MAIN world has the scripts');
  assert.equal(hasPristine(isolatedWorld({ top, relay: true })), false, 'an iframe whose MAIN world never sent its port');
  assert.equal(hasPristine(isolatedWorld({ top })), false);
  assert.equal(hasPristine(isolatedWorld({ relay: true })), false, 'a top document without pristine.js');
  const linkedTop = isolatedWorld({ relay: true });
  linkedTop.gasolineCaptureLinked = true;
  assert.deepEqual(hasPristine(linkedTop), ['pristine', 'channel'], 'a top document with capture but not pristine.js loaded idle: what it lacks');
  linkedTop.gasolinePristineRelay = { connected: () => true };
  assert.deepEqual(hasPristine(linkedTop), ['channel'], 'execute_js brought pristine alone: the channel is still lacking');
  linkedTop.gasolineChannel = {};
  assert.equal(hasPristine(linkedTop), true);
  const older = isolatedWorld({ relay: true });
  older.gasolinePristineRelay = { connected: () => true };
  assert.equal(hasPristine(older), true, 'no capture, but pristine.js (execute_js brought it): its MAIN scripts must not come again');
  assert.equal(hasIsolated(top), true);
  assert.equal(hasIsolated(isolatedWorld({ top })), false);
});

test('a page and its iframes loaded with the extension get nothing (every worker start probes them)', () => {
  const top = isolatedWorld({ relay: true, main: true });
  const docs = [
    { frameId: 0, documentId: 'top', g: top },
    { frameId: 3, documentId: 'sub', g: isolatedWorld({ top, relay: true, main: true }) },
    { frameId: 4, documentId: 'subsub', g: isolatedWorld({ top, relay: true, main: true }) },
  ];
  assert.deepEqual(injections(atWork, probe(docs)), []);
});

test('a document lacking the scripts gets every entry in declared order, each world only what it lacks', () => {
  const top = isolatedWorld();
  const docs = [
    { frameId: 0, documentId: 'top', g: top },
    { frameId: 3, documentId: 'sub', g: isolatedWorld({ top }) },
    { frameId: 5, documentId: 'has', g: isolatedWorld({ top, relay: true, main: true }) }, // loaded after the extension started
  ];
  const plan = injections(atWork, probe(docs), declared);
  assert.deepEqual(plan.map((p) => [p.world, p.files.join('+'), p.documentIds.join('+'), p.late]), [
    ['ISOLATED', 'dist/start-isolated.js', 'top+sub', false],
    ['MAIN', 'dist/start-main.js', 'top+sub', true],
    ['ISOLATED', 'dist/end-isolated.js', 'top+sub', false],
  ]);

  // An iframe whose ISOLATED world was reached but whose MAIN world was not
  // (e.g. Chrome refused the MAIN injection) gets the MAIN entries only.
  const reached = isolatedWorld({ relay: true, main: true });
  const half = [
    { frameId: 0, documentId: 'top', g: reached },
    { frameId: 3, documentId: 'sub', g: isolatedWorld({ top: reached, relay: true }) },
  ];
  assert.deepEqual(injections(atWork, probe(half), declared).map((p) => [p.world, p.files.join('+'), p.documentIds.join('+')]), [
    ['MAIN', 'dist/start-main.js', 'sub'],
  ]);
});

test('at work, a parsed document that missed the recorder (the worker injects it at DOMContentLoaded) gets it alone; one still loading gets it then; idle, none', () => {
  const top = isolatedWorld({ relay: true, main: true, recorder: false });
  const docs = [
    { frameId: 0, documentId: 'top', g: top },
    { frameId: 3, documentId: 'sub', g: isolatedWorld({ top, relay: true, main: true, recorder: false }) },
    { frameId: 4, documentId: 'parsing', g: isolatedWorld({ top, relay: true, main: true, recorder: false, loading: true }) },
  ];
  assert.deepEqual(injections(atWork, probe(docs), declared).map((p) => [p.world, p.files.join('+'), p.documentIds.join('+')]), [
    ['ISOLATED', 'dist/end-isolated.js', 'top+sub'],
  ]);
  assert.deepEqual(injections(idle, probe(docs), declared), [], 'idle: the recorder comes at the user\'s first input (capture/ask.js), not to every open tab');
});

test('while idle the registration brings the scripts into top documents only, without the recorder (capture/ask.js asks for it)', () => {
  const top = isolatedWorld();
  const docs = [
    { frameId: 0, documentId: 'top', g: top },
    { frameId: 3, documentId: 'sub', g: isolatedWorld({ top }) },
  ];
  assert.deepEqual(injections(idle, probe(docs), declared).map((p) => [p.world, p.files.join('+'), p.documentIds.join('+')]), [
    ['ISOLATED', 'dist/start-isolated-idle.js', 'top'],
    ['MAIN', 'dist/start-main-idle.js', 'top'],
  ]);
});

// leanWorld is a top document's ISOLATED world as the idle registration
// leaves it: the relay holds the MAIN-world capture's port; no pristine relay.
function leanWorld() {
  const g = isolatedWorld();
  g.gasolineRelay = () => null;
  g.gasolineRecorder = true; // the worker brought it at DOMContentLoaded
  g.gasolineCaptureLinked = true;
  return g;
}

test('at work, a top document loaded idle gets the agent\'s parts only, never the MAIN-world capture again; idle, nothing', () => {
  const top = leanWorld();
  const docs = [
    { frameId: 0, documentId: 'top', g: top },
    { frameId: 3, documentId: 'sub', g: isolatedWorld({ top }) }, // an iframe that loaded idle: nothing
  ];
  assert.deepEqual(injections(atWork, probe(docs), declared).map((p) => [p.world, p.files.join('+'), p.documentIds.join('+'), p.late]), [
    ['ISOLATED', 'dist/start-isolated.js', 'sub', false],
    ['ISOLATED', 'pristine-relay.js+actions/channel.js', 'top', false],
    ['MAIN', 'dist/start-main.js', 'sub', true],
    ['MAIN', 'dist/pristine.js+dist/dialogs.js', 'top', true],
    ['ISOLATED', 'dist/end-isolated.js', 'sub', false],
  ]);
  assert.deepEqual(injections(idle, probe(docs), declared), [], 'idle: the lean document is as a page loading now would be, and iframes get nothing');
  assert.deepEqual(injections(atWork, probe(docs)).map((p) => p.documentIds.join('+')), ['sub', 'sub'], 'without declared (its agent_js, its by_worker entries), a lean document is left as it is, and the registered entries alone come');
});

test('the DOM runtime is not declared: it comes on first use (actions/inject.js)', () => {
  const files = declared.flatMap((e) => e.js);
  for (const f of ['actions/core.js', 'actions/runtime.js', 'actions/verbs/upload.js']) assert.ok(!files.includes(f), f);
});

test('a tab whose documents all have the scripts gets nothing', () => {
  const all = [{ frameId: 0, documentId: 'd', result: true }];
  assert.deepEqual(injections(atWork, missing(all, all)), []);
  assert.deepEqual(injections(atWork, missing([], [])), []);
});

test('only web and file pages are scripted', () => {
  for (const u of ['http://127.0.0.1/a', 'https://x.test/', 'file:///tmp/a.html']) assert.ok(scriptable(u), u);
  for (const u of ['', 'chrome://extensions/', 'chrome-extension://abc/popup.html', 'about:blank', 'devtools://x']) assert.ok(!scriptable(u), u);
});

// hungHarness is a HungTabs whose probe answers as the test says.
function hungHarness() {
  const state = { answers: true, probes: [], discarded: [], dialog: null };
  const hung = new HungTabs({
    probe: async (tabId, ms) => {
      state.probes.push([tabId, ms]);
      return state.answers;
    },
    dialogShown: async () => state.dialog,
    discard: async (tabId) => {
      state.discarded.push(tabId);
      state.answers = true; // a discarded tab reloads with a new renderer
    },
  });
  return { hung, state };
}

test('a frozen tab: the deadline verdict, then commands refused at once until it answers', async () => {
  const { hung, state } = hungHarness();
  assert.equal(await hung.verdict(7), null, 'a tab that answers is no verdict');
  state.answers = false;
  const v = await hung.verdict(7);
  assert.equal(v.reason, 'tab_unresponsive');
  assert.match(v.error, /refresh/);
  assert.match(v.error, /close_tab/);
  assert.match(v.error, /native dialog .* the extension was not told of/, 'a dialog the worker was not told of looks the same');
  assert.match(v.error, /ask the user to answer it, then retry; else reload/, 'the user first: a refresh discards the page');

  let ran = 0;
  const exec = hung.guard(async () => {
    ran++;
    return { ok: true };
  });
  await assert.rejects(exec({ action: 'execute_js', params: { tab_id: 7 } }), (err) => err instanceof CommandError && err.reason === 'tab_unresponsive');
  await assert.rejects(exec({ action: 'click', params: { tab_id: 7 } }), (err) => err.reason === 'tab_unresponsive');
  assert.equal(ran, 0, 'no command started on the frozen tab');
  assert.deepEqual(await exec({ action: 'execute_js', params: { tab_id: 8 } }), { ok: true }, 'other tabs are not concerned');

  state.answers = true; // the loop ended
  assert.deepEqual(await exec({ action: 'execute_js', params: { tab_id: 7 } }), { ok: true });
  assert.ok(!hung.frozen.has(7));
});

test('refresh discards a frozen tab before reloading it; close_tab just closes it', async () => {
  const { hung, state } = hungHarness();
  const exec = hung.guard(async (q) => ({ action: q.action }));
  state.answers = false;
  assert.ok(await hung.verdict(7));
  assert.deepEqual(await exec({ action: 'refresh', params: { tab_id: 7 } }), { action: 'refresh' });
  assert.deepEqual(state.discarded, [7]);
  assert.ok(!hung.frozen.has(7), 'refresh clears the tab');

  state.answers = false;
  assert.ok(await hung.verdict(7));
  assert.ok(RECOVERS.has('close_tab'));
  assert.deepEqual(await exec({ action: 'close_tab', params: { tab_id: 7 } }), { action: 'close_tab' });
  assert.deepEqual(state.discarded, [7], 'close_tab discards nothing');
  assert.ok(!hung.frozen.has(7), 'close_tab clears the tab');

  state.answers = true;
  await exec({ action: 'navigate', params: { tab_id: 8 } });
  assert.deepEqual(state.discarded, [7], 'a tab that answers is never discarded');
  state.answers = false;
  await exec({ action: 'refresh', params: { tab_id: 8 } });
  assert.deepEqual(state.discarded, [7], 'a tab never found frozen is not discarded on one slow probe (a discard loses unsaved work)');
  assert.equal(await hung.verdict(undefined), null, 'no tab, no verdict');
});

test('refresh goes to the new id Chrome may give a discarded tab', async () => {
  const { hung, state } = hungHarness();
  hung.discard = async () => ({ id: 9 });
  state.answers = false;
  assert.ok(await hung.verdict(7));
  const got = await hung.guard(async (q) => q.params.tab_id)({ action: 'refresh', params: { tab_id: 7 } });
  assert.equal(got, 9);
});

test('a tab held by a native dialog is not frozen', async () => {
  const { hung, state } = hungHarness();
  state.answers = false;
  state.dialog = { type: 'alert' };
  assert.equal(await hung.verdict(7), null);
  await hung.guard(async () => ({}))({ action: 'refresh', params: { tab_id: 7 } });
  assert.deepEqual(state.discarded, []);
});

test('a command to a tab a native dialog holds is refused at once naming it; dialog, refresh, navigate and close_tab still run', async () => {
  const { hung, state } = hungHarness();
  hung.dialogText = (tabId, d) => `dialog_showing: tab ${tabId} shows a native ${d.type} (${JSON.stringify(d.message)})`;
  state.dialog = { type: 'alert', message: 'Session expired' };
  let ran = 0;
  const exec = hung.guard(async (q) => {
    ran++;
    return q.action;
  });
  for (const action of ['execute_js', 'get_text', 'click', 'screenshot']) {
    await assert.rejects(exec({ action, params: { tab_id: 7 } }), /^CommandError: dialog_showing: tab 7 shows a native alert \("Session expired"\)$/);
  }
  assert.equal(ran, 0);
  assert.equal(await exec({ action: 'dialog', params: { tab_id: 7 } }), 'dialog', 'the dialog action answers it itself (actions/dialog.js)');
  assert.equal(await exec({ action: 'navigate', params: { tab_id: 7 } }), 'navigate', 'a navigation closes the dialog');
  assert.equal(state.probes.length, 0, 'no probe: the dialog is known');
  state.dialog = null; // the user answered it
  assert.equal(await exec({ action: 'get_text', params: { tab_id: 7 } }), 'get_text');
});

test('a tab whose command ran into its deadline is probed before its next command: refused at once if frozen, cleared once it answers', async () => {
  const { hung, state } = hungHarness();
  const exec = hung.guard(async (q) => q.action);
  hung.suspect(undefined); // a command without a tab: nothing to suspect
  assert.equal(hung.frozen.size, 0);
  hung.suspect(7);
  state.answers = false; // an endless loop
  await assert.rejects(exec({ action: 'execute_js', params: { tab_id: 7 } }), (err) => err.reason === 'tab_unresponsive' && /not started/.test(err.message));
  assert.deepEqual(state.probes, [[7, RECHECK_MS]], 'one short probe, not a deadline');
  state.answers = true; // a script that awaited something, or the loop ended
  assert.equal(await exec({ action: 'get_text', params: { tab_id: 7 } }), 'get_text');
  assert.ok(!hung.frozen.has(7), 'cleared as soon as the page answers');
  assert.equal(await exec({ action: 'get_text', params: { tab_id: 7 } }), 'get_text');
  assert.equal(state.probes.length, 2, 'a cleared tab is not probed again');
});

test('a tab with a command still running is probed before the next command there: refused at once if frozen', async () => {
  const { hung, state } = hungHarness();
  let release;
  const exec = hung.guard(async (q) => {
    if (q.params.script === 'loop') await new Promise((r) => { release = r; });
    return q.action;
  });
  const loop = exec({ action: 'execute_js', params: { tab_id: 7, script: 'loop' } });
  await new Promise((r) => setImmediate(r));
  state.answers = false; // the loop holds the page: the daemon already said timeout, this worker not yet
  await assert.rejects(exec({ action: 'execute_js', params: { tab_id: 7 } }), (err) => err.reason === 'tab_unresponsive');
  assert.deepEqual(state.probes, [[7, RECHECK_MS]]);
  assert.equal(await exec({ action: 'execute_js', params: { tab_id: 8 } }), 'execute_js', 'other tabs are not probed');
  state.answers = true;
  release();
  assert.equal(await loop, 'execute_js');
  assert.equal(await exec({ action: 'get_text', params: { tab_id: 7 } }), 'get_text', 'cleared once it answers');
  assert.equal(hung.running.size, 0, 'nothing left running');
});

// framesChrome is the chrome.* withFrames and reachTab use: tabs whose
// documents ({frameId, documentId, g}) answer the probes, the registration
// at work, and every injection logged.
function framesChrome(docsOf) {
  const injected = [];
  const immediate = []; // injectImmediately of each injection
  const probed = [];
  const probeOptions = [];
  const listeners = [];
  const api = {
    runtime: { getURL: () => `data:application/json,${encodeURIComponent(JSON.stringify(declared))}` },
    webNavigation: { onCommitted: { addListener: (f) => listeners.push(f) } },
    tabs: {
      get: async (id) => ({ id, url: `http://x/${id}`, status: 'complete' }),
      query: async () => [{ id: 1, url: 'http://x/1', status: 'complete' }],
    },
    scripting: {
      getRegisteredContentScripts: async () => atWork,
      executeScript: async function ({ target, func, files, world, injectImmediately }) {
        const docs = docsOf(target.tabId).filter((d) => (target.frameIds ? target.frameIds.includes(d.frameId) : true));
        if (func) probed.push(target);
        if (func && !target.documentIds) probeOptions.push(Object.fromEntries(Object.entries(arguments[0]).filter(([k]) => k !== 'func')));
        if (func) return docs.map((d) => ({ frameId: d.frameId, documentId: d.documentId, result: func(d.g) }));
        injected.push([target.tabId, world, files.join('+'), target.documentIds.join('+')]);
        immediate.push(injectImmediately === true);
        for (const d of docs.filter((x) => target.documentIds.includes(x.documentId))) {
          if (world === 'ISOLATED') {
            d.g.gasolineRelay = () => null;
            if (files.some((f) => f.endsWith('channel.js') || f === 'dist/start-isolated.js') && d.g.top === d.g) d.g.gasolineChannel = {};
          } else if (files.includes('dist/pristine.js')) d.g.gasolinePristineRelay = { connected: () => true };
          else d.g.gasolineCaptureLinked = true;
        }
        return [];
      },
    },
  };
  const committed = (d) => listeners.forEach((f) => f(d));
  return { api, injected, immediate, probed, probeOptions, committed };
}

test('at work, the first command to a tab brings the scripts into its iframes that loaded idle, once; idle, nothing', async () => {
  const tabs = new Map();
  const page = (id) => {
    const top = isolatedWorld({ relay: true, main: true }); // the top document loaded idle: it has them
    return [{ frameId: 0, documentId: `top${id}`, g: top }, { frameId: 2, documentId: `sub${id}`, g: isolatedWorld({ top }) }];
  };
  tabs.set(1, page(1));
  tabs.set(2, page(2));
  const { api, injected, probed } = framesChrome((id) => tabs.get(id));
  let working = false;
  const ran = [];
  const exec = withFrames(async (q) => {
    ran.push([q.action, injected.length]);
    return { ok: true };
  }, { atWork: () => working, api });

  await exec({ action: 'click', params: { tab_id: 1 } });
  assert.deepEqual(injected, [], 'idle: iframes stay without the scripts');

  working = true;
  await exec({ action: 'click', params: { tab_id: 1 } });
  assert.deepEqual(injected, [
    [1, 'ISOLATED', 'dist/start-isolated.js', 'sub1'],
    [1, 'MAIN', 'dist/start-main.js', 'sub1'],
    [1, 'ISOLATED', 'dist/end-isolated.js', 'sub1'],
  ], 'the iframe only, before the command ran');
  assert.deepEqual(ran.at(-1), ['click', 3]);

  const probes = probed.length;
  await exec({ action: 'get_text', params: { tab_id: 1 } });
  await exec({ action: 'navigate', params: { tab_id: 2 } });
  await exec({ action: 'dialog', params: { tab_id: 3 } });
  assert.equal(probed.length, probes, 'a tab is looked at once; navigate needs nothing of the old page, dialog reaches what it lacks itself');
  assert.equal(injected.length, 3);

  // A new period at work looks again (the tab's iframes may have loaded idle meanwhile).
  forgetFramed();
  tabs.set(1, page(1));
  await exec({ action: 'click', params: { tab_id: 1 } });
  assert.equal(injected.length, 6);
});

test('the worker-start reach looks at top documents only', async () => {
  const top = isolatedWorld();
  const docs = [{ frameId: 0, documentId: 'top', g: top }, { frameId: 2, documentId: 'sub', g: isolatedWorld({ top }) }];
  const { api, injected, probed } = framesChrome(() => docs);
  const noted = [];
  await reachOpenTabs({ api, noted: (id) => noted.push(id) });
  assert.deepEqual(injected.map((i) => i[3]), ['top', 'top', 'top']);
  assert.ok(probed.length && probed.every((t) => JSON.stringify(t.frameIds ?? t.documentIds) === (t.frameIds ? '[0]' : '["top"]')), `the iframe is not even probed: ${JSON.stringify(probed)}`);
  assert.deepEqual(noted, [1]);
});

test('at work, a tab still loading is looked at by its first command: its iframes that loaded idle, never its loading top document', async () => {
  const top = isolatedWorld(); // a top document loading: Chrome brings its scripts
  const docs = [{ frameId: 0, documentId: 'top9', g: top }, { frameId: 2, documentId: 'sub9', g: isolatedWorld({ top }) }];
  const { api, injected, probed } = framesChrome(() => docs);
  api.tabs.get = async (id) => ({ id, url: `http://x/${id}`, status: 'loading' });
  forgetFramed();
  const exec = withFrames(async () => ({ ok: true }), { atWork: () => true, api });
  await exec({ action: 'click', params: { tab_id: 9 } });
  assert.deepEqual(injected.map((i) => i[3]), ['sub9', 'sub9', 'sub9'], 'the iframe only');
  const probes = probed.length;
  await exec({ action: 'click', params: { tab_id: 9 } });
  assert.equal(probed.length, probes, 'looked at once');
  // The worker-start reach still leaves a loading tab to Chrome.
  assert.equal(await reachTab({ id: 9, url: 'http://x/9', status: 'loading' }, api, { topOnly: true }), 0);
});

test('the probes run at once (injectImmediately), not at every frame\'s document_idle', async () => {
  const top = isolatedWorld();
  const { api, probeOptions } = framesChrome(() => [{ frameId: 0, documentId: 'top', g: top }]);
  await reachTab({ id: 1, url: 'http://x/1', status: 'complete' }, api);
  assert.ok(probeOptions.length === 2 && probeOptions.every((o) => o.injectImmediately === true), JSON.stringify(probeOptions));
});

test('a look that does not answer holds the first command at most waitMs and the next not at all; it is kept once it answers', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const top = isolatedWorld({ relay: true, main: true });
  const docs = [{ frameId: 0, documentId: 'top8', g: top }, { frameId: 2, documentId: 'sub8', g: isolatedWorld({ top }) }];
  const { api, injected, probed } = framesChrome(() => docs);
  const real = api.scripting.executeScript;
  let release;
  const gate = new Promise((r) => {
    release = r;
  });
  api.scripting.executeScript = async (o) => {
    if (o.func) await gate; // a frame that does not answer yet
    return real(o);
  };
  forgetFramed();
  const exec = withFrames(async () => ({ ok: true }), { atWork: () => true, api, waitMs: 30 });
  let first = false;
  exec({ action: 'click', params: { tab_id: 8 } }).then(() => {
    first = true;
  });
  await turns(20);
  t.mock.timers.tick(29);
  await turns(20);
  assert.equal(first, false, 'the first command waits for the look');
  t.mock.timers.tick(1);
  await until(() => first, 'the first command runs after waitMs');
  let next = false;
  exec({ action: 'click', params: { tab_id: 8 } }).then(() => {
    next = true;
  });
  await until(() => next, 'the next command did not wait again (no time passes)');
  assert.deepEqual(injected, []);
  release();
  await until(() => injected.length >= 3, 'the late look brought the scripts');
  assert.deepEqual(injected.map((i) => i[3]), ['sub8', 'sub8', 'sub8'], 'the late look brought the scripts when the frames answered');
  const probes = probed.length;
  await exec({ action: 'click', params: { tab_id: 8 } });
  assert.equal(probed.length, probes, 'and is remembered');
});

test('a new top document (onCommitted frame 0: a back/forward cache restore by any means, a prerender activation) is looked at again; an iframe\'s is not', async () => {
  const top = isolatedWorld({ relay: true, main: true });
  const docs = [{ frameId: 0, documentId: 'top7', g: top }];
  const { api, probed, committed } = framesChrome(() => docs);
  watchNavigations(api);
  forgetFramed();
  const exec = withFrames(async (q) => {
    if (q.action === 'back') throw new Error('no history');
    return { ok: true };
  }, { atWork: () => true, api });
  await exec({ action: 'click', params: { tab_id: 7 } });
  const once = probed.length;
  committed({ tabId: 7, frameId: 3 });
  await exec({ action: 'click', params: { tab_id: 7 } });
  assert.equal(probed.length, once, 'an iframe navigating keeps the look');
  committed({ tabId: 7, frameId: 0 });
  await exec({ action: 'click', params: { tab_id: 7 } });
  assert.equal(probed.length, 2 * once, 'a new top document is looked at again');
  await assert.rejects(exec({ action: 'back', params: { tab_id: 7 } }));
  await exec({ action: 'click', params: { tab_id: 7 } });
  assert.equal(probed.length, 3 * once, 'a back that failed forgets the look too (it may have half-happened)');
});

test('after a replaced registration, a tab that was loading is reached once it has loaded; the others are left alone', async () => {
  const top = isolatedWorld(); // began loading before the registration: nothing from Chrome
  const { api, injected } = framesChrome(() => [{ frameId: 0, documentId: 'top5', g: top }]);
  const listeners = new Set();
  const status = new Map([[5, 'loading'], [6, 'complete']]);
  api.tabs.onUpdated = { addListener: (f) => listeners.add(f), removeListener: (f) => listeners.delete(f) };
  api.tabs.query = async (q) => [...status].filter(([, s]) => !q.status || s === q.status).map(([id, s]) => ({ id, url: `http://x/${id}`, status: s }));
  api.tabs.get = async (id) => ({ id, url: `http://x/${id}`, status: status.get(id) });
  const noted = [];
  await reachWhenLoaded({ api, noted: (id) => noted.push(id) });
  assert.deepEqual(injected, [], 'still loading: Chrome may yet bring them');
  status.set(5, 'complete');
  for (const f of [...listeners]) f(5, { status: 'complete' }, { id: 5, url: 'http://x/5', status: 'complete' });
  await until(() => noted.length > 0, 'the tab that loaded was reached');
  assert.deepEqual(injected.map((i) => i[3]), ['top5', 'top5', 'top5']);
  assert.deepEqual(noted, [5]);
  assert.equal(listeners.size, 0, 'the listener is gone once every tab loaded');
});

test('going to work brings the scripts into every open tab\'s iframes that loaded idle, a few tabs at once; a command shares its tab\'s look', async () => {
  const tabs = new Map();
  const page = (id) => {
    const top = isolatedWorld({ relay: true, main: true });
    return [{ frameId: 0, documentId: `top${id}`, g: top }, { frameId: 2, documentId: `sub${id}`, g: isolatedWorld({ top }) }];
  };
  for (const id of [1, 2, 3]) tabs.set(id, page(id));
  const { api, injected, probed } = framesChrome((id) => tabs.get(id));
  api.tabs.query = async () => [1, 2, 3, 4].map((id) => ({ id, url: id === 4 ? 'chrome://settings' : `http://x/${id}`, status: 'complete' }));
  const real = api.scripting.executeScript;
  let inFlight = 0;
  let most = 0;
  api.scripting.executeScript = async (o) => {
    inFlight++;
    most = Math.max(most, inFlight);
    await Promise.resolve();
    try {
      return await real(o);
    } finally {
      inFlight--;
    }
  };
  forgetFramed();
  await reachFramesOfOpenTabs({ api, parallel: 2 });
  assert.deepEqual(injected.map((i) => `${i[0]}:${i[3]}`).sort(), ['1:sub1', '1:sub1', '1:sub1', '2:sub2', '2:sub2', '2:sub2', '3:sub3', '3:sub3', '3:sub3'],
    'each web tab\'s idle iframe, and nothing for a page scripts cannot enter');
  assert.ok(most <= 4, `at most 2 tabs at once (2 probes each): ${most} calls in flight`);
  const probes = probed.length;
  const exec = withFrames(async () => ({ ok: true }), { atWork: () => true, api });
  await exec({ action: 'click', params: { tab_id: 2 } });
  await reachFramesOfOpenTabs({ api });
  assert.equal(probed.length, probes, 'a tab is looked at once per period at work');
});

test('a command to a tab loaded idle brings the agent\'s parts into its top document once, and marks pristine late', async () => {
  const top = leanWorld();
  const docs = [{ frameId: 0, documentId: 'top', g: top }];
  const { api, injected, probed } = framesChrome(() => docs);
  forgetFramed();
  const markLate = [];
  const exec = api.scripting.executeScript;
  api.scripting.executeScript = async (opts) => {
    if (opts.func?.name === 'markLate') {
      markLate.push(opts.target.documentIds.join());
      return [];
    }
    return exec(opts);
  };
  assert.equal(await reachTab({ id: 1, url: 'http://x/1', status: 'complete' }, api), 1);
  assert.deepEqual(injected, [
    [1, 'ISOLATED', 'pristine-relay.js+actions/channel.js', 'top'],
    [1, 'MAIN', 'dist/pristine.js+dist/dialogs.js', 'top'],
  ]);
  assert.deepEqual(markLate, ['top']);
  assert.equal(await reachTab({ id: 1, url: 'http://x/1', status: 'complete' }, api), 0, 'the second look finds them');
  assert.equal(injected.length, 2, 'nothing twice');
  assert.ok(probed.length >= 4);
});

test('at work, a lean top document still loading gets the agent\'s parts from its first command', async () => {
  // Opened while idle, still loading (a slow image): its start scripts ran
  // under the idle registration, so Chrome brings it nothing more.
  const top = isolatedWorld({ relay: true });
  top.gasolineCaptureLinked = true;
  const docs = [{ frameId: 0, documentId: 'top7', g: top }];
  const { api, injected, immediate } = framesChrome(() => docs);
  api.tabs.get = async (id) => ({ id, url: `http://x/${id}`, status: 'loading' });
  forgetFramed();
  const exec = withFrames(async () => ({ ok: true }), { atWork: () => true, api });
  await exec({ action: 'click', params: { tab_id: 7 } });
  const agent = declared.flatMap((d) => d.agent_js ? [[d.world, d.agent_js.join('+')]] : []);
  assert.deepEqual(injected.map((i) => [i[1], i[2]]), agent, 'the agent\'s parts, in the declared order, nothing else');
  assert.ok(injected.every((i) => i[3] === 'top7'));
  assert.ok(immediate.length === injected.length && immediate.every(Boolean), 'at once: a page still loading (one that streams) may never reach document_idle');
  assert.equal(hasPristine(top), true, 'the pristine port came with them');
});

test('pristine.js brought late is marked late, also from the debug copy\'s per-source files (scripts/bundle/debug.go)', () => {
  const debugCopy = [
    { id: 'start-isolated', world: 'ISOLATED', js: ['debug/start-isolated/pristine-relay.js', 'debug/start-isolated/relay.js'] },
    { id: 'start-main', world: 'MAIN', js: ['debug/start-main/pristine.js', 'debug/start-main/full.js'] },
  ];
  const lacking = { ISOLATED: [{ frameId: 0, documentId: 'top' }], MAIN: [{ frameId: 0, documentId: 'top' }], AGENT: [] };
  assert.deepEqual(injections(debugCopy, lacking).map((s) => s.late), [false, true]);
  assert.deepEqual(injections(atWork, lacking).map((s) => [s.files.join('+'), s.late]).filter(([, late]) => late).map(([f]) => f), ['dist/start-main.js']);
});

test('a lean top document that has pristine (execute_js brought it while it loaded) gets only the channel and dialogs.js', () => {
  const top = isolatedWorld({ relay: true });
  top.gasolineCaptureLinked = true;
  top.gasolinePristineRelay = { connected: () => true };
  const plan = injections(atWork, probe([{ frameId: 0, documentId: 'top', g: top }]), declared);
  assert.deepEqual(plan.map((p) => [p.world, p.files.join('+'), p.late]), [['ISOLATED', 'actions/channel.js', false], ['MAIN', 'dist/dialogs.js', false]]);
  const bare = isolatedWorld({ relay: true });
  bare.gasolineCaptureLinked = true;
  bare.gasolineChannel = {};
  assert.deepEqual(injections(atWork, probe([{ frameId: 0, documentId: 'top', g: bare }]), declared).map((p) => [p.world, p.files.join('+'), p.late]),
    [['ISOLATED', 'pristine-relay.js', false], ['MAIN', 'dist/pristine.js', true]], 'and one with the channel but no pristine port, pristine only');
});
