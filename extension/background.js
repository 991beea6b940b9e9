// The service worker: wires chrome events to the poll loop, runs delivered
// commands, posts their statuses, and answers the popup.
//
// MV3 stops an idle worker after ~30 s and may start a new one at any event.
// Each start is a new "instance" (INSTANCE below): the module runs again from
// the top, the poll loop starts again, and the daemon fails commands that the
// previous instance had received but not finished (extension_disconnected),
// so nothing here needs to survive a restart but the token and the status in
// chrome.storage.local. What keeps the worker alive and brings it back:
//   - a poll-loop turn calls chrome.storage (resets the idle timer) when the
//     last turn that did is 5 s old or more (pollConfig; polls are held at
//     most POLL_WAIT_MS = 20 s, backoff waits at most 5 s);
//   - the alarm ALARM fires every 30 s and wakes a stopped worker, whose
//     module start then runs start() again (the loop is idempotent);
//   - runtime.onStartup / onInstalled, storage changes (pairing, port) and
//     popup messages wake it as well.
//
// Event capture (console, errors, network, user actions, vitals, tabs,
// batched to POST /events) lives in capture/; start() starts it. The
// content scripts are registered here, not in the manifest, by
// capture/declared.js: top documents only while no agent works, every
// frame from an agent's command until 15 minutes after its last. Which
// agent owns which tab lives in tabs/ (chrome.storage.session).

import { Backoff, sleep } from './backoff.js';
import { deliverHeld, flushAfter, forgetNotedTabs, noteTab, startCapture } from './capture/worker.js';
import { CaptureMode, LOADED_FILTER } from './capture/declared.js';
import { runQuery, timeoutMessage } from './commands.js';
import { DOM_ACTIONS } from './contract.js';
import { nativeDialog, nativeDialogText, watchDialogs } from './actions/dialog.js';
import { watchRequests } from './actions/busy.js';
import { DaemonClient, DaemonError, DEFAULT_PORT, normaliseCode, SignatureError, validPort } from './daemon.js';
import { startDrawRelay } from './overlay/worker.js';
import { restrictStorage, tokenStore } from './platform.js';
import { Poller } from './poller.js';
import { runCommand, deadlineOf } from './runner.js';
import { KEYS, StatusStore } from './status.js';
import { TabOwners } from './tabs/owners.js';
import { HungTabs } from './tabs/hung.js';
import { tabFacts } from './tabs/facts.js';
import { TopDocuments } from './tabs/tops.js';
import { mark } from './trace.js';
import { AllowedCache, Origins, originOf } from './origins/rule.js';
import { Held, startHolding } from './origins/held.js';
import { forgetFramed, reachFramesOfOpenTabs, reachOpenTabs, reachWhenLoaded, watchNavigations, withFrames } from './tabs/reach.js';

/** INSTANCE identifies this worker instance to the daemon (X-Gasoline-Instance). */
const INSTANCE = crypto.randomUUID();

const ALARM = 'gasoline-keepalive';
const SEEN_LIMIT = 1000; // correlation ids remembered to refuse a second delivery
const POST_ATTEMPTS = 6;

const status = new StatusStore(chrome.storage.local, INSTANCE);

// Tabs per agent: which agent owns which tab, each agent's last used tab,
// its tab groups (tabs/owners.js). Every command runs through owners.run.
// What Chrome says of each tab, asked once per change, not by every step
// of every command (tabs/facts.js).
tabFacts.listen();
const owners = new TabOwners({ onChange: noteTab, facts: tabFacts });
owners.listen();

// Tabs whose page did not answer a probe (tabs/hung.js): commands to them
// fail at once with tab_unresponsive until they answer again; commands to
// tabs a native dialog holds, at once with dialog_showing.
const hung = new HungTabs({ dialogShown: nativeDialog, dialogText: nativeDialogText });

