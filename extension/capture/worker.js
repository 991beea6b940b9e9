// The worker side of capture: takes batches from the content-script relays,
// observes every request of every tab (chrome.webRequest) and the tabs
// themselves, and delivers it all to POST /events through the Batcher.
// background.js calls startCapture from start(), synchronously at module
// start, so the listeners exist in the worker's first turn as MV3 requires.

import { Batcher } from './batcher.js';
import { DEFAULT_SETTINGS, KINDS, MAX_BODY_CHARS, normaliseSettings, sanitise, sanitiseReason } from './events.js';
import { listen, NetworkObserver } from './network.js';
import { LongPolls } from './polls.js';
import { tabActivated, tabNoted, tabRemoved, tabUpdated } from './tabs.js';
import { scriptable } from '../tabs/reach.js';
import { within } from '../backoff.js';

/** CAPTURE_MESSAGE is the type of a relay's message to the worker. */
export const CAPTURE_MESSAGE = 'gasoline.capture';

/** MAX_EVENTS_PER_MESSAGE is the most records checkBatch takes from one message. */
export const MAX_EVENTS_PER_MESSAGE = 500;
const MAX_DOCUMENTS = 1000; // documentId -> URL after same-document navigations; documents that sent batches
const DOCUMENT_BATCHES_ACTIVE = 4; // batch ids kept of a document while it is active
const DOCUMENT_BATCHES = 64; // and once it is left (a relay's whole queue goes at once)
const LEFT_PREFIX = 'capture:left:'; // chrome.storage.session: a left document's frame id and batch ids
const MAX_LEFT_DOCUMENTS = 100;

let started = null;

/**
 * startCapture registers the capture listeners once per worker instance and
 * returns the capture state; later calls only retry delivery. loadConfig()
 * resolves to {token, port}; makeClient(config) returns a DaemonClient;
 * tabInfo(tab), when given, resolves to fields added to the tab's events
 * (its owner and group: tabs/owners.js describe). withhold(event), when
 * given, keeps an event from the daemon: true when it took it (origins/:
 * what pages of origins the user did not allow do is held in the browser
 * until they allow it; deliverHeld hands it over then). onAction(tabId) is
 * called for a batch with a user's action in it (capture/declared.js
 * CaptureMode.acted: the page it leads to gets the recorder at once).
 *
 * The message listener answers only CaptureBatch messages from content
 * scripts (never from the extension's own pages, never anything else), and
 * takes tab, frame and URL from Chrome's sender, never from the message:
 *
 *   @typedef {{type: "gasoline.capture", batch: string, events: object[], dropped?: Object<string, number>}} CaptureBatch
 *   reply: {ok: true, config: {version, body_cap, kinds}} once the batch is stored
 */
export function startCapture({ loadConfig, makeClient, tabInfo, withhold = () => false, onAction = () => {}, api = chrome, log = console }) {
  if (started) {
    started.batcher.kick();
    return started;
  }
  // c is what the parts below share: the settings are c.settings, replaced
  // whenever the daemon's settings change (refreshSettings).
  const c = { api, log, withhold, onAction, extensionUrl: api.runtime.getURL(''), settings: normaliseSettings(DEFAULT_SETTINGS) };
  c.refreshSettings = settingsReader(c, loadConfig, makeClient);
  c.batcher = new Batcher({
    store: api.storage.session,
    log,
    post: async (body) => {
      const config = await loadConfig();
      if (!config.token) throw Object.assign(new Error('not paired'), { notReady: true });
      return makeClient(config).postEvents(body);
    },
    onAccepted: (answer) => {
      if (Number.isSafeInteger(answer?.config_version) && answer.config_version !== c.settings.version) c.refreshSettings();
    },
  });
  c.addLocal = (e) => {
    const event = sanitise(e, { tab_id: e.tab_id, frame_id: e.frame_id, page_url: e.page_url }, c.settings, { allowTab: true });
    if (event && !withhold(event)) c.batcher.add(event);
  };
  c.observer = observeNetwork(c);
  c.documentUrls = watchNavigation(c);
  c.tabs = watchTabs(c, tabInfo);
  listenBatches(c, trackDocuments(c));
  api.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && ('token' in changes || 'port' in changes)) {
      c.batcher.kick();
      c.refreshSettings();
    }
  });
  c.refreshSettings();
  started = {
    batcher: c.batcher, observer: c.observer, settings: () => c.settings, noteTab: c.tabs.noteTab,
    flushFrame: (tabId, frame, waitMs) => flushFrame(c, tabId, frame, waitMs),
    flushTab: (tabId, opts) => flushTab(c, tabId, opts),
    storeFlushed: (tabId, frame, answer) => storeFlushed(c, tabId, frame.frameId, framePageUrl(c, tabId, frame), answer),
    forgetNotedTabs: c.tabs.forget,
  };
  return started;
}

