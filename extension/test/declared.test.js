// Unit tests of the two capture modes (capture/declared.js) on a fake
// chrome.scripting / storage.session / alarms and a fake clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { ACTED_MS, CaptureMode, DEADLINE_KEY, IDLE_AFTER_MS, IDLE_ALARM, LOADED_FILTER, RENEW_MS, SINCE_KEY, byWorker, plan, registrations } from '../capture/declared.js';

const declared = JSON.parse(fs.readFileSync(new URL('../capture/declared.json', import.meta.url)));

// turn lets one turn of the event loop pass (setImmediate: the tests that
// fake setTimeout, for the waits capture/declared.js bounds, leave it real).
const turn = () => new Promise((r) => setImmediate(r));

// until lets turns pass until cond() holds (at most 1000).
async function until(cond, what) {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return;
    await turn();
  }
  assert.fail(`never happened: ${what}`);
}

// fakeChrome keeps what Chrome would: the registered scripts (in
// registration order, persisted: the same object survives a "worker
// restart"), chrome.storage.session, and the alarms. Each scripting call
// takes a turn of the event loop, and is logged.
function fakeChrome({ registered = [], session = new Map() } = {}) {
  const state = { registered, session, alarms: new Map(), calls: [], frames: [] };
  const tick = turn;
  const copy = (l) => l.map((s) => ({ ...s }));
  state.api = {
    scripting: {
      getRegisteredContentScripts: async () => {
        await tick();
        return copy(state.registered);
      },
      registerContentScripts: async (scripts) => {
        state.calls.push(['register', scripts.map((s) => s.id)]);
        await tick();
        if (scripts.some((s) => state.registered.some((r) => r.id === s.id))) throw new Error('Duplicate script ID');
        state.registered.push(...copy(scripts));
      },
      updateContentScripts: async (scripts) => {
        state.calls.push(['update', scripts.map((s) => `${s.id}:${s.allFrames}`)]);
        await tick();
        // Whole or not at all, as Chrome does.
        if (!scripts.every((s) => state.registered.some((r) => r.id === s.id))) throw new Error('unknown id');
        state.registered = state.registered.map((r) => ({ ...r, ...scripts.find((s) => s.id === r.id) }));
      },
      unregisterContentScripts: async ({ ids }) => {
        state.calls.push(['unregister', ids]);
        await tick();
        state.registered = state.registered.filter((r) => !ids.includes(r.id));
      },
    },
    storage: {
      session: {
        get: async (k) => (state.session.has(k) ? { [k]: state.session.get(k) } : {}),
        set: async (o) => Object.entries(o).forEach(([k, v]) => state.session.set(k, v)),
        remove: async (k) => [k].flat().forEach((key) => state.session.delete(key)),
      },
    },
    alarms: {
      create: async (name, info) => state.alarms.set(name, info),
      clear: async (name) => state.alarms.delete(name),
    },
  };
  return state;
}

// clock is a fake Date.now.
function clock(start = 1_000_000) {
  const c = { t: start, now: () => c.t };
  return c;
}

function modeOf(state, c, extra = {}) {
  return new CaptureMode({ api: state.api, now: c.now, load: async () => declared, log: { warn: () => {} }, ...extra });
}

const frames = (state) => state.registered.map((s) => `${s.id}:${s.allFrames}`);

test('the first start registers the declared scripts for top documents only, in order, persisted', async () => {
  const state = fakeChrome();
  const mode = modeOf(state, clock());
  assert.equal(await mode.start(), true);
  assert.deepEqual(state.calls, [['register', ['start-isolated', 'start-main']]]);
  assert.deepEqual(frames(state), ['start-isolated:false', 'start-main:false']);
  assert.ok(state.registered.every((s) => s.persistAcrossSessions === true));
  assert.equal(mode.atWork, false);
  assert.deepEqual(state.registered.map((s) => [s.world, s.runAt, s.js.join()]), [
    ['ISOLATED', 'document_start', 'dist/start-isolated-idle.js'],
    ['MAIN', 'document_start', 'dist/start-main-idle.js'],
  ]);
  for (const s of state.registered) {
    assert.ok(!('idle_js' in s) && !('agent_js' in s) && !('by_worker' in s), `${s.id}: Chrome refuses fields it does not know`);
  }
});