// Which frames get the content scripts (capture/declared.js): every frame
// while an agent works, top documents only otherwise. A command switches
// it before it runs (dispatch); on going to work the scripts are brought,
// in the background, into every open tab's iframes that loaded while idle
// (reachFramesOfOpenTabs: an agent that only reads sends no command), and a
// command to a tab waits for its tab's look a short while (withFrames).
// A replaced registration (install, update) missed the pages loading
// meanwhile: they are reached once loaded. Going to work also tells the
// daemon since when every frame is captured at once (poller.tell), not when
// the held poll ends.
const mode = new CaptureMode({
  onWork: () => {
    forgetFramed();
    reachFramesOfOpenTabs();
    poller.tell();
  },
  onReplace: () => reachWhenLoaded({ noted: noteTab }),
});
const runFramed = withFrames(runQuery, { atWork: () => mode.atWork });

// The origin rule (origins/rule.js): a command on a page of an origin
// neither local nor allowed by the user waits for the user's answer in the
// extension's own prompt window.
const origins = new Origins({
  storage: chrome.storage.local,
  tabUrl: async (id, query) => {
    if (query?.action === 'execute_js' || Object.hasOwn(DOM_ACTIONS, query?.action)) {
      // execute_js's script, and a DOM action in the top frame, go to that
      // document only: its URL is what the rule judges (known from
      // webNavigation's events: no round trip).
      const frame = await askTopFrame(query.correlation_id, id);
      if (typeof frame?.url === 'string') return frame.url;
    }
    const tab = await tabFacts.fresh(id);
    return tab.url || tab.pendingUrl || '';
  },
  ask: async ({ id, origin, agent }) => {
    const q = new URLSearchParams({ id, origin, agent });
    const w = await chrome.windows.create({ type: 'popup', url: chrome.runtime.getURL(`origins/ask.html?${q}`), width: 460, height: 260, focused: true });
    return w.id;
  },
  close: (windowId) => chrome.windows.remove(windowId).catch(() => {}),
  // The command's status says it waits for the user (phase
  // waiting_for_user, the task's message), in order.
  waiting: (query, origin) => {
    topFrames.delete(query.correlation_id); // the user may take long: the rule looks again once they answered (rule.js #stillOn)
    waitingPosts = waitingPosts.then(() => postResult({ correlation_id: query.correlation_id, status: 'pending', waiting_for_user: origin }));
  },
  extend: (query, ms) => extenders.get(query.correlation_id)?.(ms) ?? false,
});
let waitingPosts = Promise.resolve();
const extenders = new Map(); // correlation id → runCommand's extend, while the command runs
// correlation id → the frames and the tab that execute_js looked up after
// its script ran, and the flush of the script's document done in its
// injection, until after() hands them to the capture flush.
const framesAfter = new Map();
// correlation id → {tabId, frame}: execute_js's or a DOM action's look at
// its tab's top document (which its script, or the action in the top
// frame, is pinned to), whose URL the origin rule judges: as
// webNavigation's events told it (tabs/tops.js), else asked. A navigation
// since fails the command as "navigated" (its document is gone); it never
// runs in a document the rule did not judge.
const topFrames = new Map();
const tops = new TopDocuments();
tops.listen();
function askTopFrame(id, tabId) {
  const frame = tops.get(tabId) ?? tops.ask(tabId, chrome.webNavigation.getFrame({ tabId, frameId: 0 }).catch(() => null));
  topFrames.set(id, { tabId, frame });
  return frame;
}
chrome.windows.onRemoved.addListener((windowId) => origins.closed(windowId));
// release_capture (origins/held.js) needs no look at the tab's frames.
// A script still running when its command ended (execute_js) is marked
// when it finishes, its outcome dropped: "late result dropped". What an
// action waits for in the page goes to the daemon with a pending status,
// in order with the origin rule's (actions/waiting.js).
const runAllowed = origins.gate((query, signal, hooks) => {
  const id = query.correlation_id;
  mark(id, 'allowed');
  const topFrame = topFrames.get(id);
  topFrames.delete(id);
  const all = {
    ...hooks,
    topFrame,
    onLate: () => mark(id, 'late result dropped'),
    mark: (stage) => mark(id, stage),
    onFrames: (tabId, frames, { flushed = null, tab = null } = {}) => framesAfter.set(id, { tabId, frames, flushed, tab }),
    onWaiting: (text) => {
      waitingPosts = waitingPosts.then(() => postResult({ correlation_id: id, status: 'pending', waiting_on: text }));
    },
  };
  return query.action === 'release_capture' ? runQuery(query, signal, all) : runFramed(query, signal, all);
});
// What pages of origins neither local nor allowed capture is held in the
// browser (origins/held.js) until the user allows the origin: then it goes
// to the daemon. The daemon learns what is held with each poll, and in a
// poll of its own (poller.tell) a moment after a tab or origin came or went,
// or HELD_COUNTS_MS after only counts changed (a page of a site not allowed
// that logs all the time costs a poll every few seconds, no more).
const HELD_FRESH_MS = 200;
const HELD_COUNTS_MS = 5000;
let heldTold = null;
let heldTellAt = 0;
const held = new Held({
  store: chrome.storage.session,
  deliver: deliverHeld,
  onChange: (fresh) => {
    const ms = fresh ? HELD_FRESH_MS : HELD_COUNTS_MS;
    if (heldTold && heldTellAt <= Date.now() + ms) return;
    clearTimeout(heldTold);
    heldTellAt = Date.now() + ms;
    heldTold = setTimeout(() => {
      heldTold = null;
      poller.tell();
    }, ms);
  },
});
startHolding({ held, tabUrl: (id) => chrome.tabs.get(id).then((tab) => tab.url || tab.pendingUrl || ''), tell: () => poller.tell() });
const allowedCache = new AllowedCache(chrome.storage.local, chrome.storage.onChanged, (allowed) => {
  held.ready.then(() => held.list().filter((o) => allowed.has(o)).forEach((o) => held.release(o)));
});
const holdCapture = (e) => {
  if (!allowedCache.withholds(e)) return false;
  held.hold(originOf(e.page_url), e);
  return true;
};
watchNavigations();