/**
 * settingsReader returns refreshSettings(): it reads the daemon's capture
 * settings (GET /capture/config) into c.settings, one read at a time (a
 * call during one joins it), and resolves when done; unpaired, it reads
 * nothing, and a failed read keeps the settings as they are.
 */
function settingsReader(c, loadConfig, makeClient) {
  let fetching = null;
  return () => {
    if (fetching) return fetching;
    fetching = (async () => {
      const config = await loadConfig();
      if (!config.token) return;
      try {
        c.settings = normaliseSettings(await makeClient(config).captureConfig());
      } catch (err) {
        if (err?.status !== 404) c.log.warn('gasoline: reading GET /capture/config:', err?.message || err);
      }
    })().finally(() => {
      fetching = null;
    });
    return fetching;
  };
}

/**
 * observeNetwork starts recording every tab's requests (chrome.webRequest)
 * into c.addLocal and returns the NetworkObserver. The long polls it learns
 * (polls.js) outlive a worker that Chrome stopped, in
 * chrome.storage.session, saved a second after a change.
 */
function observeNetwork(c) {
  const { api } = c;
  let saving = null;
  const polls = new LongPolls({
    changed: () => {
      saving ??= setTimeout(() => {
        saving = null;
        Promise.resolve(api.storage?.session?.set({ [POLLS_KEY]: polls.save() })).catch(() => {});
      }, 1000);
    },
  });
  Promise.resolve(api.storage?.session?.get(POLLS_KEY)).then((got) => polls.load(got?.[POLLS_KEY]), () => {});
  const observer = new NetworkObserver({ emit: c.addLocal, ownOrigin: c.extensionUrl.replace(/\/$/, ''), polls });
  if (api.webRequest) listen(api.webRequest, observer);
  else c.log.warn('gasoline: chrome.webRequest is unavailable; browser-side network capture is off');
  return observer;
}

/**
 * watchNavigation follows documents' URLs and records subframes' loads; it
 * returns the map of documentId to URL it keeps (documentUrls).
 *
 * Chrome's sender.url is the URL a document was loaded at; after
 * pushState or a fragment change the document's URL is the one
 * webNavigation reports for its documentId.
 *
 * A web or file subframe's load: recorded here, from the commit Chrome
 * reports, rather than by the frame's page script (capture/main/history.js),
 * whose message to the worker would cost every such frame on every page
 * a round trip (issue 18). Chrome reports a failed load as an error, not
 * a commit. While no agent works a subframe gets no content scripts
 * (capture/declared.js), so this is then all that is known of its load.
 * The top document's load, with its referrer, and those of frames
 * without a URL of their own still come from the page.
 */
function watchNavigation(c) {
  const { api, observer } = c;
  const documentUrls = new Map();
  const subframeLoaded = (d) => {
    if (!(d?.frameId > 0) || !Number.isInteger(d.tabId) || d.tabId < 0 || !scriptable(d.url)) return;
    observer.noteDocument(d.tabId, d.frameId, d.url);
    c.addLocal({ kind: 'nav', type: 'load', ts: Number.isFinite(d.timeStamp) ? Math.round(d.timeStamp) : Date.now(), to: d.url,
      tab_id: d.tabId, frame_id: d.frameId, page_url: d.url });
  };
  const moved = (d) => {
    if (typeof d?.url !== 'string') return;
    observer.noteDocument(d.tabId, d.frameId, d.url);
    if (typeof d.documentId !== 'string') return;
    documentUrls.delete(d.documentId);
    documentUrls.set(d.documentId, d.url);
    if (documentUrls.size > MAX_DOCUMENTS) documentUrls.delete(documentUrls.keys().next().value);
  };
  if (api.webNavigation) {
    api.webNavigation.onHistoryStateUpdated.addListener(moved);
    api.webNavigation.onReferenceFragmentUpdated.addListener(moved);
    api.webNavigation.onCommitted?.addListener(subframeLoaded);
  }
  return documentUrls;
}