test('idle runs the lean start bundles; at work every entry\'s full files, switched in the same one update', async () => {
  const state = fakeChrome();
  const mode = modeOf(state, clock());
  await mode.start();
  state.calls.length = 0;
  await mode.work();
  assert.deepEqual(state.calls, [['update', ['start-isolated:true', 'start-main:true']]]);
  assert.deepEqual(state.registered.map((s) => s.js.join()), ['dist/start-isolated.js', 'dist/start-main.js']);
  const idle = registrations(declared, false).map((s) => s.js.join());
  assert.deepEqual(idle, ['dist/start-isolated-idle.js', 'dist/start-main-idle.js']);
  // What idle leaves out comes late, when an agent acts (tabs/reach.js): the
  // agent-only sources, each listed once, none of them the lean capture (capture/main/lean.js).
  const late = declared.flatMap((d) => d.agent_js ?? []);
  assert.deepEqual(late, ['pristine-relay.js', 'actions/channel.js', 'dist/pristine.js', 'dist/dialogs.js']);
  for (const d of declared) {
    for (const f of [...d.js, ...(d.idle_js ?? []), ...(d.agent_js ?? [])]) {
      assert.ok(fs.existsSync(new URL(`../${f}`, import.meta.url)), `${d.id} declares ${f}, which does not exist`);
    }
  }
});

test('registration is idempotent: a worker start that finds it in place changes nothing', async () => {
  const state = fakeChrome();
  await modeOf(state, clock()).start();
  state.calls.length = 0;
  const again = modeOf(state, clock());
  await Promise.all([again.start(), again.start()]);
  assert.deepEqual(state.calls, [], 'no register, update or unregister');
});

test('an agent command switches to every frame before it runs, in one update; later commands cost nothing', async () => {
  const state = fakeChrome();
  const c = clock();
  let works = 0;
  const mode = modeOf(state, c, { onWork: () => works++ });
  await mode.start();
  state.calls.length = 0;

  // Three commands arrive together: one switch, all wait for it.
  const seen = [];
  await Promise.all([1, 2, 3].map((i) => mode.work().then(() => seen.push([i, frames(state).join()]))));
  const all = 'start-isolated:true,start-main:true';
  assert.deepEqual(seen, [[1, all], [2, all], [3, all]], 'every command ran after the switch');
  assert.deepEqual(state.calls, [['update', ['start-isolated:true', 'start-main:true']]], 'one update carries every entry: never a moment with some or none registered');
  assert.equal(mode.atWork, true);
  assert.equal(works, 1);
  assert.equal(state.session.get(DEADLINE_KEY), c.t + IDLE_AFTER_MS);
  assert.deepEqual(state.alarms.get(IDLE_ALARM), { when: c.t + IDLE_AFTER_MS });

  // At work: a command touches nothing (a resolved promise, no storage, no Chrome call).
  state.session.clear();
  c.t += RENEW_MS - 1;
  const p = mode.work();
  assert.equal(p, mode.work(), 'the same resolved promise');
  await p;
  assert.deepEqual(state.calls.length, 1);
  assert.equal(state.session.size, 0, 'no storage write');
});

test('the idle deadline moves with the commands, at most once a minute, and the alarm brings idle back', async () => {
  const state = fakeChrome();
  const c = clock();
  const mode = modeOf(state, c);
  await mode.start();
  await mode.work();
  const first = state.session.get(DEADLINE_KEY);

  c.t += RENEW_MS + 1; // a command a minute later moves the deadline (the command does not wait for it)
  await mode.work();
  await mode.chain;
  const moved = state.session.get(DEADLINE_KEY);
  assert.equal(moved, c.t + IDLE_AFTER_MS);
  assert.ok(moved > first);
  assert.deepEqual(state.alarms.get(IDLE_ALARM), { when: moved });

  // The first alarm (from before the move) finds the deadline ahead: at work still, alarm set again.
  c.t = first;
  await mode.onAlarm({ name: IDLE_ALARM });
  assert.equal(mode.atWork, true);
  assert.deepEqual(frames(state), ['start-isolated:true', 'start-main:true']);
  assert.deepEqual(state.alarms.get(IDLE_ALARM), { when: moved });

  await mode.onAlarm({ name: 'gasoline-keepalive' }); // not ours
  assert.equal(mode.atWork, true);

  // 15 minutes after the last command: top documents only again.
  state.calls.length = 0;
  c.t = moved;
  await mode.onAlarm({ name: IDLE_ALARM });
  assert.equal(mode.atWork, false);
  assert.deepEqual(state.calls, [['update', ['start-isolated:false', 'start-main:false']]]);
  assert.equal(state.session.has(DEADLINE_KEY), false);
  assert.equal(state.alarms.has(IDLE_ALARM), false);

  // The next command switches again.
  let works = 0;
  mode.onWork = () => works++;
  await mode.work();
  assert.equal(mode.atWork, true);
  assert.equal(works, 1);
});