// tokens holds the pairing token (platform.js: out of content scripts' reach).
const tokens = tokenStore();

/** loadConfig reads the settings (pollConfig says why the poll loop reads them). */
async function loadConfig() {
  const [got, token] = await Promise.all([chrome.storage.local.get(KEYS.port), tokens.get()]);
  const port = Number(got[KEYS.port]);
  return { token, port: validPort(port) ? port : DEFAULT_PORT };
}

// known holds the settings as last read, for the posts on a command's path
// (its result, the capture the result waits for): a chrome.storage read
// costs about a millisecond before each. It is dropped at every change of
// the token or the port (storage.onChanged below; pair and unpair drop it
// themselves as they write).
let known = null;

/** currentConfig is loadConfig, read again only after the token or port changed. */
function currentConfig() {
  known ??= loadConfig().catch((err) => {
    known = null;
    throw err;
  });
  return known;
}

// The poll loop reads the settings before each poll, and that read is
// also its keep-alive: Chrome stops a worker that calls no extension API
// for 30 s, and a held poll (up to POLL_WAIT_MS) is none. A read cost the
// worker's thread about 0.45 ms in the middle of the command the last poll
// brought (browserbench -worker-profile, issue 33), so while polls follow
// each other fast the loop reads afresh only every CONFIG_READ_MS and
// takes the settings as last read between (currentConfig: dropped at every
// change of the token or port, which also starts a new poll).
const CONFIG_READ_MS = 5000;
let configReadAt = 0;

/** pollConfig is currentConfig, read afresh when the last fresh read is CONFIG_READ_MS old. */
function pollConfig() {
  const now = Date.now();
  if (now - configReadAt >= CONFIG_READ_MS) {
    configReadAt = now;
    known = null;
  }
  return currentConfig();
}

function makeClient(config) {
  return new DaemonClient({ port: config.port, token: config.token, instance: INSTANCE });
}

// seen holds the correlation ids this instance has received, oldest first.
// The daemon never re-delivers a command; this makes a duplicate harmless anyway.
const seen = new Set();

/**
 * dispatch starts one delivered command without waiting for it. It
 * returns a promise that settles once the command has chosen its tab, or
 * has ended (the poller starts the next poll then: Poller, HEAD_START_MS).
 */