/**
 * watchTabs records the tabs' events and returns {addTab(e, tab, {unchanged}),
 * noteTab(tabId), settled() (resolves once the events added so far are
 * out), forget() (notes every tab again)}.
 *
 * Tab events go out in the order Chrome reported them, each with what
 * tabInfo adds (which takes a moment: the owners load, a group's title).
 * A tab noted as it is now (after a command, tabNoted) that is as the
 * last event of it said, and said recently, is not sent again: after
 * each command it was one more POST /events on the command's path.
 */
function watchTabs(c, tabInfo) {
  const { api, observer } = c;
  let tabEvents = Promise.resolve();
  const lastTab = new Map(); // tab id → {said: the event without ts, at}
  const addTab = (e, tab, { unchanged = false } = {}) => {
    if (!e) return;
    tabEvents = tabEvents.then(async () => {
      const extra = tab && tabInfo ? await tabInfo(tab).catch(() => null) : null;
      const full = extra ? { ...e, ...extra } : e;
      const said = JSON.stringify({ ...full, ts: 0 });
      const last = lastTab.get(full.tab_id);
      if (unchanged && last?.said === said && full.ts - last.at < TAB_RESEND_MS) return;
      if (full.type === 'removed') lastTab.delete(full.tab_id);
      else {
        lastTab.delete(full.tab_id);
        lastTab.set(full.tab_id, { said, at: full.ts });
        if (lastTab.size > MAX_DOCUMENTS) lastTab.delete(lastTab.keys().next().value);
      }
      c.addLocal(full);
    });
  };
  const noteTab = (tabId) => {
    api.tabs.get(tabId).then((tab) => addTab(tabNoted(tab), tab), () => {});
  };
  api.tabs.onUpdated.addListener((tabId, change, tab) => {
    if (typeof tab?.url === 'string') observer.noteDocument(tabId, 0, tab.url);
    addTab(tabUpdated(tabId, change, tab), tab);
  });
  api.tabs.onRemoved.addListener((tabId, info) => {
    addTab(tabRemoved(tabId, info, observer.documentOf(tabId, 0)));
    observer.forgetTab(tabId);
  });
  api.tabs.onActivated.addListener((info) => {
    api.tabs.get(info.tabId).then((tab) => tab, () => undefined).then((tab) => addTab(tabActivated(info, tab), tab));
  });
  // A renamed group: its tabs are reported again with the new title.
  api.tabGroups?.onUpdated?.addListener((group) => {
    api.tabs.query({ groupId: group.id }).then((tabs) => tabs.forEach((t) => addTab(tabNoted(t), t)), () => {});
  });
  return { addTab, noteTab, settled: () => tabEvents, forget: () => lastTab.clear() };
}

/**
 * trackDocuments keeps what the worker knows of the documents that sent
 * batches and returns {known (resolves once what storage kept is read),
 * heard(sender, batch)}: of each such document, least
 * recently heard from first: its frame id while it is active, and the
 * ids of the last batches it sent. The top document of a page entering
 * the back/forward cache sends what it records at pagehide under another
 * frame id (0 is the tab's shown page only), and, if the page is
 * restored, sends again under 0 every batch then in flight
 * (capture/relay.js): those are stamped with the frame id the document
 * had while active and not stored twice, however many batches other
 * documents sent meanwhile (the Batcher remembers the last 1000 of all
 * tabs) and however long the page stayed in the cache. While active a
 * relay has one batch in flight; as its page is left, all it holds.
 * What a document in the back/forward cache sent is kept in
 * chrome.storage.session too (LEFT_PREFIX + documentId, the last
 * MAX_LEFT_DOCUMENTS), so a worker stopped while the page is in the
 * cache still knows it; it goes at the document's first new batch back
 * in the page. Only such a document's batch waits for that write: a
 * document left for good (pending_deletion) is not restored, and an
 * active one's batch never waits on storage.
 * A page may enter the cache with a batch whose acknowledgement it will
 * not get, and send nothing at pagehide. Chrome tells the worker of no
 * document entering the cache (webNavigation.getFrame does not find a
 * cached one), so when a tab's top frame commits another document, its
 * documents still storing a batch are kept too, written in the
 * background: rare, and bounded like the rest.
 * A document's frame id is known from its commit too: it may send
 * nothing while active (the relay gathers a burst, a flush takes it).
 */