test('a command during the switch to idle runs at work', async () => {
  const state = fakeChrome();
  const c = clock();
  const mode = modeOf(state, c);
  await mode.start();
  await mode.work();
  c.t += IDLE_AFTER_MS;
  const idle = mode.onAlarm({ name: IDLE_ALARM });
  const work = mode.work().then(() => frames(state).join());
  await idle;
  assert.equal(await work, 'start-isolated:true,start-main:true');
  assert.equal(mode.atWork, true);
});

test('a restarted worker keeps the mode while the deadline is ahead, and goes idle once it passed', async () => {
  const state = fakeChrome();
  const c = clock();
  await modeOf(state, c).start();
  await modeOf(state, c).work();

  // Chrome stopped the worker; a new one starts within the 15 minutes.
  c.t += 5 * 60 * 1000;
  state.calls.length = 0;
  const next = modeOf(state, c);
  await next.start();
  assert.equal(next.atWork, true);
  assert.deepEqual(state.calls, [], 'nothing to change');
  await next.work();
  assert.deepEqual(state.calls, [], 'no switch: a command only checks');

  // The alarm woke a new worker after the deadline: its start goes idle.
  c.t += IDLE_AFTER_MS;
  const woken = modeOf(state, c);
  await woken.start();
  assert.equal(woken.atWork, false);
  assert.deepEqual(frames(state), ['start-isolated:false', 'start-main:false']);
  await woken.onAlarm({ name: IDLE_ALARM });
  assert.equal(woken.atWork, false);
});

test('a browser restart (session storage gone) turns a persisted at-work registration back to idle', async () => {
  const state = fakeChrome();
  const c = clock();
  await modeOf(state, c).work();
  assert.deepEqual(frames(state), ['start-isolated:true', 'start-main:true']);
  const restarted = fakeChrome({ registered: state.registered }); // persisted; session storage empty
  const mode = modeOf(restarted, c);
  await mode.start();
  assert.equal(mode.atWork, false);
  assert.deepEqual(restarted.calls, [['update', ['start-isolated:false', 'start-main:false']]]);
});

test('a registration of other ids (an older version) is replaced; a refused start is retried', async () => {
  const state = fakeChrome({ registered: [{ id: 'old', js: ['old.js'], matches: ['<all_urls>'] }] });
  let replaced = 0;
  const mode = modeOf(state, clock(), { onReplace: () => replaced++ });
  await mode.start();
  assert.deepEqual(state.calls, [['unregister', ['old']], ['register', ['start-isolated', 'start-main']]]);
  assert.equal(replaced, 1, 'onReplace: the tabs loading meanwhile are reached once loaded (tabs/reach.js reachWhenLoaded)');
  await mode.work();
  assert.equal(replaced, 1, 'a mode switch is an update, not a replace');

  const refusing = fakeChrome();
  let fail = true;
  const real = refusing.api.scripting.registerContentScripts;
  refusing.api.scripting.registerContentScripts = async (s) => {
    if (fail) throw new Error('refused');
    return real(s);
  };
  const m = modeOf(refusing, clock());
  assert.equal(await m.start(), false, 'start resolves false, never rejects');
  fail = false;
  assert.equal(await m.start(), true, 'the next start tries again');
  assert.equal(refusing.registered.length, 2);
});

test('plan compares ids in order and every declared field', () => {
  const idle = registrations(declared, false);
  const work = registrations(declared, true);
  assert.equal(plan(idle, idle), 'none');
  assert.equal(plan(idle, work), 'update');
  assert.equal(plan([], idle), 'replace');
  assert.equal(plan([...idle].reverse(), idle), 'replace');
  const changed = idle.map((s, i) => (i ? s : { ...s, js: ['dist/other.js'] }));
  assert.equal(plan(changed, idle), 'update');
  // Chrome leaves out false booleans it was given; that is no difference.
  assert.equal(plan(idle.map(({ allFrames, ...s }) => s), idle), 'none');
});