function dispatch(query) {
  const id = query?.correlation_id;
  if (typeof id !== 'string' || !id || seen.has(id)) return undefined;
  // Stages (trace.js, off by default): received, tab chosen (owners),
  // allowed (hung tabs, the origin rule), acted (the action's handler),
  // flushed (capture), posting and result answered (POST /query-result),
  // and late result dropped (runAllowed).
  mark(id, 'received');
  seen.add(id);
  if (seen.size > SEEN_LIMIT) seen.delete(seen.values().next().value);

  const action = query.action ?? '?';
  status.commandReceived(action, id);
  let tabId; // the tab the command went to, once owners.run chose it
  let chosen;
  const reached = new Promise((resolve) => {
    chosen = resolve;
  });
  runCommand({
    correlationId: id,
    timeoutMs: deadlineOf(query),
    execute: (signal, { extend }) => {
      extenders.set(id, extend);
      return mode.work().then(() => owners.run(query, signal, hung.guard(runAllowed, (t) => {
        tabId = t;
        mark(id, 'tab chosen');
        chosen();
      })));
    },
    // What the tab did before the result is readable once it is
    // (capture/worker.js flushAfter), within the time left before the
    // deadline; a frozen tab has nothing to hand over.
    after: async (outcome, budgetMs) => {
      mark(id, 'acted');
      const frames = framesAfter.get(id);
      framesAfter.delete(id);
      topFrames.delete(id); // the origin rule refused the command
      if (outcome.error?.reason === 'tab_unresponsive') return;
      await flushAfter(query, 'error' in outcome ? null : outcome.result, tabId, budgetMs, frames);
      mark(id, 'flushed');
    },
    report: postResult,
    onStatus: (s) => {
      if (s !== 'pending') extenders.delete(id);
      status.commandStatus(id, s);
      // A command that ran into its deadline may have frozen its tab (an
      // endless loop): the next command there probes it first.
      if (s === 'timeout') hung.suspect(tabId);
    },
    timeoutMessage: (ms) => timeoutMessage(action, ms),
    probe: () => hung.verdict(tabId),
  }).finally(chosen);
  return reached;
}

/**
 * postResult posts one status body to POST /query-result. It retries network
 * errors, 429, 5xx and 401 replayed (Chrome's own resend of a post whose
 * connection broke) a few times (the daemon may be restarting), replaces a
 * result too large to send by an error, and drops the body on 409
 * (command_final: the daemon already has a final status), 404 (unknown id)
 * and other refusals. It stops when signal aborts. It never rejects.
 */
async function postResult(body, { signal } = {}) {
  const backoff = new Backoff({ baseMs: 250, maxMs: 4000 });
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) return;
    try {
      const config = await currentConfig();
      if (!config.token) return; // unpaired meanwhile: the daemon fails the command itself
      if (body.status !== 'pending') mark(body.correlation_id, 'posting');
      await makeClient(config).queryResult(body, { signal });
      if (body.status !== 'pending') mark(body.correlation_id, 'result answered');
      return;
    } catch (err) {
      if (signal?.aborted) return;
      if (err instanceof DaemonError) {
        if (err.status === 413 && body.status === 'complete') {
          body = {
            correlation_id: body.correlation_id,
            status: 'error',
            error: `the result is too large to send to the daemon (${err.message}); return less data (pick fields, slice arrays or strings)`,
          };
          continue;
        }
        // replayed: Chrome sent this post again on its own after a broken
        // connection; the first may or may not have been applied, and a
        // freshly signed retry gets 409 if it was.
        const replayed = err.status === 401 && err.code === 'replayed';
        if (err.status === 401 && !replayed) status.update({ paired: false, token_rejected: true });
        if (err.status !== 429 && err.status < 500 && !replayed) {
          if (err.status !== 409 && err.status !== 404) {
            console.warn('gasoline: result for', body.correlation_id, 'refused:', err.status, err.code, err.message);
          }
          return;
        }
      }
      if (attempt >= POST_ATTEMPTS) {
        console.warn('gasoline: giving up posting', body.status, 'for', body.correlation_id, ':', err.message);
        return;
      }
      await sleep(backoff.next(), signal).catch(() => {});
    }
  }
}

// Draw mode: the overlay's Done and cancellations, and tabs closing under it.
startDrawRelay({
  post: async (body) => {
    const config = await loadConfig();
    if (!config.token) throw new Error('the extension is not paired with the daemon');
    await makeClient(config).drawModeComplete(body);
  },
});