function trackDocuments(c) {
  const documents = new Map(); // documentId -> {frame, tab, batches: Set, storing: number}
  const store = c.api.storage.session;
  // The documents with a LEFT_PREFIX key, least recently kept first, each
  // once: a document evicted from documents is still found here.
  const kept = new Map(); // documentId -> its entry in documents
  const forget = (doc) => {
    if (kept.delete(doc)) store.remove(LEFT_PREFIX + doc).catch(() => {});
  };
  const known = store.get(null).then((all) => {
    for (const [k, v] of Object.entries(all ?? {})) {
      if (!k.startsWith(LEFT_PREFIX) || !Array.isArray(v?.batches)) continue;
      kept.set(k.slice(LEFT_PREFIX.length), { frame: v.frame ?? undefined, batches: new Set(v.batches) });
    }
    while (kept.size > MAX_LEFT_DOCUMENTS) forget(kept.keys().next().value);
  }, () => {});
  const keep = (doc, d) => {
    kept.delete(doc);
    kept.set(doc, d);
    if (kept.size > MAX_LEFT_DOCUMENTS) forget(kept.keys().next().value);
    return store.set({ [LEFT_PREFIX + doc]: { frame: d.frame ?? null, batches: [...d.batches] } }).catch(() => {});
  };
  // entry is doc's entry in documents, made most recently heard from.
  const entry = (doc) => {
    const d = documents.get(doc) ?? kept.get(doc) ?? { frame: undefined, batches: new Set() };
    documents.delete(doc);
    documents.set(doc, d);
    if (documents.size > MAX_DOCUMENTS) documents.delete(documents.keys().next().value);
    return d;
  };
  // Only top documents: theirs is the frame id the back/forward cache
  // changes, and the commits of every iframe (ads that refresh) would push
  // the documents that sent batches out of documents. After known, as
  // batches are: a commit that woke the worker must not make an entry that
  // hides the one kept in storage.
  c.api.webNavigation?.onCommitted?.addListener((n) => {
    if (n?.frameId !== 0 || !Number.isInteger(n.tabId)) return;
    known.then(() => {
      if (typeof n.documentId === 'string') {
        const d = entry(n.documentId);
        d.frame = 0;
        d.tab = n.tabId;
      }
      for (const [doc, d] of documents) if (d.tab === n.tabId && d.storing > 0 && doc !== n.documentId) keep(doc, d);
    });
  });
  return { known, heard: (sender, batch) => heardFrom({ entry, keep, forget }, sender, batch) };
}

/**
 * heardFrom notes that sender's document sent batch (or was flushed: no
 * batch): it returns the frame id to stamp its events with (the one it had
 * while active), whether it sent that batch before (again), the storage
 * write a cached document's batch waits for (saved), and its entry (d).
 */
function heardFrom({ entry, keep, forget }, sender, batch) {
  const id = Number.isInteger(sender.frameId) ? sender.frameId : 0;
  const doc = sender.documentId;
  if (typeof doc !== 'string') return { frame: id, again: false };
  const lifecycle = sender.documentLifecycle ?? 'active';
  const active = lifecycle === 'active';
  const d = entry(doc);
  if (active) d.frame = id;
  if (Number.isInteger(sender.tab?.id)) d.tab = sender.tab.id;
  const again = batch !== undefined && d.batches.has(batch);
  let saved = null;
  if (batch !== undefined && !again) {
    d.batches.add(batch);
    for (const b of d.batches) {
      if (d.batches.size <= (active ? DOCUMENT_BATCHES_ACTIVE : DOCUMENT_BATCHES)) break;
      d.batches.delete(b);
    }
    if (lifecycle === 'cached') saved = keep(doc, d);
    else if (active) forget(doc); // back in the page: what it sent before it was left is known
  }
  return { frame: active ? id : d.frame ?? id, again, saved, d };
}

/**
 * listenBatches answers the relays' CaptureBatch messages: only content
 * scripts', stamped from Chrome's sender, once what storage kept of the
 * documents is read (docs.known).
 */
function listenBatches(c, docs) {
  const { api, extensionUrl } = c;
  api.runtime.onMessage.addListener((msg, sender, sendResponse) => {
    if (msg?.type !== CAPTURE_MESSAGE) return false;
    // Only content scripts: the extension's own pages never send capture data.
    if (sender?.id !== api.runtime.id || (typeof sender.url === 'string' && sender.url.startsWith(extensionUrl))) return false;
    docs.known.then(() => takeBatch(c, docs, msg, sender, sendResponse));
    return true; // the reply (the acknowledgement) comes once the batch is stored
  });
}