test('a renewal while at work does not hold the command, even when Chrome never answers', async () => {
  const state = fakeChrome();
  const c = clock();
  const mode = modeOf(state, c);
  await mode.work();
  state.api.storage.session.set = () => new Promise(() => {}); // never settles
  c.t += RENEW_MS + 1;
  let done = false;
  mode.work().then(() => {
    done = true;
  });
  await until(() => done, 'the command ran without waiting for the renewal');
});

test('a first switch that never settles holds a command at most waitMs, then the command runs', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const state = fakeChrome();
  const warned = [];
  const mode = modeOf(state, clock(), { waitMs: 30, log: { warn: (...a) => warned.push(a.join(' ')) } });
  await mode.start();
  let updating = false;
  state.api.scripting.updateContentScripts = () => {
    updating = true;
    return new Promise(() => {}); // never settles
  };
  let first = false;
  mode.work().then(() => {
    first = true;
  });
  await until(() => updating, 'the switch asked Chrome');
  t.mock.timers.tick(29);
  for (let i = 0; i < 20; i++) await turn();
  assert.equal(first, false, 'waits for the switch first');
  t.mock.timers.tick(1);
  await until(() => first, 'the command runs after waitMs');
  assert.equal(mode.atWork, false);
  assert.match(warned.join('\n'), /took over 30 ms/);
  let next = false;
  mode.work().then(() => {
    next = true;
  });
  await until(() => next, 'the next command does not wait for the stuck switch again (no time passes)');
});

test('an agent\'s tool call the daemon reports keeps the extension at work until 15 minutes after it', async () => {
  const state = fakeChrome();
  const c = clock(10_000_000);
  const mode = modeOf(state, c);
  await mode.start();
  await mode.work(c.t - IDLE_AFTER_MS); // a call 15 minutes ago: over
  assert.equal(mode.atWork, false);
  const at = c.t - 60_000; // a call a minute ago
  await mode.work(at);
  assert.equal(mode.atWork, true);
  assert.equal(state.session.get(DEADLINE_KEY), at + IDLE_AFTER_MS);
  assert.equal(mode.since, c.t);
  state.calls.length = 0;
  await mode.work(at); // the same call, reported by the next poll: nothing
  await mode.chain;
  assert.equal(state.session.get(DEADLINE_KEY), at + IDLE_AFTER_MS);
  assert.deepEqual(state.calls, []);
});

test('the popup\'s "at work since" is stored only once Chrome accepted the switch', async () => {
  const state = fakeChrome();
  const c = clock();
  const mode = modeOf(state, c);
  await mode.start();
  const real = state.api.scripting.updateContentScripts;
  state.api.scripting.updateContentScripts = async () => {
    throw new Error('refused');
  };
  await mode.work();
  assert.equal(mode.atWork, false);
  assert.equal(state.session.has(SINCE_KEY), false, 'a refused switch says nothing is captured');
  state.api.scripting.updateContentScripts = real;
  c.t += 1;
  await mode.work();
  assert.equal(state.session.get(SINCE_KEY), c.t);
  c.t = state.session.get(DEADLINE_KEY);
  await mode.onAlarm({ name: IDLE_ALARM });
  assert.equal(state.session.has(SINCE_KEY), false);
});

test('a worker stopped mid-switch (deadline stored, registration still idle): the next start switches to every frame', async () => {
  const state = fakeChrome();
  const c = clock();
  const first = modeOf(state, c);
  await first.start();
  state.api.scripting.updateContentScripts = () => new Promise(() => {}); // the worker stops during it
  let updating = false;
  const stuck = state.api.scripting.updateContentScripts;
  state.api.scripting.updateContentScripts = (...a) => {
    updating = true;
    return stuck(...a);
  };
  first.work();
  await until(() => updating, 'the switch asked Chrome');
  assert.ok(state.session.get(DEADLINE_KEY) > c.t, 'the deadline was stored first');
  assert.deepEqual(frames(state), ['start-isolated:false', 'start-main:false']);

  const again = fakeChrome({ registered: state.registered, session: state.session }); // a new worker
  c.t += 1000;
  const next = modeOf(again, c);
  await next.start();
  assert.equal(next.atWork, true);
  assert.deepEqual(frames(again), ['start-isolated:true', 'start-main:true']);
  assert.equal(again.session.get(SINCE_KEY), c.t);
});