// The loop waits for the content scripts' registration (mode.start()):
// the extension takes no command, and the daemon does not see it
// connected, before pages load with capture.
// Each poll tells the daemon since when every frame is captured (for the
// capture reads' note), and an agent's tool call in its answer (observe
// included: the daemon knows agents that never send a command) puts the
// extension at work as a command does.
const poller = new Poller({
  loadConfig: pollConfig, makeClient, dispatch, status,
  ready: () => mode.start(),
  frames: () => (mode.atWork ? mode.since : 0),
  held: () => held.counts(),
  onAgent: (at) => {
    mode.work(at);
  },
  onAllow: (list) => origins.allowFromTerminal(list),
  // A daemon that comes back may be a new one: tabs are noted to it afresh.
  onLost: () => forgetNotedTabs(),
});

// Which tabs a native dialog freezes, as the pages' runtimes tell it.
watchDialogs();
watchRequests();

// reaching chains the passes over the open tabs that bring the content
// scripts into tabs opened before this extension started (tabs/reach.js).
let reaching = Promise.resolve();

/**
 * reachTabs brings the content scripts into every open tab lacking them
 * and reports those tabs to the daemon (all: every tab, as after an
 * install or a browser start, when the daemon knows none of them).
 */
function reachTabs(all) {
  reaching = reaching.then(() => mode.start()).then(() => reachOpenTabs({ noted: noteTab, all }));
}

/** start makes sure the alarm exists, the content scripts are registered and the poll loop runs. Idempotent. */
function start() {
  chrome.alarms.get(ALARM).then((alarm) => {
    if (!alarm) return chrome.alarms.create(ALARM, { periodInMinutes: 0.5 });
  }).catch((err) => console.warn('gasoline: creating the keep-alive alarm:', err));
  mode.start();
  poller.start();
  startCapture({ loadConfig: currentConfig, makeClient, tabInfo: (tab) => owners.describe(tab), withhold: holdCapture, onAction: (tabId) => mode.acted(tabId) });
}

// --- pairing (called by the popup) -----------------------------------------

/**
 * pair exchanges a code for a token with the daemon on the configured port.
 * The token is stored only once the daemon's answer proved that it knows the
 * code (daemon.js, auth.js): a program that merely holds the port cannot
 * pair the extension with itself.
 */
async function pair(rawCode) {
  const code = normaliseCode(rawCode);
  if (!code) {
    return { ok: false, error: { code: 'invalid_code', message: 'enter the code that "gasoline pair" printed', hint: 'it looks like ABCD-2345' } };
  }
  const config = await loadConfig();
  try {
    const res = await makeClient({ port: config.port, token: '' }).pair(code);
    await tokens.set(res.token);
    known = null;
    status.update({ paired: true, token_rejected: false, daemon_reachable: true, last_error: null });
    poller.reconfigure();
    reachTabs(true); // the daemon knows none of the open tabs yet
    return { ok: true, port: config.port, extension_id: res.extension_id ?? chrome.runtime.id };
  } catch (err) {
    if (err instanceof SignatureError) {
      return {
        ok: false,
        error: {
          code: 'not_gasoline',
          message: err.message,
          hint: `check the port (${config.port}): "gasoline daemon status" prints the daemon's port; stop any other program that listens on it`,
        },
      };
    }
    if (err instanceof DaemonError) {
      return { ok: false, error: { code: err.code, message: err.message, hint: err.hint } };
    }
    return {
      ok: false,
      error: {
        code: 'unreachable',
        message: err.message,
        hint: `is the daemon running on port ${config.port}? Start it with "gasoline daemon start", or set the port below`,
      },
    };
  }
}

/**
 * unpair forgets the token and revokes it at the daemon. The token leaves
 * storage first (it is kept in memory for the revocation), so the poll loop
 * cannot pick it up again while the daemon is asked; the poller's new
 * generation makes sure nothing a poll already in flight returns is run.
 * It resolves to {ok, revoked} and, when the daemon could not confirm the
 * revocation, an error saying what to do.
 */