/** takeBatch checks and stores a relay's batch, then acknowledges it with the page's settings. */
function takeBatch(c, docs, msg, sender, sendResponse) {
  const id = typeof msg.batch === 'string' && msg.batch.length <= 64 ? msg.batch : undefined;
  const { frame, again, saved, d } = docs.heard(sender, id);
  if (again) { // stored already: acknowledged, not checked again
    sendResponse({ ok: true, config: pageConfig(c.settings) });
    return;
  }
  const stamp = {
    tab_id: Number.isInteger(sender.tab?.id) ? sender.tab.id : -1,
    frame_id: frame,
    page_url: c.documentUrls.get(sender.documentId) ?? (typeof sender.url === 'string' ? sender.url : ''),
  };
  if (!c.observer.documentOf(stamp.tab_id, stamp.frame_id)) c.observer.noteDocument(stamp.tab_id, stamp.frame_id, stamp.page_url);
  const { events: checked, dropped } = checkBatch(msg, stamp, c.settings);
  if (checked.some((e) => e.kind === 'action' && e.type !== 'appeared' && e.type !== 'agent_appeared')) c.onAction(stamp.tab_id);
  const events = checked.filter((e) => !c.withhold(e));
  const batch = id !== undefined ? `${stamp.tab_id}:${stamp.frame_id}:${id}` : undefined;
  if (d) d.storing = (d.storing || 0) + 1;
  Promise.all([c.batcher.addBatch(events, { batch, dropped, tab: stamp.tab_id }), saved]).then(() => {
    if (d) d.storing--;
    sendResponse({ ok: true, config: pageConfig(c.settings) });
  });
}

// flushFrame asks one document's relay for what its page recorded (see
// relay.js) and stores it like a batch the relay sent; it resolves to the
// relay's count of short timers, or null when the frame did not answer
// within FLUSH_FRAME_MS (frozen, gone, or a page without content scripts).
async function flushFrame(c, tabId, frame, waitMs = FLUSH_FRAME_MS) {
  const { api, observer } = c;
  const opts = typeof frame.documentId === 'string' ? { documentId: frame.documentId } : { frameId: frame.frameId ?? 0 };
  const frameId = Number.isInteger(frame.frameId) ? frame.frameId : 0;
  const pageUrl = () => framePageUrl(c, tabId, frame);
  // The long polls known of the page's origin count there as streams at
  // once, not after the page's wait for an answer (polls.js).
  const msg = { gasoline: 'capture', op: 'flush' };
  const polls = observer.longPolls(originOf(pageUrl()));
  if (polls.length) msg.polls = polls;
  // The answer's events are stored whenever it comes, even after the
  // wait below gave up on it: the relay handed them over.
  const sent = api.tabs.sendMessage(tabId, msg, opts).then((answer) => storeFlushed(c, tabId, frameId, pageUrl(), answer), (err) => {
    const text = String(err?.message || err);
    // No listener there: the document has no relay (opened before the
    // extension and not reached yet), so what it recorded is not in.
    return { gone: text, relay: !/Receiving end does not exist|Could not establish connection/i.test(text) };
  });
  return frameAnswer(await within(sent, waitMs, () => null));
}

// frameAnswer is what flushFrame resolves to for a relay's stored answer
// (null: none within the wait).
function frameAnswer(answer) {
  if (!answer) return null;
  if (answer.gone) return { timers: 0, due_ms: 0, relay: answer.relay }; // nothing to flush there
  return { timers: answer.timers, due_ms: answer.due_ms, requests: answer.requests, action_requests: answer.action_requests,
    navigating: answer.navigating === true, page: answer.page, streams: Array.isArray(answer.streams) ? answer.streams.slice(0, 5) : [] };
}

// framePageUrl is the URL the events of frame (a getAllFrames entry) are stamped with.
function framePageUrl(c, tabId, frame) {
  const frameId = Number.isInteger(frame.frameId) ? frame.frameId : 0;
  return c.documentUrls.get(frame.documentId) ?? (typeof frame.url === 'string' ? frame.url : c.observer.documentOf(tabId, frameId));
}

