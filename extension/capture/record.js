// The user-action recorder: runs once the document is parsed, in the frames
// capture/declared.js captures, in the extension's ISOLATED world, after
// dom/engine.js (extension/dist/end-isolated.js, which the worker injects
// when webNavigation reports the document's DOMContentLoaded: a registered
// document_end script would hold the page's load event; capture/relay.js,
// actions/channel.js and capture/tap.js came at document_start, in
// dist/start-isolated.js).
// It takes from capture/tap.js (window, capturing, passive, registered
// before any page script) the user's own clicks, typing, changes, submits
// and Enter/Escape/Tab keys, describes the element with the DOM engine
// (role, accessible name, CSS path and the engine's stable locator, which
// interact can replay) and hands one record per action to the relay
// (globalThis.gasolineRecord), which sends it to the worker like the page
// script's records. A document that lacked the scripts (older than the
// extension, an iframe loaded while idle) gets it with the engine, late,
// from tabs/reach.js; it installs itself once per document.
//
// The trade of starting once the page is parsed (no page pays for the
// recorder or the engine, about 18 KB, before its own first line; a user
// acts on a parsed page, and tap.js, 0.5 KB, holds what they do before):
// an action made while the page parses is recorded only when the recorder
// comes, as the engine then describes its element and reads a field's
// value (changed, moved or removed meanwhile: as it is then); one on a page
// left before then is not recorded. In a document reached late, the page's own
// listeners on window's capture phase precede tap.js's: one that calls
// stopImmediatePropagation hides that event from the recorder.
//
// Only trusted events count: an agent's actions are dispatched by the
// runtime (untrusted) or by CDP Input (trusted, and recorded like the
// user's, which they are to the page). The isolated world sees the page's
// DOM and events but not its JavaScript, so nothing here can be replaced
// by the page.
//
// Record (kind "action", apitype.Event): {kind, ts, type, selector, role?,
// name?, text? (click, dblclick, submit), value? (input, change), key?,
// modifiers?, locator}, then what it made appear: {kind, ts, type:
// "appeared", selector, text} (below). A password or card field's value is
// never recorded ("[redacted]"); such a field's current value is
// remembered and cut out of every later record of this frame
// (capture/main/ does the same for console and network records).
(() => {
  if (globalThis.gasolineRecorder || typeof document === 'undefined') return;
  const engine = globalThis.gasolineEngine;
  const record = globalThis.gasolineRecord;
  const tap = globalThis.gasolineTap;
  if (!engine || typeof record !== 'function' || typeof tap !== 'function') return;
  Object.defineProperty(globalThis, 'gasolineRecorder', { value: true });

  const LIMITS = { name: 200, text: 200, value: 500 };
  const INTERACTIVE = 'a[href],button,input,select,textarea,label,summary,option,[role],[contenteditable=""],[contenteditable="true"],[onclick],[tabindex]';
  const view = engine.pageView;
  const line = (s, n) => engine.clip(engine.norm(s), n);

  // --- secrets ---------------------------------------------------------------------
  const secretFields = []; // at most 20 fields whose values no record may hold
  const held = []; // the last 40 values they held: a form's reset leaves them secret

  function rememberSecret(el) {
    const v = el.value;
    const last = held.at(-1);
    if (typeof v === 'string' && v.length >= 3 && !last?.startsWith(v)) {
      if (last && v.startsWith(last)) held[held.length - 1] = v; // typed on
      else if (held.push(v) > 40) held.shift();
    }
    if (secretFields.includes(el)) return;
    if (secretFields.length >= 20) secretFields.shift();
    secretFields.push(el);
  }

  /** scrub cuts the remembered secret values (3 characters or more) out of every string of rec. */
  function scrub(rec) {
    const secrets = [...held, ...secretFields.map((f) => f.value)].filter((v) => typeof v === 'string' && v.length >= 3);
    if (!secrets.length) return;
    const cut = (s) => secrets.reduce((acc, v) => acc.replaceAll(v, '[redacted]'), s);
    for (const o of [rec, rec.locator || {}]) {
      for (const k of Object.keys(o)) if (typeof o[k] === 'string' && k !== 'kind' && k !== 'type' && k !== 'by') o[k] = cut(o[k]);
    }
  }

  // --- records ---------------------------------------------------------------------

  /** elementOf is the element an event was for (tap.js: the innermost in open shadow roots; closedInside goes on). */
  function elementOf(at, e) {
    const t = at && at.nodeType !== 1 ? at.parentElement : at;
    return t && t.nodeType === 1 ? closedInside(t, e) : null;
  }

  /**
   * closedInside is the element inside the closed shadow root el hosts
   * that event e was for, where this world can open the root
   * (engine.shadowOf): an event's path stops at a closed root's host. A
   * pointer's event is for the element under it, any other (keys, input,
   * a click from the keyboard) for the focused one. el when it hosts no
   * closed root.
   */
  function closedInside(el, e) {
    if (!e || el.shadowRoot || !engine.shadowOf(el)) return el;
    const pointer = typeof MouseEvent === 'function' && e instanceof MouseEvent && e.detail > 0;
    for (let i = 0, sr = engine.shadowOf(el); sr && i < 16; i++, sr = engine.shadowOf(el)) {
      const inner = pointer ? sr.elementFromPoint(e.clientX, e.clientY) : sr.activeElement;
      if (!inner || inner === el) break;
      el = inner;
    }
    return el;
  }

  /** valueOf is what a field holds, as a record shows it (undefined for none). */
  function valueOf(el) {
    if (engine.isSecret(el)) {
      rememberSecret(el);
      return '[redacted]';
    }
    const tag = el.localName;
    if (tag === 'input') {
      const type = String(el.type || '').toLowerCase();
      if (type === 'checkbox' || type === 'radio') return el.checked ? 'checked' : 'unchecked';
      if (type === 'file') return `[${el.files ? el.files.length : 0} file(s)]`;
      return engine.clip(String(el.value), LIMITS.value);
    }
    if (tag === 'textarea' || tag === 'select') return engine.clip(String(el.value), LIMITS.value);
    if (el.isContentEditable) return engine.clip(String(el.textContent ?? ''), LIMITS.value);
    return undefined;
  }

  function modifiers(e) {
    const m = [];
    if (e.altKey) m.push('Alt');
    if (e.ctrlKey) m.push('Control');
    if (e.metaKey) m.push('Meta');
    if (e.shiftKey) m.push('Shift');
    return m.length ? m : undefined;
  }

  /**
   * action records one action of type on el, made at ts (the event's time:
   * one tap.js held till the recorder came happened before the requests it
   * started); extra's defined fields are added.
   */
  function action(type, el, extra, ts = Date.now()) {
    if (type !== 'input') flushInput();
    endWatch();
    const role = engine.roleOf(el);
    const rec = { kind: 'action', ts, type, selector: engine.cssOf(el), locator: engine.locatorOf(el, view) };
    if (role) rec.role = role;
    const name = line(engine.nameOf(el, view, role), LIMITS.name);
    if (name) rec.name = name;
    if ((type === 'click' || type === 'dblclick' || type === 'submit') && !['input', 'textarea', 'select'].includes(el.localName) && !engine.isSecret(el)) {
      const text = line(el.textContent, LIMITS.text);
      if (text) rec.text = text;
    }
    for (const [k, v] of Object.entries(extra || {})) if (v !== undefined) rec[k] = v;
    scrub(rec);
    record(rec);
    if (type !== 'input' && (type !== 'keydown' || rec.key === 'Enter')) watchText(rec.selector);
  }

  // --- text that appeared ----------------------------------------------------------
  // What a click, submit, change or Enter made the page show: text of
  // nodes added or changed till the DOM is quiet 500 ms after a change (2 s
  // cap), rendered, not removed meanwhile, unique (gasolineShown.pick): one
  // record {type: "appeared", selector, text: snippets by "\n"} at the
  // window's end, before the next action, or at pagehide. A top document
  // reached by navigation watches from its DOMContentLoaded, headings first.
  // An agent's DOM action (the runtime's untrusted events between its
  // "acting" on and off, actions/channel.js) is watched the same way, as
  // type "agent_appeared" (testgen ties it to the agent's command): from
  // "on" aside (a mousedown may change the page), as the watch from its
  // first click, change, submit or Enter (the element's CSS), its window
  // from "off". One without such an event (hover, get_text) records none
  // and leaves the user's watch alone.
  const HIDDEN = 'textarea,select,[contenteditable=""],[contenteditable="true"],[aria-hidden="true"]';
  let watch = null;
  let agent = null; // the agent's action's watch, aside till its first event
  let inTrusted = false;

  function observed(selector, seed = [], type = 'appeared') {
    const w = { type, selector, nodes: new Set(seed), gone: new Set() };
    w.obs = new MutationObserver((ms) => took(w, ms));
    w.obs.observe(document, { childList: true, subtree: true, characterData: true });
    return w;
  }

  function watchText(selector, seed, w = observed(selector, seed)) {
    endWatch();
    w.end = Date.now() + 2000;
    watch = w;
    took(w, []);
  }

  function took(w, ms) {
    for (const m of ms) {
      for (const n of m.type === 'characterData' ? [m.target] : m.addedNodes) if (w.nodes.size < 60) w.nodes.add(n);
      for (const n of m.removedNodes) if (w.gone.size < 60) w.gone.add(engine.norm((n.textContent || '').slice(0, 500)));
    }
    if (w !== watch) return;
    clearTimeout(w.timer);
    w.timer = setTimeout(endWatch, Math.max(0, Math.min(w.nodes.size ? 500 : 2e3, w.end - Date.now())));
  }

  function endWatch() {
    const w = watch;
    if (!w) return;
    watch = null;
    took(w, w.obs.takeRecords());
    clearTimeout(w.timer);
    w.obs.disconnect();
    const texts = [];
    const parents = new Set(); // each parent's whole text is read once: a page's body may hold megabytes
    const add = (t) => {
      const el = t.parentElement;
      if (!el || !el.isConnected || el.closest(HIDDEN) || !view.visible(el)) return;
      if (!parents.has(el)) {
        parents.add(el);
        texts.push(engine.norm(el.textContent.slice(0, 500)));
      }
      texts.push(engine.norm(t.data));
    };
    for (const n of w.nodes) {
      if (n.nodeType === 3) add(n);
      if (n.nodeType !== 1) continue;
      const it = document.createTreeWalker(n, NodeFilter.SHOW_TEXT);
      for (let t, i = 0; i < 50 && (t = it.nextNode()); i++) add(t);
    }
    if (!texts.length) return;
    const shown = globalThis.gasolineShown.pick(texts, { gone: w.gone, page: () => document.body?.textContent || '' });
    if (!shown.length) return;
    const rec = { kind: 'action', ts: Date.now(), type: w.type, selector: w.selector, text: shown.join('\n') };
    scrub(rec);
    record(rec);
  }

  // Typing fires an input event per key; one record per field per pause
  // (or before any other action) says the same with far fewer records.
  let pendingInput = null;
  let inputTs = 0; // the last input event's time
  let inputTimer = 0;
  function flushInput() {
    clearTimeout(inputTimer);
    inputTimer = 0;
    const p = pendingInput;
    pendingInput = null;
    if (p) action('input', p, { value: valueOf(p) }, inputTs);
  }

  // stamp is when e happened, in the wall clock of Date.now(): now less
  // the event's age. Not timeOrigin + timeStamp: the monotonic clock stops
  // while the machine sleeps, so that sum falls behind Date.now() by the
  // sleep, and a click would sort before the requests it started.
  function stamp(e) {
    const now = Date.now();
    const age = performance.now() - e.timeStamp;
    return Number.isFinite(age) ? Math.round(now - Math.max(0, age)) : now;
  }

  let channel = globalThis.gasolineChannel; // or later (below)
  const handlers = {
    input(el, e) {
      // A select's input comes with its change, which records it (replayed
      // as selectOption, never fill).
      if (el.localName === 'select') return;
      if (engine.isSecret(el)) rememberSecret(el);
      if (pendingInput && pendingInput !== el) flushInput();
      pendingInput = el;
      inputTs = stamp(e);
      clearTimeout(inputTimer);
      inputTimer = setTimeout(flushInput, 500);
    },
    click(el, e) {
      action('click', el.closest(INTERACTIVE) || el, { modifiers: modifiers(e) }, stamp(e));
    },
    dblclick(el, e) {
      action('dblclick', el.closest(INTERACTIVE) || el, { modifiers: modifiers(e) }, stamp(e));
    },
    change(el, e) {
      action('change', el, { value: valueOf(el) }, stamp(e));
    },
    submit(el, e) {
      action('submit', el, undefined, stamp(e));
    },
    keydown(el, e) {
      if ((e.key !== 'Enter' && e.key !== 'Escape' && e.key !== 'Tab') || e.isComposing) return;
      action('keydown', el, { key: e.key, modifiers: modifiers(e) }, stamp(e));
    },
  };

  tap((type, e, at) => {
    try {
      const fn = handlers[type];
      if (!fn) return;
      if (!e.isTrusted) {
        // an agent's action's, or, out of a user's event's task, a
        // script's doing
        if (channel?.acting()) {
          const el = elementOf(at, e) || document.documentElement;
          if (type === 'input' && engine.isSecret(el)) rememberSecret(el);
          if (agent && type !== 'input' && (type !== 'keydown' || e.key === 'Enter')) {
            agent.selector = engine.cssOf(el);
            watchText(agent.selector, [], agent);
            agent = null;
          }
        } else if (!inTrusted) {
          endWatch();
        }
        return;
      }
      inTrusted ||= Boolean(setTimeout(() => { inTrusted = false; }));
      const el = elementOf(at, e);
      if (el) fn(el, e);
    } catch {
      // recording must never break the page
    }
  });
  const onActing = (e) => {
    try {
      const on = JSON.parse(e.detail)?.on === true;
      if (agent) {
        agent.obs.disconnect();
        agent = null;
      } else if (!on && watch?.type === 'agent_appeared') {
        watch.end = Date.now() + 2000;
        took(watch, []);
      }
      if (on) agent = observed('', [], 'agent_appeared');
    } catch {
      // recording must never break the page
    }
  };
  if (channel) channel.on('acting', onActing);
  // A document loaded while no agent worked gets channel.js when an agent
  // acts there (tabs/reach.js), which hands itself over here.
  else (globalThis.gasolineChannelLate ??= []).push((c) => { channel = c; c.on('acting', onActing); });
  addEventListener('pagehide', () => {
    flushInput();
    endWatch();
  }, true);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') flushInput();
  }, true);
  // The recorder comes a worker's round trip after DOMContentLoaded: a
  // fast page may be "complete" by then. A document
  // reached late (tap.js did not run while it parsed) has long shown what
  // it arrived with.
  if (window.top === window && document.referrer) {
    const arrived = () => {
      try {
        watchText('html', document.querySelectorAll('h1,[role=alert],[role=status],output'));
      } catch {
        // recording must never break the page
      }
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', arrived, { once: true });
    else if (document.readyState === 'interactive' || tap.early) arrived();
  }
})();