test('the DOM engine and the recorder are not registered: the worker injects them at DOMContentLoaded into the frames the mode covers, idle only into the page the user\'s action led to', async () => {
  // Chrome holds a page's load event for a registered document_end script
  // (capture/declared.js): the entry is declared by_worker instead.
  assert.deepEqual(byWorker(declared), [{ world: 'ISOLATED', files: ['dist/end-isolated.js'] }]);
  assert.ok(registrations(declared, true).every((r) => r.id !== 'end-isolated') && registrations(declared, false).every((r) => r.id !== 'end-isolated'));
  assert.deepEqual(LOADED_FILTER.url[0].schemes.sort(), ['about', 'blob', 'data', 'file', 'http', 'https']);

  const state = fakeChrome();
  const injected = [];
  let refuse = false;
  state.api.scripting.executeScript = async (opts) => {
    await turn();
    if (refuse) throw new Error('Cannot access contents of the page');
    injected.push(opts);
    return [];
  };
  const c = clock();
  const mode = modeOf(state, c);
  const top = { tabId: 4, frameId: 0, documentId: 'D0', url: 'http://x/' };
  const sub = { tabId: 4, frameId: 7, parentFrameId: 0, documentId: 'D7', url: 'about:srcdoc' };
  // Idle, a page loaded and left alone gets nothing (capture/ask.js asks at the user's first input).
  await mode.loaded(top);
  assert.deepEqual(injected, [], 'idle, no action in the tab: no recorder');
  // The user acted in the tab (a recorded action): the page it leads to gets the recorder at once.
  mode.acted(4);
  c.t += ACTED_MS - 1;
  // A worker Chrome woke for the event starts first: the mode is read, then the document gets the files.
  await mode.loaded(top);
  assert.deepEqual(injected, [{ target: { tabId: 4, documentIds: ['D0'] }, world: 'ISOLATED', files: ['dist/end-isolated.js'], injectImmediately: true }]);
  await mode.loaded({ ...top, tabId: 5, documentId: 'T5' });
  assert.equal(injected.length, 1, 'an action in another tab does not count');
  await mode.loaded(sub);
  assert.equal(injected.length, 1, 'idle: iframes get nothing, as the registration');
  // A prerendered page's top document has a frame id of its own until it is shown.
  await mode.loaded({ tabId: 4, frameId: 9, parentFrameId: -1, documentId: 'P9', url: 'http://x/next' });
  assert.deepEqual(injected.map((o) => o.target.documentIds[0]), ['D0', 'P9'], 'a prerendered top document is a top document');
  injected.pop();
  c.t += 1;
  await mode.loaded({ ...top, documentId: 'D1' });
  assert.equal(injected.length, 1, `${ACTED_MS} ms after the action, a page loaded in the tab is no longer its doing`);
  await mode.work();
  await mode.loaded(sub);
  assert.deepEqual(injected.map((o) => o.target.documentIds[0]), ['D0', 'D7'], 'at work: every frame');
  await mode.loaded({ tabId: 4, frameId: 0 });
  assert.equal(injected.length, 2, 'no document id: nothing to address');
  refuse = true;
  await mode.loaded(top); // a page Chrome does not let extensions script, or gone: it resolves
  assert.equal(injected.length, 2);
});

test('the recorder a document\'s first input asks for (capture/ask.js) comes into that document, and the tab counts as acted in', async () => {
  const state = fakeChrome();
  const injected = [];
  state.api.scripting.executeScript = async (opts) => {
    await turn();
    injected.push(opts);
    return [];
  };
  const c = clock();
  const mode = modeOf(state, c);
  await mode.asked({ id: 'ext', tab: { id: 6 }, frameId: 2, documentId: 'F2', url: 'http://x/frame' });
  assert.deepEqual(injected, [{ target: { tabId: 6, documentIds: ['F2'] }, world: 'ISOLATED', files: ['dist/end-isolated.js'], injectImmediately: true }], 'idle, into any frame that asks: its document');
  await mode.loaded({ tabId: 6, frameId: 0, documentId: 'N0', url: 'http://x/next' });
  assert.deepEqual(injected.map((o) => o.target.documentIds[0]), ['F2', 'N0'], 'the page the input led to gets it at once');
  await mode.asked({ id: 'ext', documentId: 'X' });
  await mode.asked({ id: 'ext', tab: { id: 6 } });
  assert.equal(injected.length, 2, 'without a tab or a document id: nothing to address');
  // The remembered tabs are forgotten ACTED_MS after their last action.
  c.t += ACTED_MS;
  mode.acted(7);
  assert.deepEqual([...mode.acts.keys()], [7]);
});