/**
 * storeFlushed stores the events of a relay's flush answer (its whole
 * queue, which may be longer than one message: it is checked a message's
 * worth at a time, so none of it counts as over the limit; the page's drop
 * counts once) and resolves to the answer, or {gone} without one.
 */
async function storeFlushed(c, tabId, frameId, pageUrl, answer) {
  if (!answer || typeof answer !== 'object') return { gone: 'no answer' };
  const stamp = { tab_id: tabId, frame_id: frameId, page_url: pageUrl };
  const list = Array.isArray(answer.events) ? answer.events : [];
  for (let i = 0; i === 0 || i < list.length; i += MAX_EVENTS_PER_MESSAGE) {
    const part = { events: list.slice(i, i + MAX_EVENTS_PER_MESSAGE), dropped: i === 0 ? answer.dropped : undefined };
    const { events: checked, dropped } = checkBatch(part, stamp, c.settings);
    const events = checked.filter((e) => !c.withhold(e));
    if (events.length || Object.keys(dropped).length) await c.batcher.addBatch(events, { dropped, tab: tabId });
  }
  return answer;
}

// flushFrames flushes every frame of tabId; it resolves to the frames
// that did not answer and the page's fetch/XHR still in flight.
// pre, when given, is a document's flush done already ({documentId,
// answer}: execute_js's, in its injection): that document is not asked
// again, its answer (stored) stands for it.
async function flushFrames(c, tabId, waitMs = FLUSH_FRAME_MS, asked = null, pre = null) {
  const frames = (await (asked ?? c.api.webNavigation?.getAllFrames({ tabId }).catch(() => null))) || [{ frameId: 0 }];
  const answers = await Promise.all(frames.map((f) => (pre && f.documentId === pre.documentId ? frameAnswer(pre.answer)
    : flushFrame(c, tabId, f, waitMs))));
  const missing = [];
  const streams = [];
  let requests = 0;
  answers.forEach((a, i) => {
    if (!a) missing.push(`frame ${frames[i].frameId} did not answer within ${waitMs} ms`);
    else if (a.relay === false && scriptable(frames[i].url)) {
      missing.push(`frame ${frames[i].frameId} has no capture relay (open since before the extension started); reload the tab to capture it`);
    } else {
      requests += a.requests || 0;
      streams.push(...(a.streams || []));
    }
  });
  return { missing, requests, streams };
}