// gasolineShown.pick: at most three texts of 64 characters or less,
// shortest first, no bare number or time, no "Loading..." (it is gone by the
// time a test looks), none gone, each once in page (case folded, as
// getByText). page is the page's text, or a function giving it, read only
// when a candidate is left; only the SCAN shortest candidates are looked up
// in it, so a page that changes much costs a bounded number of searches.
// Pure, for node --test.
(() => {
  const MAX = 3;
  const CHARS = 64;
  const SCAN = 30;
  const bare = /^[\d\s.,:;/+\-%()#]*(am|pm)?$/i;
  const pending = /(\.\.\.|\u2026)$/;
  function cut(s) {
    if (s.length <= CHARS) return s;
    const i = s.lastIndexOf(' ', CHARS);
    return s.slice(0, i > CHARS / 2 ? i : CHARS);
  }
  function pick(candidates, { gone = new Set(), page = '' } = {}) {
    const seen = new Set(), fresh = [];
    for (const c of candidates) {
      const s = cut(String(c || ''));
      const k = s.toLowerCase();
      if (s.length < 2 || seen.has(k) || bare.test(s) || pending.test(s) || gone.has(s) || s.includes('[redacted]')) continue;
      seen.add(k);
      fresh.push(s);
    }
    fresh.sort((a, b) => a.length - b.length);
    const ok = [];
    let folded = null;
    for (const s of fresh.slice(0, SCAN)) {
      folded ??= String(typeof page === 'function' ? page() : page).replace(/\s+/g, ' ').toLowerCase();
      const k = s.toLowerCase();
      const at = folded.indexOf(k);
      if (folded && (at < 0 || folded.indexOf(k, at + 1) >= 0)) continue;
      ok.push(s);
      if (ok.length === MAX) break;
    }
    return ok;
  }
  globalThis.gasolineShown ??= Object.freeze({ pick });
})();