async function unpair() {
  const config = await loadConfig();
  await tokens.remove();
  known = null;
  poller.reconfigure();
  await status.update({ paired: false, token_rejected: false, last_error: null });
  if (!config.token) return { ok: true, revoked: false };
  try {
    await makeClient(config).unpair();
    return { ok: true, revoked: true, port: config.port };
  } catch (err) {
    return {
      ok: true,
      revoked: false,
      port: config.port,
      error: {
        code: 'not_revoked',
        message: `the daemon on 127.0.0.1:${config.port} could not revoke the token (${err.message}), so it stays valid there`,
        hint: 'run "gasoline unpair" on this machine to revoke it (it revokes every browser\'s pairing)',
      },
    };
  }
}

// --- events (registered synchronously at top level, as MV3 requires) ---------

// Content scripts run in every page: they must not read the token
// (Chrome only: platform.js).
restrictStorage();

// Install, update, enable and browser start: tabs already open have none of
// the content scripts (and the daemon knows none of them) until brought.
chrome.runtime.onInstalled.addListener(() => {
  start();
  reachTabs(true);
});
chrome.runtime.onStartup.addListener(() => {
  start();
  reachTabs(true);
});
// The DOM engine and the recorder, injected at DOMContentLoaded rather than
// registered at document_end, which holds the page's load event
// (capture/declared.js).
chrome.webNavigation.onDOMContentLoaded.addListener((d) => mode.loaded(d), LOADED_FILTER);
// Idle, most pages get them at the user's first input, which
// capture/ask.js reports: {gasoline: "capture", op: "recorder"}, from
// content scripts only (the extension's own pages have no recorder).
chrome.runtime.onMessage.addListener((msg, sender) => {
  if (msg?.gasoline !== 'capture' || msg.op !== 'recorder' || sender.id !== chrome.runtime.id) return false;
  if (!sender.url?.startsWith(chrome.runtime.getURL(''))) mode.asked(sender);
  return false;
});
chrome.tabs.onRemoved.addListener((tabId) => hung.forget(tabId));
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === ALARM) start();
  mode.onAlarm(alarm); // the idle deadline
});
// A worker Chrome stopped is otherwise revived only by the alarm (at most
// every 30 s, as long as the daemon's dispatch timeout). The user's own
// browsing — switching tabs, loading pages, focusing a window — wakes it
// sooner, at the moments an agent is most likely acting in this browser.
chrome.tabs.onActivated.addListener(() => start());
chrome.tabs.onUpdated.addListener((_tabId, change) => {
  if (change.status === 'complete') start(); // Chrome takes no event filter here
});
chrome.windows.onFocusChanged.addListener(() => start());
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'local' && (KEYS.token in changes || KEYS.port in changes)) {
    known = null;
    poller.reconfigure();
  }
});

/**
 * Messages from the popup: {type: "pair", code} → {ok, port, extension_id} or
 * {ok: false, error: {code, message, hint}}; {type: "unpair"} → {ok, revoked,
 * port?, error?};
 * {type: "info"} → {ok, instance, polling}; {type: "origin_answer", id, choice}
 * (origins/ask.html) → {ok}.
 */
chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  // Only the extension's own pages: content scripts share sender.id.
  if (sender.id !== chrome.runtime.id || !sender.url?.startsWith(chrome.runtime.getURL(''))) return false;
  let reply;
  switch (msg?.type) {
    case 'pair':
      reply = pair(msg.code);
      break;
    case 'unpair':
      reply = unpair();
      break;
    case 'info':
      reply = Promise.resolve({ ok: true, instance: INSTANCE, polling: poller.running });
      break;
    case 'origin_answer': // the prompt window (origins/ask.html)
      if (!sender.url.startsWith(chrome.runtime.getURL('origins/ask.html'))) return false;
      reply = Promise.resolve({ ok: origins.answer(String(msg.id), msg.choice) });
      break;
    default:
      return false;
  }
  reply.then(sendResponse, (err) => sendResponse({ ok: false, error: { code: 'internal', message: String(err?.message || err) } }));
  return true; // sendResponse is called asynchronously
});

start();
// A worker start after the extension was turned off and on fires no
// onInstalled: look for tabs without the scripts each time.
reachTabs(false);