// flushTab flushes every frame of tabId, notes the tab as it is now (url,
// title, status for observe page) and posts everything held to the
// daemon; it resolves to {complete, missing?}. With settleMs (after a
// navigation) it first flushes again while the page's fetch/XHR or the
// tab's requests are in flight, up to settleMs, so the new page's
// load-time requests are in. totalMs, when given, bounds the whole flush:
// each wait gets no more than what is left of it.
async function flushTab(c, tabId, { settleMs = 0, budgetMs = FLUSH_BUDGET_MS, totalMs = Infinity, frames = null, flushed = null, tabAsked = null } = {}) {
  const end = Date.now() + totalMs;
  const left = (ms) => Math.max(0, Math.min(ms, end - Date.now()));
  if (left(1) <= 0) return { complete: false, missing: ['no time was left before the command\'s deadline to collect what its tab did'] };
  let missing = [];
  if (Number.isInteger(tabId) && tabId >= 0) {
    // The tab as it is after the command, asked beside the frames' flush
    // when there is no settling to wait for (a round trip less before the
    // result); noted after the frames' events all the same.
    // tabAsked: the tab asked already once the action was done (execute_js).
    const asked = settleMs > 0 ? null : (tabAsked ?? c.api.tabs.get(tabId)).catch(() => null);
    const until = Date.now() + left(settleMs);
    // frames: the tab's frames as the action saw them once it was done
    // (execute_js), for the first flush; a settle's next flushes ask again.
    let looked = frames;
    // flushed: the flush of the action's document done in its own
    // injection ({documentId, stored}: execute_js, storeFlush), not asked
    // again in the first flush.
    let pre = flushed ? { documentId: flushed.documentId, answer: await flushed.stored } : null;
    for (;;) {
      const f = await flushFrames(c, tabId, left(FLUSH_FRAME_MS), looked, pre);
      looked = null;
      pre = null;
      missing = f.missing;
      // Streams (a WebSocket, an event stream, what the page says is a
      // stream or a long poll) never end: they are not waited for.
      const long = new Set(f.streams.map((r) => `${r.method} ${r.url}`));
      const loading = c.observer.inflight(tabId).filter((p) => !p.stream && !long.has(`${p.method} ${p.url}`));
      // A frame that did not answer is asked again too, within settleMs.
      if ((!f.requests && !loading.length && !f.missing.length) || Date.now() >= until) {
        if (f.requests || loading.length) {
          missing.push(`${f.requests + loading.length} request(s) still loading after ${settleMs} ms` +
            (loading.length ? ` (${loading.slice(0, 2).map((p) => `${p.method} ${p.url}`).join(', ')})` : ''));
        }
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const tab = await (asked ?? c.api.tabs.get(tabId).catch(() => null));
    if (tab) c.tabs.addTab(tabNoted(tab), tab, { unchanged: true });
    await c.tabs.settled();
  }
  // Only this tab's events hold the result back (all of them for a
  // command without a tab): another tab's flood does not.
  const only = Number.isInteger(tabId) && tabId >= 0 ? tabId : undefined;
  const drainMs = left(budgetMs);
  if (!(await c.batcher.drain(drainMs, only))) missing.push(`the daemon did not take the capture events within ${drainMs} ms`);
  return missing.length ? { complete: false, missing } : { complete: true };
}

/** TAB_RESEND_MS is how long an unchanged tab is not noted again after a command. */
const TAB_RESEND_MS = 30000;

/** POLLS_KEY is the chrome.storage.session key of the long polls learned (polls.js). */
const POLLS_KEY = 'long-polls';

/** originOf is url's origin, or "" when it has none. */
function originOf(url) {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** FLUSH_FRAME_MS bounds the wait for one frame's captured events (a frozen frame is left out). */
export const FLUSH_FRAME_MS = 200;

/** FLUSH_BUDGET_MS bounds the wait for the daemon to take the flushed events. */
export const FLUSH_BUDGET_MS = 1000;

/** SETTLE_LOAD_MS bounds how long a navigation's result waits for the new page's requests. */
export const SETTLE_LOAD_MS = 1000;

const NAVIGATING = new Set(['navigate', 'refresh', 'back', 'forward', 'new_tab']);

/**
 * flushAfter makes what a command's tab did before its result readable
 * before the result is posted (truth after acting: docs/agent-guide.md,
 * "Acting on the page"): it flushes the tab's
 * frames and delivers to the daemon (flushTab); after a navigation it
 * first follows the requests the page has in flight (up to
 * SETTLE_LOAD_MS), so the new page's load-time requests are in. result is the
 * command's result (null after an error); its tab_id, else tabHint (the tab
 * the command was sent to), else the query's, names the tab. When the flush
 * could not be completed, result.capture says what is missing. budgetMs
 * bounds the whole flush (the time left before the command's deadline).
 * looked, when given ({tabId, frames, flushed?, tab?}: frames a promise
 * of getAllFrames' answer, tab one of tabs.get's), is what the action
 * asked for once it was done (execute_js): those frames are flushed and
 * the tab noted without asking Chrome again, and flushed ({documentId,
 * stored}: storeFlush), a document's flush done in the action's own
 * injection, stands for that document's.
 * Never rejects; nothing before startCapture.
 */
export async function flushAfter(query, result, tabHint, budgetMs = Infinity, looked = null) {
  if (!started) return;
  const action = query?.action;
  const id = Number.isInteger(result?.tab_id) ? result.tab_id : Number(tabHint ?? query?.params?.tab_id);
  const tabId = Number.isInteger(id) ? id : -1;
  const mine = looked && looked.tabId === tabId;
  const frames = mine ? looked.frames : null;
  try {
    const r = await started.flushTab(tabId, { settleMs: NAVIGATING.has(action) && result ? SETTLE_LOAD_MS : 0, totalMs: budgetMs, frames,
      flushed: mine ? looked.flushed : null, tabAsked: mine ? looked.tab : null });
    if (!r.complete && result && typeof result === 'object') result.capture = r;
  } catch (err) {
    console.warn('gasoline: flushing capture before a result:', err);
  }
}

/**
 * storeFlush stores the events of the flush of document documentId (at
 * url, in frame frameId of tabId) done in an action's own message or
 * injection (execute_js: page.js runInPristine; the DOM actions: the
 * runtime's flush, actions/runtime/ops.js) as flushFrame stores a relay's
 * answer, and resolves to the answer; hand {documentId, stored} to
 * flushAfter so that document is not asked again. Before startCapture
 * nothing is stored.
 */
export function storeFlush(tabId, documentId, url, answer, frameId = 0) {
  if (!started) return Promise.resolve(answer);
  return started.storeFlushed(tabId, { frameId, documentId, url }, answer);
}

/**
 * flushProbe is what probeFrame resolves to for a flush answer stored by
 * storeFlush: the page's counts a Settler probe gives.
 */
export function flushProbe(answer) {
  return frameAnswer(answer);
}

/**
 * flushPolls is what a flush of a document at url tells its relay: the
 * long polls known of its origin (capture/polls.js), which the page counts
 * as streams at once; [] before startCapture.
 */
export function flushPolls(url) {
  return started ? started.observer.longPolls(originOf(url)) : [];
}

/**
 * forgetNotedTabs makes the next flush note each tab again even when it
 * did not change: the daemon it was noted to may be gone (a new daemon
 * knows no tab until told).
 */
export function forgetNotedTabs() {
  started?.forgetNotedTabs();
}

/**
 * deliverHeld hands what the origin rule held and the user now allowed
 * (origins/held.js release: [{tab, events, dropped}]) to the Batcher, as
 * captured; nothing before startCapture.
 */
export async function deliverHeld(parts) {
  if (!started) return;
  for (const p of parts) {
    if (p.events.length || Object.keys(p.dropped).length) await started.batcher.addBatch(p.events, { dropped: p.dropped, tab: p.tab });
  }
}

/** watchRequests is NetworkObserver.watch for tabId; a no-op before startCapture. */
export function watchRequests(tabId, fn) {
  return started ? started.observer.watch(tabId, fn) : () => {};
}

/** tabStreams is NetworkObserver.streams: the WebSockets and event streams of tabId in flight. */
export function tabStreams(tabId) {
  return started ? started.observer.streams(tabId) : [];
}

/** hushRequests is NetworkObserver.hush; a no-op before startCapture. */
export function hushRequests(tabId, urls) {
  return started ? started.observer.hush(tabId, urls) : () => {};
}

/**
 * probeFrame flushes one document's captured events (documentId in
 * tabId) and resolves to {timers, due_ms, action_requests, navigating,
 * streams}: the short timers an action scheduled there that have not run,
 * the fetch/XHR it started still being read, whether a form it submitted
 * or a link it followed is about to navigate, and the page's long-lived
 * requests ({method, url, kind}, not counted as work); null when the frame
 * did not answer (before startCapture: nothing tracked, no timers).
 */
export function probeFrame(tabId, documentId, frameId) {
  return started ? started.flushFrame(tabId, { documentId, frameId }) : Promise.resolve({ timers: 0, due_ms: 0 }); // no capture: nothing tracked
}

/**
 * noteTab reports tab tabId again, as it is now (its owner or group
 * changed); nothing before startCapture.
 */
export function noteTab(tabId) {
  started?.noteTab(tabId);
}

/** pageConfig is what the relays pass on to the page scripts. */
export function pageConfig(settings) {
  return { version: settings.version, body_cap: Math.min(settings.body_cap, MAX_BODY_CHARS), kinds: { ...settings.kinds } };
}

/**
 * checkBatch validates a relay's message: at most MAX_EVENTS_PER_MESSAGE events, each
 * sanitised and stamped; invalid events of a known kind and the page's own
 * drop counts are returned as dropped counts, all of them the stamp's tab's.
 */
export function checkBatch(msg, stamp, settings) {
  const events = [];
  const dropped = {};
  const list = Array.isArray(msg?.events) ? msg.events : [];
  for (let i = 0; i < list.length; i++) {
    const r = i < MAX_EVENTS_PER_MESSAGE ? sanitiseReason(list[i], stamp, settings) : { event: null, reason: 'invalid', kind: list[i]?.kind };
    if (r.event) events.push(r.event);
    else if (r.reason === 'invalid' && KINDS.includes(r.kind) && r.kind !== 'tab') dropped[r.kind] = (dropped[r.kind] || 0) + 1;
  }
  if (msg?.dropped && typeof msg.dropped === 'object') {
    for (const k of KINDS) {
      const n = msg.dropped[k];
      if (k !== 'tab' && Number.isSafeInteger(n) && n > 0) dropped[k] = (dropped[k] || 0) + Math.min(n, 1e6);
    }
  }
  return { events, dropped };
}
