// The DOM runtime: one per document, in the extension's ISOLATED world,
// injected with chrome.scripting on an agent's first action in that
// document (actions/inject.js; no page pays for it before). It
// answers the worker's chrome.tabs.sendMessage requests, which always name
// one document ({documentId} or {frameId}):
//
//   {gasoline: "dom", op, ...}  →  {ok: true, ...} | {ok: false, reason, message, ...}
//
//   op "act"      {action, target, opts, timeout_ms, prefix}  click, hover, type, fill, select,
//                 check, uncheck, key_press, scroll_to, get_text, drag {to},
//                 fill_form {fields} (no target), and what
//                 action modules add with addAction (upload-page.js: upload)
//   op "changed"  → {changed}: what the last act changed (actions/changed.js), once
//   op "query"    {target, limit, prefix}
//   op "wait"     {target?, state?, text?, gone?, timeout_ms, prefix}
//   op "outline"  {scope?, interactive_only, max_chars, prefix}  → {text, interactive, clipped, truncated,
//                 frames: [{line, nonce}]}: each iframe's line, and the nonce posted into its document
//   op "summary"  {prefix}
//   op "frame"    {selector, nonce}  posts nonce into that iframe's document → {src}
//   op "probe"    {nonce}  → {match}: whether this document's parent posted nonce to it
//   op "probed"   → {nonce}: the nonce this document's parent last posted to it
//   op "metrics"  → {width, height, scroll_height, scroll_y} of the viewport and page (CSS pixels)
//   op "scroll"   {y} scrolls the page to y and waits two frames → {y} reached
//   op "ping"
//
// reason is one of not_found, ambiguous, not_visible, disabled, covered,
// stale_ref, detached, not_editable, bad_target, bad_option, timeout.
// Refs ("e12"; prefix + number) name elements through weak references, so a
// ref to a removed element answers stale_ref and holds nothing alive. Facts
// about the tab (url, title, id) are the worker's, from chrome.tabs: this
// script never reports them. It needs dom/engine.js (targets) and core.js
// loaded before it.
(() => {
  if (globalThis.gasolineRuntime) return;
  const core = globalThis.gasolineCore;
  const engine = globalThis.gasolineEngine;

  // --- refs ------------------------------------------------------------------

  const byRef = new Map(); // ref → WeakRef<Element>
  const refOf = new WeakMap(); // Element → ref
  let counter = 0;
  let sweepAt = 1024;

  /** refFor returns el's ref, minting prefix + next number the first time. */
  function refFor(el, prefix) {
    let ref = refOf.get(el);
    if (ref) return ref;
    ref = prefix + ++counter;
    refOf.set(el, ref);
    byRef.set(ref, new WeakRef(el));
    if (byRef.size >= sweepAt) {
      for (const [r, w] of byRef) if (!w.deref()) byRef.delete(r);
      sweepAt = Math.max(1024, byRef.size * 2);
    }
    return ref;
  }

  // --- visibility and geometry -------------------------------------------------

  // view.visible is the outline's and the matchers' filter (the engine's).
  const view = engine.pageView;

  /** shows reports an element a user could see: rendered with a non-empty box. */
  function shows(el) {
    if (!view.visible(el)) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  }

  const boxOf = (el) => {
    const r = el.getBoundingClientRect();
    return { x: Math.round(r.left), y: Math.round(r.top), w: Math.round(r.width), h: Math.round(r.height) };
  };

  /** nextFrame resolves after the next animation frame, or 50 ms in a tab that paints no frames. */
  const nextFrame = () => new Promise((resolve) => {
    const t = setTimeout(resolve, 50);
    requestAnimationFrame(() => {
      clearTimeout(t);
      resolve();
    });
  });
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  /**
   * animating reports whether a CSS animation, transition or Web Animation
   * runs on el or on what contains it (through shadow hosts): what moves
   * an element without its page's script. Only then does actionable wait a
   * frame to see its box stay put (issue 33: the frame cost every click
   * about 9 ms; the element is acted on in the task that hit-tested it).
   */
  function animating(el) {
    let all;
    try {
      all = document.getAnimations();
    } catch {
      return true;
    }
    return all.some((a) => a.playState === 'running' && a.effect?.target && core.contains(a.effect.target, el));
  }

  /** deepActive is the focused element, through shadow roots (engine.shadowOf). */
  function deepActive() {
    let a = document.activeElement;
    while (a && engine.shadowOf(a)?.activeElement) a = engine.shadowOf(a).activeElement;
    return a;
  }

  /** hitAt is the element at (x, y), through shadow roots (engine.shadowOf). */
  function hitAt(x, y) {
    let hit = document.elementFromPoint(x, y);
    while (hit && engine.shadowOf(hit)) {
      const inner = engine.shadowOf(hit).elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  }

  // --- targets -----------------------------------------------------------------

  class Failure extends Error {
    constructor(reason, message, extra = {}) {
      super(message);
      this.reason = reason;
      this.extra = extra;
    }
  }

  /** what describes a target for messages: ref e3, selector "#x", text "Go", role button "Go". */
  function what(t) {
    if (t.ref) return `ref ${t.ref}`;
    if (t.selector) return `selector ${JSON.stringify(t.selector)}`;
    if (t.role) return `role ${t.role}${t.name ? ` named ${JSON.stringify(t.name)}` : ''}`;
    return `text ${JSON.stringify(t.text)}`;
  }

  /**
   * candidates returns the elements target names now; a ref to an element
   * that is gone throws stale_ref.
   */
  function candidates(t, prefix) {
    if (t.ref) {
      const w = byRef.get(t.ref);
      const el = w?.deref();
      if (!el || !el.isConnected) {
        const known = w || (t.ref.startsWith(prefix) && Number(t.ref.slice(prefix.length)) <= counter);
        throw new Failure('stale_ref', known
          ? `${t.ref} names an element that was removed from the page since it was given out; take a new snapshot with analyze({what:"dom"}) or query, and use the new ref`
          : `${t.ref} is not a ref of this page (it may be from before the page reloaded or navigated); take a new snapshot with analyze({what:"dom"}) and use its refs`);
      }
      return [el];
    }
    if (!t.selector && !t.role && !t.text) throw new Failure('bad_target', 'no target: pass one of ref, selector, text, or role (with name)');
    try {
      return engine.resolve(t, document, view);
    } catch (e) {
      if (!t.selector) throw e;
      throw new Failure('bad_target', `${JSON.stringify(t.selector)} is not a valid CSS selector (${e.message}); fix it or target by text, role and name, or ref`);
    }
  }

  /** brief is how a candidate or result names an element: {ref, role, name}. */
  function brief(el, prefix) {
    const role = core.roleOf(el);
    const out = { ref: refFor(el, prefix), role: role || el.localName };
    const name = core.clip(core.labelOf(el, view, role) || core.norm(core.textOf(el, view)), 60);
    if (name) out.name = name;
    return out;
  }

  /**
   * pick chooses the one element a target names among els: the only one,
   * or the only visible one. It returns null when there is none (yet) and
   * throws ambiguous with up to 5 candidates when several show.
   */
  function pick(t, els, prefix) {
    if (els.length <= 1) return els[0] || null;
    const showing = els.filter(shows);
    if (showing.length === 1) return showing[0];
    if (showing.length === 0) return els[0];
    throw new Failure('ambiguous',
      `${what(t)} matches ${showing.length} visible elements; pass the ref of the one you mean (candidates below), or a more precise target (exact:true, a role and name, or a selector)`,
      { candidates: showing.slice(0, 5).map((el) => brief(el, prefix)) });
  }

  // --- auto-wait ---------------------------------------------------------------

  /**
   * IDLE_MS is how long a loaded page must stay quiet (no DOM mutation, no
   * request finishing) before an action stops waiting for a target that is
   * missing or disabled: on a quiet page nothing is coming to change it.
   */
  const IDLE_MS = 1000;

  /**
   * IDLE_BUDGET_MS is the page budget of the default 10 s deadline
   * (target.js pageBudget): an agent that passes a longer timeout_ms asks
   * to wait, so its action waits it all, idle page or not.
   */
  const IDLE_BUDGET_MS = 8500;

  /**
   * quiet watches the page while an action waits: idleFor() is how long
   * the document has been loaded with no DOM mutation and no request
   * finishing (resource timing), counted from the start of the watch;
   * stop() ends it. The page's requests in flight are not visible from
   * this world: settled() asks the worker (actions/busy.js), which counts
   * them, and resolves true when the tab's network is quiet too, else
   * restarts the idle count.
   */
  function quiet() {
    let last = performance.now();
    const touch = () => {
      last = performance.now();
    };
    const mo = new MutationObserver(touch);
    mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    let po = null;
    try {
      po = new PerformanceObserver(touch);
      po.observe({ type: 'resource' });
    } catch { /* no resource timing: mutations alone */ }
    return {
      idleFor: () => (document.readyState === 'complete' ? performance.now() - last : 0),
      async settled() {
        let net = null;
        try {
          net = await chrome.runtime.sendMessage({ gasoline: 'busy' });
        } catch { /* no worker answer: the page's own signals decide */ }
        if (net && (net.inflight > 0 || (typeof net.quiet_ms === 'number' && net.quiet_ms < IDLE_MS))) {
          last = Math.max(last, performance.now() - (net.inflight > 0 ? 0 : net.quiet_ms));
          return false;
        }
        return true;
      },
      stop: () => {
        mo.disconnect();
        po?.disconnect();
      },
    };
  }

  /**
   * actionable waits up to timeoutMs for the element target names to be
   * attached, visible, enabled (needs.enabled), editable (needs.editable),
   * stable (needs.stable: while an animation runs on it, the same box two
   * frames running; else at once) and hit at its centre
   * (needs.hit), scrolling it into view when it is outside the viewport.
   * It resolves to the element or throws the last reason it was not ready.
   * With idle (and at most the default budget), a target still missing or
   * disabled once the page has been quiet for IDLE_MS fails then, not at
   * the deadline.
   */
  async function actionable(t, prefix, timeoutMs, needs, idle = false) {
    const watch = idle && timeoutMs > IDLE_MS && timeoutMs <= IDLE_BUDGET_MS ? quiet() : null;
    try {
      return await waitActionable(t, prefix, timeoutMs, needs, watch);
    } finally {
      watch?.stop();
    }
  }

  async function waitActionable(t, prefix, timeoutMs, needs, watch) {
    const deadline = performance.now() + Math.max(0, timeoutMs);
    let last = null;
    let seen = null; // an element found once, to tell detached from not found
    let prevBox = null;
    let scrolled = 0;
    for (;;) {
      try {
        const els = candidates(t, prefix);
        let el = pick(t, els, prefix);
        if (needs.control && el) el = core.controlOf(el);
        if (!el) {
          throw seen
            ? new Failure('detached', `the element ${what(t)} named (${core.describe(seen, view)}) was removed from the page while waiting for it; ` +
              'the page re-rendered it: take a new snapshot or retry')
            : new Failure('not_found', `no element matches ${what(t)}; check the page with analyze({what:"dom"}) ` +
              '(or query), or wait_for it if it appears later');
        }
        seen = el;
        if (!needs.invisible && !shows(el)) {
          throw new Failure('not_visible', `${core.describe(el, view)} (${what(t)}) is not visible (hidden, display:none or zero size); ` +
            'make it visible first (open its menu or section), or target another element');
        }
        if (needs.enabled && core.isDisabled(el)) {
          throw new Failure('disabled', `${core.describe(el, view)} is disabled; do what enables it first (fill the required fields), or wait_for it`);
        }
        if (needs.editable && !editable(el)) {
          throw new Failure('not_editable', `${core.describe(el, view)} is not an editable field (input, textarea, select or contenteditable) or is read-only; target the field itself`);
        }
        if (needs.invisible) return el; // acts on hidden elements too: no layout checks
        const r = el.getBoundingClientRect();
        const box = `${r.left},${r.top},${r.width},${r.height}`;
        const inView = r.top + r.height / 2 >= 0 && r.left + r.width / 2 >= 0 &&
          r.top + r.height / 2 < innerHeight && r.left + r.width / 2 < innerWidth;
        if (!inView && scrolled < 3) {
          el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
          scrolled++;
          prevBox = null;
          throw new Failure('not_visible', `${core.describe(el, view)} is outside the viewport`);
        }
        if (needs.stable && box !== prevBox && (prevBox !== null || animating(el))) {
          prevBox = box;
          throw new Failure('not_stable', `${core.describe(el, view)} is still moving (animating)`);
        }
        if (needs.hit) {
          const x = r.left + r.width / 2;
          const y = r.top + r.height / 2;
          const hit = hitAt(x, y);
          // A hit inside el's <label> (not a control of its own) clicks el too.
          const labelled = Boolean(hit) && (hit.localName === 'label' || !core.isInteractive(hit)) && core.controlOf(hit) === el;
          if (hit && !core.contains(el, hit) && !labelled && !engine.partOf(el, hit)) {
            throw new Failure('covered', `${core.describe(el, view)} is covered by ${core.describe(hit, view)} at its centre (${Math.round(x)}, ${Math.round(y)}); ` +
              'close or dismiss what is on top (a dialog, banner or overlay), wait_for it to be hidden, or scroll',
            { covering: core.describe(hit, view) });
          }
        }
        return el;
      } catch (e) {
        if (!(e instanceof Failure)) throw e;
        if (e.reason === 'ambiguous' || e.reason === 'bad_target' || e.reason === 'stale_ref' || e.reason === 'not_editable') throw e;
        last = e;
      }
      if (performance.now() >= deadline) {
        if (last.reason === 'not_stable') last.reason = 'not_visible';
        throw last;
      }
      if (watch && (last.reason === 'not_found' || last.reason === 'disabled') && watch.idleFor() >= IDLE_MS && await watch.settled()) {
        last.message += ` (the page was idle for ${IDLE_MS} ms: no DOM change, no request in flight; so it was not awaited longer. ` +
          'If it comes later, wait_for it first)';
        throw last;
      }
      await nextFrame();
    }
  }

  function editable(el) {
    if (el.isContentEditable) return true;
    if (el.localName === 'textarea' || el.localName === 'select') return !el.readOnly;
    if (el.localName !== 'input') return false;
    const t = (el.type || 'text').toLowerCase();
    return !el.readOnly && !['checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file', 'hidden', 'range', 'color'].includes(t);
  }

  // --- events --------------------------------------------------------------------

  const BUTTONS = { left: [0, 1], middle: [1, 4], right: [2, 2] };

  function mods(list) {
    const m = { ctrlKey: false, shiftKey: false, altKey: false, metaKey: false };
    for (const k of list || []) {
      const key = { Control: 'ctrlKey', Ctrl: 'ctrlKey', Shift: 'shiftKey', Alt: 'altKey', Meta: 'metaKey', Cmd: 'metaKey' }[k];
      if (!key) throw new Failure('bad_target', `unknown modifier ${JSON.stringify(k)}; use Control, Shift, Alt or Meta`);
      m[key] = true;
    }
    return m;
  }

  function mouseInit(el, x, y, m, extra) {
    return { bubbles: true, cancelable: true, composed: true, view: window, clientX: x, clientY: y,
      screenX: x + screenX, screenY: y + screenY, ...m, ...extra };
  }

  function pointer(el, type, x, y, m, extra = {}) {
    const init = mouseInit(el, x, y, m, { pointerId: 1, pointerType: 'mouse', isPrimary: true, width: 1, height: 1, ...extra });
    if (type === 'pointerenter' || type === 'pointerleave') init.bubbles = false;
    return el.dispatchEvent(new PointerEvent(type, init));
  }

  function mouse(el, type, x, y, m, extra = {}) {
    const init = mouseInit(el, x, y, m, extra);
    if (type === 'mouseenter' || type === 'mouseleave') init.bubbles = false;
    return el.dispatchEvent(new MouseEvent(type, init));
  }

  /** hoverOver sends the events of the mouse arriving over el's centre. */
  function hoverOver(el, x, y, m) {
    // A hit test that stopped at el's own shadow host (over slotted text)
    // would send the events past el's listeners: they go to el then.
    const at = hitAt(x, y);
    const hit = at && !(at !== el && core.contains(at, el) && engine.partOf(el, at)) ? at : el;
    pointer(hit, 'pointerover', x, y, m);
    pointer(hit, 'pointerenter', x, y, m);
    mouse(hit, 'mouseover', x, y, m);
    mouse(hit, 'mouseenter', x, y, m);
    pointer(hit, 'pointermove', x, y, m);
    mouse(hit, 'mousemove', x, y, m);
    return hit;
  }

  /** focusable returns el or its nearest focusable ancestor (what a click focuses), or null. */
  function focusTarget(el) {
    for (let n = el; n; n = n.parentElement || n.getRootNode()?.host) {
      if (n.tabIndex >= 0 || n.isContentEditable || (n.localName === 'a' && n.hasAttribute('href'))) {
        if (!core.isDisabled(n)) return n;
      }
    }
    return null;
  }

  /**
   * clickAt sends the full sequence a user's click makes at el's centre:
   * pointer and mouse over/move, then per click pointerdown, mousedown,
   * focus, pointerup, mouseup and click (auxclick for the middle button,
   * contextmenu for the right), dblclick after the second.
   */
  function clickAt(el, o) {
    const r = el.getBoundingClientRect();
    clickPoint(el, r.left + r.width / 2, r.top + r.height / 2, o);
  }

  /** clickPoint sends clickAt's sequence at (x, y) in the viewport, to what is there (el, when hoverOver's hit test stops at its shadow host). */
  function clickPoint(el, x, y, o) {
    const m = mods(o.modifiers);
    const [button, buttons] = BUTTONS[o.button || 'left'] || BUTTONS.left;
    const hit = hoverOver(el, x, y, m);
    const count = Math.max(1, Math.min(3, o.click_count || 1));
    for (let i = 1; i <= count; i++) {
      const down = pointer(hit, 'pointerdown', x, y, m, { button, buttons, pressure: 0.5 });
      if (down) {
        if (mouse(hit, 'mousedown', x, y, m, { button, buttons, detail: i }) && i === 1 && button === 0) {
          const f = focusTarget(hit);
          if (f && deepActive() !== f) f.focus({ preventScroll: true });
        }
      }
      pointer(hit, 'pointerup', x, y, m, { button, buttons: 0, pressure: 0 });
      mouse(hit, 'mouseup', x, y, m, { button, buttons: 0, detail: i });
      if (button === 0) mouse(hit, 'click', x, y, m, { button, buttons: 0, detail: i });
      else if (button === 1) mouse(hit, 'auxclick', x, y, m, { button, buttons: 0, detail: i });
      else mouse(hit, 'contextmenu', x, y, m, { button, buttons: 0, detail: i });
      if (i === 2 && button === 0) mouse(hit, 'dblclick', x, y, m, { button, buttons: 0, detail: 2 });
    }
  }

  const protoOf = (el) => (el.localName === 'textarea' ? HTMLTextAreaElement.prototype
    : el.localName === 'select' ? HTMLSelectElement.prototype : HTMLInputElement.prototype);

  /** setValue sets a field's value with the native setter, so frameworks' value trackers see a change on input. */
  function setValue(el, value) {
    Object.getOwnPropertyDescriptor(protoOf(el), 'value').set.call(el, value);
  }

  const fire = (el, type, init = {}) => el.dispatchEvent(new Event(type, { bubbles: true, cancelable: false, composed: true, ...init }));
  const inputEvent = (el, type, data, inputType = 'insertText') =>
    el.dispatchEvent(new InputEvent(type, { bubbles: true, cancelable: type === 'beforeinput', composed: true, data, inputType }));

  /** focusField focuses el and puts the caret at the end of its text. */
  function focusField(el) {
    if (deepActive() !== el) el.focus({ preventScroll: true });
    if (el.isContentEditable) {
      const sel = getSelection();
      sel.selectAllChildren(el);
      sel.collapseToEnd();
    } else if (typeof el.setSelectionRange === 'function') {
      try {
        const n = String(el.value).length;
        el.setSelectionRange(n, n);
      } catch { /* types without selection (email, number) */ }
    }
  }

  /** insertText types text at the caret of the focused field, as the browser would (input events, undo). */
  function insertText(el, text) {
    if (!inputEvent(el, 'beforeinput', text)) return;
    if (document.execCommand('insertText', false, text)) return; // fires input itself
    if (el.isContentEditable) {
      const sel = getSelection();
      if (sel.rangeCount) {
        const range = sel.getRangeAt(0);
        range.deleteContents();
        range.insertNode(document.createTextNode(text));
        range.collapse(false);
      }
    } else {
      const v = String(el.value);
      const start = el.selectionStart ?? v.length;
      const end = el.selectionEnd ?? v.length;
      setValue(el, v.slice(0, start) + text + v.slice(end));
      try {
        el.setSelectionRange(start + text.length, start + text.length);
      } catch { /* no selection API for this type */ }
    }
    inputEvent(el, 'input', text);
  }

  function keyEvent(el, type, info, m, extra = {}) {
    return el.dispatchEvent(new KeyboardEvent(type, {
      bubbles: true, cancelable: true, composed: true, view: window, key: info.key, code: info.code,
      keyCode: info.keyCode, which: info.keyCode, charCode: type === 'keypress' ? (info.text || '').charCodeAt(0) : 0, ...m, ...extra,
    }));
  }

  /**
   * pressKey sends keydown, keypress (for keys that type) and keyup to el,
   * and does what the browser would by default unless a listener
   * prevented it: type the character into a field, Enter submits a form
   * or clicks a button or link, Space clicks a button, checkbox or radio,
   * Tab moves the focus, Backspace and Delete delete.
   */
  function pressKey(el, info, m) {
    const plain = !m.ctrlKey && !m.metaKey && !m.altKey;
    let allowed = keyEvent(el, 'keydown', info, m);
    if (allowed && info.text && plain && info.key !== 'Enter') allowed = keyEvent(el, 'keypress', info, m);
    if (allowed && info.key === 'Enter' && plain) allowed = keyEvent(el, 'keypress', info, m);
    const field = editable(el) && el.localName !== 'select';
    if (allowed && plain) {
      if (info.key === 'Enter') {
        if (el.localName === 'textarea' || el.isContentEditable) insertText(el, '\n');
        else if (el.localName === 'input' && el.form) el.form.requestSubmit();
        else if (el.localName === 'button' || (el.localName === 'a' && el.hasAttribute('href'))) el.click();
      } else if (info.key === 'Tab') {
        moveFocus(el, m.shiftKey ? -1 : 1);
      } else if ((info.key === 'Backspace' || info.key === 'Delete') && field) {
        deleteText(el, info.key === 'Backspace');
      } else if (info.text && field && info.key !== ' ') {
        insertText(el, info.text);
      } else if (info.key === ' ' && field) {
        insertText(el, ' ');
      }
    } else if (allowed && m.shiftKey && !m.ctrlKey && !m.metaKey && !m.altKey && info.text && field) {
      insertText(el, info.text);
    }
    const up = keyEvent(el, 'keyup', info, m);
    if (up && plain && info.key === ' ' && !field && (el.localName === 'button' || ['checkbox', 'radio'].includes(el.type))) el.click();
  }

  function deleteText(el, backward) {
    const type = backward ? 'deleteContentBackward' : 'deleteContentForward';
    if (!inputEvent(el, 'beforeinput', null, type)) return;
    if (document.execCommand(backward ? 'delete' : 'forwardDelete')) return;
    if (el.isContentEditable) return;
    const v = String(el.value);
    let start = el.selectionStart ?? v.length;
    let end = el.selectionEnd ?? v.length;
    if (start === end) {
      if (backward) start = Math.max(0, start - 1);
      else end = Math.min(v.length, end + 1);
    }
    setValue(el, v.slice(0, start) + v.slice(end));
    inputEvent(el, 'input', null, type);
  }

  /** moveFocus focuses the next (dir 1) or previous (-1) tabbable element after el. */
  function moveFocus(el, dir) {
    const all = [];
    core.walk(document, (n) => {
      if (n.tabIndex >= 0 && !core.isDisabled(n) && shows(n)) all.push(n);
    }, view);
    const ordered = [...all.filter((n) => n.tabIndex > 0).sort((a, b) => a.tabIndex - b.tabIndex), ...all.filter((n) => n.tabIndex === 0)];
    const i = ordered.indexOf(el);
    const next = ordered[(i + dir + ordered.length) % ordered.length];
    next?.focus();
  }

  // --- dialogs -------------------------------------------------------------------

  // dialogs are the page's alert, confirm and prompt calls that dialogs.js
  // (MAIN world) reported during actions, newest last, at most 50.
  // dialogs.js's private channel is held by channel.js (this world, from
  // document_start), which also tells the worker about native ones.
  // In a document loaded idle, channel.js may come after this runtime
  // (tabs/reach.js): it then hands itself over (gasolineChannelLate).
  const dialogs = [];
  let channel = globalThis.gasolineChannel;
  const onDialog = (e) => {
    let d;
    try {
      d = JSON.parse(e.detail);
    } catch {
      return; // not a report
    }
    if (d.showing === false || d.unsure) return; // the answer to one already listed, or one that may not show
    dialogs.push({ type: String(d.type), message: core.clip(String(d.message ?? ''), 200), answered: String(d.answered) });
    if (dialogs.length > 50) dialogs.shift();
  };
  if (channel) channel.on('dialog', onDialog);
  else {
    (globalThis.gasolineChannelLate ??= []).push((c) => {
      channel = c;
      c.on('dialog', onDialog);
    });
  }

  /** toMain tells dialogs.js (MAIN world) something, through channel.js. */
  const toMain = (type, data) => channel?.send(type, data);

  // --- actions -------------------------------------------------------------------

  /**
   * held is what fill and type say of the field they filled or typed into,
   * read from it as it is now by the rules fill_form follows for a text
   * field (see textOutcome): want is what it should hold, secret whether
   * it was a secret field before anything was sent. A secret field's
   * result says secret: true, which also tells the test generator to write
   * an environment variable, never the text.
   */
  const held = (el, want, secret) => textOutcome(el, want, secret || engine.isSecret(el), {});

  /**
   * fillText replaces the text of el (an input, a textarea or a
   * contenteditable) as a paste would, and returns what the field should
   * hold now: text as the browser stores it (a textarea's line breaks
   * become \n). It throws not_editable when the browser itself refuses the
   * text (an <input type=date> given "tomorrow", a text input given line
   * breaks): that is checked right after the value is set, before any
   * event reaches the page, and the field is given its previous value back
   * (the page saw nothing change). What the page's listeners then make of it (a
   * mask, a formatter, a framework setting it back) is no failure: the
   * read-back says value_differs. A secret field's text is never in the
   * error.
   */
  function fillText(el, text, secret) {
    focusField(el);
    if (el.isContentEditable) {
      getSelection().selectAllChildren(el);
      insertText(el, text);
      if (!text) deleteText(el, true);
      return text;
    }
    const before = el.value;
    setValue(el, text);
    const took = String(el.value);
    if (took !== (el.localName === 'textarea' ? text.replace(/\r\n?/g, '\n') : text)) {
      setValue(el, before); // refused: the field holds what it held, as no event said otherwise
      const shown = secret ? '' : ` ${JSON.stringify(core.clip(text, PREVIEW))} (the browser made it ${JSON.stringify(core.clip(took, PREVIEW))})`;
      throw new Failure('not_editable', `${core.describe(el, view)} did not take the value${shown}; an input of type ${el.type} accepts only its own format (one line for text, yyyy-mm-dd for a date, digits for a number): send the text in it`);
    }
    inputEvent(el, 'input', text, 'insertReplacementText');
    fire(el, 'change');
    return took;
  }

  /** textNow is the text of a field: an input's or textarea's value, a contenteditable's text. */
  const textNow = (el) => (el.localName === 'input' || el.localName === 'textarea' ? String(el.value ?? '') : core.textOf(el, null));

  /**
   * sentText is how an error names a value the agent sent: clipped, or for
   * a secret field only its kind, since errors reach the agent and its
   * logs as results do.
   */
  function sentText(value, secret) {
    if (!secret) return core.clip(JSON.stringify(value), PREVIEW);
    if (Array.isArray(value)) return 'a list';
    if (typeof value === 'boolean') return String(value);
    return typeof value === 'string' ? 'the text sent (not repeated: the field is secret)' : `a ${typeof value}`;
  }

  /**
   * selectOptions chooses the options of the <select> el that values
   * name (each an option's value or label) and resolves to {selected}. An
   * error about a secret <select> (secret) names none of the values sent.
   */
  async function selectOptions(el, values, secret) {
    if (el.localName !== 'select' && globalThis.gasolineCombobox?.isCustomSelect(el)) {
      return globalThis.gasolineCombobox.choose(el, values, {
        click: (x) => clickAt(x, {}), shows, hitAt, frame: nextFrame, view, secret,
        fail: (reason, message) => {
          throw new Failure(reason, message);
        },
      });
    }
    if (el.localName !== 'select') {
      throw new Failure('not_editable', `${core.describe(el, view)} is not a <select> nor a combobox with options; click a custom dropdown open and click its option instead`);
    }
    const want = values.map(String);
    const options = Array.from(el.options);
    const chosen = want.map((w) => options.find((op) => op.value === w) ||
      options.find((op) => core.norm(op.label || op.text) === core.norm(w)) ||
      options.find((op) => core.textMatches(op.label || op.text, w, false)));
    const missing = want.filter((_, i) => !chosen[i]);
    if (missing.length) {
      const which = secret ? 'the value or label sent (not repeated: the field is secret)' : `the value or label ${missing.map((m) => JSON.stringify(core.clip(m, PREVIEW))).join(', ')}`;
      throw new Failure('bad_option', `no option of ${core.describe(el, view)} has ${which}; ` +
        `its options: ${options.slice(0, 15).map((op) => `${JSON.stringify(op.label || op.text)} (${JSON.stringify(op.value)})`).join(', ')}${options.length > 15 ? ', …' : ''}`);
    }
    if (chosen.length > 1 && !el.multiple) {
      throw new Failure('bad_option', `${core.describe(el, view)} takes one option, not ${chosen.length}; pass one value`);
    }
    const disabled = chosen.find((op) => op.disabled);
    if (disabled) throw new Failure('disabled', secret ? 'the option chosen is disabled; choose another' : `the option ${JSON.stringify(disabled.label)} is disabled; choose another`);
    focusField(el);
    for (const op of options) op.selected = chosen.includes(op);
    fire(el, 'input');
    fire(el, 'change');
    return { selected: chosen.map((op) => op.value) };
  }

  const ACTS = {
    async click(el, o) {
      clickAt(el, o);
      return {};
    },
    async hover(el, o) {
      const r = el.getBoundingClientRect();
      hoverOver(el, r.left + r.width / 2, r.top + r.height / 2, mods(o.modifiers));
      return {};
    },
    async fill(el, o) {
      const secret = engine.isSecret(el);
      const want = fillText(el, String(o.text ?? ''), secret);
      await nextFrame(); // for the page's formatters and re-renders, as fill_form
      return held(el, want, secret);
    },
    async type(el, o) {
      const text = String(o.text ?? '');
      const secret = engine.isSecret(el);
      focusField(el);
      const before = textNow(el);
      for (const ch of text) {
        const info = core.keyInfo(ch === '\n' ? 'Enter' : ch) || { key: ch, code: '', keyCode: 0, text: ch };
        pressKey(el, info, mods([]));
        if (o.delay_ms) await sleep(Math.min(1000, o.delay_ms));
      }
      fire(el, 'change');
      await nextFrame();
      // The caret was at the end; Enter in a one-line input submits rather than types.
      return held(el, before + (el.localName === 'input' ? text.replace(/[\r\n]/g, '') : text), secret);
    },
    async select(el, o) {
      const secret = engine.isSecret(el);
      const res = await selectOptions(el, Array.isArray(o.values) ? o.values : [o.values], secret);
      return secret ? { secret: true } : res; // a card's expiry month is as secret as its number
    },
    async check(el, o) {
      return setChecked(el, o, true);
    },
    async uncheck(el, o) {
      return setChecked(el, o, false);
    },
    async key_press(el, o) {
      const info = core.keyInfo(o.key);
      if (!info) {
        throw new Failure('bad_target', `unknown key ${JSON.stringify(o.key)}; use a DOM key name such as Enter, Tab, Escape, ArrowDown, Backspace, a or A`);
      }
      if (el && deepActive() !== el) el.focus({ preventScroll: true });
      const target = el || deepActive() || document.body;
      pressKey(target, info, mods(o.modifiers));
      return { focused: brief(deepActive() || document.body, o.prefix) };
    },
    async scroll_to(el) {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      return { box: boxOf(el) };
    },
    drag: dragTo,
    fill_form: fillForm,
    async get_text(el, o) {
      const text = (el || document.body).innerText || '';
      const max = o.max_chars; // the daemon's default and bounds (internal/tools getTextArgs)
      const out = { text: text.length > max ? text.slice(0, max) : text, chars: text.length };
      if (text.length > max) out.truncated = `${text.length - max} more characters; narrow the target, or raise max_chars`;
      return out;
    },
  };

  // --- drag --------------------------------------------------------------------

  /** DRAG_STEPS is how many moves a drag makes between its two ends (libraries wait for a few). */
  const DRAG_STEPS = 8;

  const centre = (el) => {
    const r = el.getBoundingClientRect();
    return [r.left + r.width / 2, r.top + r.height / 2];
  };

  /** dragsNatively says whether pressing on el starts an HTML5 drag: it or an ancestor is draggable="true". */
  const dragsNatively = (el) => Boolean(el.closest?.('[draggable="true" i]'));

  /**
   * dragTo drags el onto the element o.to names, as a user's mouse does:
   * pointer and mouse over, down, then DRAG_STEPS moves a frame apart
   * (sortable libraries listen to those, on the element under the pointer
   * and the document), and up on the drop target. When the press made el
   * natively draggable (draggable="true" on it or an ancestor, which some
   * libraries set on pointerdown), the moves are HTML5 drag and drop
   * instead: dragstart on el with a DataTransfer the page shares, dragenter
   * / dragover / dragleave on what the pointer crosses, drop where the
   * last dragover was accepted (prevented), dragend on el. The result says
   * which it was and, for HTML5, whether the drop was accepted. A
   * DataTransfer made by script carries data (setData / getData / files)
   * but not effects: its dropEffect reads "none" and effectAllowed
   * "uninitialized" whatever the page sets (Chrome keeps those for the
   * browser's own drags).
   */
  async function dragTo(el, o) {
    const to = await actionable(o.to, o.prefix, o.timeout_ms, { stable: true }, true);
    if (to === el) throw new Failure('bad_target', `drag's target and to are the same element (${core.describe(el, view)}); pass another element to drop on`);
    const toBrief = brief(to, o.prefix);
    const m = mods([]);
    let [x, y] = centre(el);
    const src = hoverOver(el, x, y, m);
    const down = pointer(src, 'pointerdown', x, y, m, { button: 0, buttons: 1, pressure: 0.5 });
    if (down && mouse(src, 'mousedown', x, y, m, { button: 0, buttons: 1, detail: 1 })) {
      const f = focusTarget(src);
      if (f && deepActive() !== f) f.focus({ preventScroll: true });
    }
    await nextFrame();
    // Where to drop is where to's centre is as the drag starts, as a user
    // aims: a list that reorders under the pointer moves to away meanwhile.
    const [tx, ty] = centre(to);
    if (dragsNatively(src)) return { to: toBrief, ...await html5Drag(src, to, x, y, tx, ty, m) };
    let over = src;
    for (let i = 1; i <= DRAG_STEPS; i++) {
      const sx = x + (tx - x) * i / DRAG_STEPS;
      const sy = y + (ty - y) * i / DRAG_STEPS;
      const at = hitAt(sx, sy) || to;
      if (at !== over) {
        pointer(over, 'pointerout', sx, sy, m, { buttons: 1 });
        mouse(over, 'mouseout', sx, sy, m, { buttons: 1 });
        pointer(at, 'pointerover', sx, sy, m, { buttons: 1 });
        mouse(at, 'mouseover', sx, sy, m, { buttons: 1 });
        over = at;
      }
      pointer(at, 'pointermove', sx, sy, m, { buttons: 1, pressure: 0.5 });
      mouse(at, 'mousemove', sx, sy, m, { buttons: 1 });
      await nextFrame();
      if (i === DRAG_STEPS) [x, y] = [sx, sy];
    }
    const at = hitAt(x, y) || to;
    pointer(at, 'pointerup', x, y, m, { button: 0, buttons: 0, pressure: 0 });
    mouse(at, 'mouseup', x, y, m, { button: 0, buttons: 0, detail: 1 });
    await nextFrame();
    return { to: toBrief, mode: 'pointer' };
  }

  function dragEvent(el, type, x, y, m, dt) {
    const init = mouseInit(el, x, y, m, { dataTransfer: dt, buttons: type === 'dragend' || type === 'drop' ? 0 : 1 });
    init.cancelable = !['dragleave', 'dragend'].includes(type);
    return el.dispatchEvent(new DragEvent(type, init));
  }

  /** html5Drag runs the HTML5 drag-and-drop events of dragging src from (x, y) onto to at (tx, ty) (see dragTo). */
  async function html5Drag(src, to, x, y, tx, ty, m) {
    const dt = new DataTransfer();
    pointer(src, 'pointercancel', x, y, m, { buttons: 0 }); // the browser takes over the pointer, as for a real drag
    if (!dragEvent(src, 'dragstart', x, y, m, dt)) {
      mouse(src, 'mouseup', x, y, m, { button: 0, buttons: 0 });
      return { mode: 'html5', dropped: false, note: 'the page cancelled dragstart: the element would not be dragged' };
    }
    let over = null;
    let accepted = false;
    for (let i = 1; i <= DRAG_STEPS; i++) {
      await nextFrame();
      const sx = x + (tx - x) * i / DRAG_STEPS;
      const sy = y + (ty - y) * i / DRAG_STEPS;
      dragEvent(src, 'drag', sx, sy, m, dt);
      const at = hitAt(sx, sy) || to;
      if (at !== over) {
        // A prevented dragenter accepts the drop too; else the one the browser treats as entered stays the body.
        if (over) dragEvent(over, 'dragleave', sx, sy, m, dt);
        dragEvent(at, 'dragenter', sx, sy, m, dt);
        over = at;
      }
      accepted = !dragEvent(at, 'dragover', sx, sy, m, dt);
      if (i === DRAG_STEPS) [x, y] = [sx, sy];
    }
    let dropped = false;
    if (accepted) {
      dragEvent(over, 'drop', x, y, m, dt);
      dropped = true;
    } else if (over) {
      dragEvent(over, 'dragleave', x, y, m, dt);
    }
    dragEvent(src, 'dragend', x, y, m, dt);
    await nextFrame();
    const out = { mode: 'html5', dropped };
    if (!dropped) out.note = 'the element under the drop point did not accept the drop (no dragover listener called preventDefault)';
    return out;
  }

  // --- fill_form ---------------------------------------------------------------

  const CHECKABLE = ['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio'];
  const ON = new Set([true, 'true', 'checked', 'on', 'yes']);
  const OFF = new Set([false, 'false', 'unchecked', 'off', 'no', '']);

  /** PREVIEW is how many characters of a field's text fill_form gives back; the agent sent the text, so it needs no more. */
  const PREVIEW = 60;
  /** PREVIEW_OPTIONS is how many of a <select>'s selected options fill_form lists. */
  const PREVIEW_OPTIONS = 20;

  /**
   * fillForm fills o.fields in order, each {target, value}: a checkbox,
   * radio or switch is checked by true ("checked") and unchecked by false,
   * a <select> takes an option's value or label (a list for a multiple
   * one), any other field is filled with the text. Each is awaited as its
   * single action would be, within what is left of the page budget. Once
   * all are filled it waits a frame (for the page's formatters and
   * re-renders) and reads each field back: it resolves to one outcome per
   * field (see fieldOutcome) or throws the first failure, naming the
   * field's index and what was done before it.
   */
  async function fillForm(_, o) {
    const fields = Array.isArray(o.fields) ? o.fields : [];
    const deadline = performance.now() + Math.max(0, o.timeout_ms ?? 0);
    const filled = [];
    for (let i = 0; i < fields.length; i++) {
      const { target, value } = fields[i];
      try {
        filled.push(await fillField(target, value, o, Math.max(0, deadline - performance.now())));
      } catch (e) {
        if (!(e instanceof Failure)) throw e;
        const done = i ? `fields 0-${i - 1} were filled; ` : '';
        e.message = `field ${i} (${what(target)}): ${e.message} (${done}fields from ${i} on were not)`;
        e.extra = { ...e.extra, field: i };
        throw e;
      }
    }
    await nextFrame();
    return { fields: filled.map((f) => fieldOutcome(f.el, f.value, f.res, f.named, f.secret)) };
  }

  /**
   * fillField fills one field with value and resolves to {el, value, res,
   * named, secret}: the element, what it should hold, its action's result,
   * its brief, and whether it was a secret field, decided before anything
   * is sent to it (a page may turn a password field into a text one once
   * filled) and kept out of every error about it.
   */
  async function fillField(t, value, o, timeoutMs) {
    let el = await actionable(t, o.prefix, timeoutMs, { enabled: true, control: true }, true);
    let secret = engine.isSecret(el);
    const role = core.roleOf(el);
    let res = {};
    if (CHECKABLE.includes(role)) {
      if (!ON.has(value) && !OFF.has(value)) {
        throw new Failure('bad_option', `${core.describe(el, view)} is a ${role}: its value is true ("checked") or false ("unchecked"), not ${sentText(value, secret)}`);
      }
      el = await actionable(t, o.prefix, timeoutMs, NEEDS.check, true);
      secret ||= engine.isSecret(el);
      res = await setChecked(el, o, ON.has(value));
    } else if (el.localName === 'select' || (globalThis.gasolineCombobox?.isCustomSelect(el) && !editable(el))) {
      if (typeof value === 'boolean') throw new Failure('bad_option', `${core.describe(el, view)} is a select: its value is an option's value or label, not ${value}`);
      res = await selectOptions(el, Array.isArray(value) ? value : [value], secret);
    } else {
      if (typeof value !== 'string') {
        throw new Failure('bad_option', `${core.describe(el, view)} takes text, not ${sentText(value, secret)}; true/false are for checkboxes and radios`);
      }
      el = await actionable(t, o.prefix, timeoutMs, NEEDS.fill, true);
      secret ||= engine.isSecret(el);
      value = fillText(el, value, secret);
    }
    return { el, value, res, named: brief(el, o.prefix), secret };
  }

  /**
   * fieldOutcome is what fill_form says of one filled field, read from the
   * field as it is now: named ({ref, role, name}), then for a checkbox,
   * radio or switch checked (and changed, from res); for a <select>
   * selected, the values of its selected options (at most
   * PREVIEW_OPTIONS, with selected_count when more, each clipped to
   * PREVIEW); for any other field what textOutcome says. value_differs:
   * true says the field does not hold what was sent (the page reformatted,
   * cleared or reset it after it was filled). A secret field (secret,
   * decided before filling, or engine.isSecret now) says secret: true and
   * never its value or options, not even clipped. A field the page removed
   * gets a note. It is a pure function of the element, so that node can
   * test it.
   */
  function fieldOutcome(el, sent, res, named, wasSecret = false) {
    const out = { ...named };
    const secret = wasSecret || engine.isSecret(el);
    const role = core.roleOf(el);
    if (CHECKABLE.includes(role)) {
      if (secret) out.secret = true;
      if (el.isConnected === false) out.note = REMOVED;
      const now = roleChecked(el);
      out.checked = now;
      if (res && typeof res.changed === 'boolean') out.changed = res.changed;
      if (now !== ON.has(sent)) out.value_differs = true;
      return out;
    }
    if (el.localName === 'select') {
      if (secret) out.secret = true;
      if (el.isConnected === false) out.note = REMOVED;
      const now = Array.from(el.options || []).filter((op) => op.selected).map((op) => String(op.value));
      const was = Array.isArray(res?.selected) ? res.selected : now;
      if (now.length !== was.length || now.some((v, i) => v !== was[i])) out.value_differs = true;
      out.selected_count = now.length; // for a secret one, all it says: that it is a <select> (analyze test replays it with selectOption)
      if (secret) return out;
      out.selected = now.slice(0, PREVIEW_OPTIONS).map((v) => core.clip(v, PREVIEW));
      if (now.length <= PREVIEW_OPTIONS) delete out.selected_count;
      return out;
    }
    if (Array.isArray(res?.selected)) { // a custom select's (combobox.js): the options it saw taken
      if (secret) out.secret = true;
      else out.selected = res.selected.slice(0, PREVIEW_OPTIONS).map((v) => core.clip(v, PREVIEW));
      return out;
    }
    return textOutcome(el, sent, secret, out);
  }

  const REMOVED = 'the page removed this field after it was filled; look at the page (analyze dom) before going on';

  /**
   * textOutcome adds to out what a text field (an input, a textarea, a
   * contenteditable) holds now, for fill, type and fill_form alike: value,
   * its text clipped to PREVIEW characters, with chars (its length) when
   * clipped, since the agent sent the text. value_differs: true says it
   * does not hold want (the page reformatted, cleared or reset it), and
   * value then shows the text from where it first differs. A secret field
   * (secret) says secret: true and never its value, not even clipped. A
   * field the page removed, or a text longer than the field's maxlength
   * (which a user could not have typed), gets a note.
   */
  function textOutcome(el, want, secret, out) {
    if (secret) out.secret = true;
    if (el.isConnected === false) out.note = REMOVED;
    const rich = el.localName !== 'input' && el.localName !== 'textarea'; // a contenteditable
    // A contenteditable's text is compared as the outline shows it, whitespace collapsed.
    const sent = rich ? core.norm(String(want ?? '')) : String(want ?? '');
    const now = rich ? core.norm(core.textOf(el, null)) : String(el.value ?? '');
    const differs = now !== sent;
    if (differs) out.value_differs = true;
    if (!out.note && el.maxLength > 0 && now.length > el.maxLength) {
      out.note = `longer than the field's maxlength ${el.maxLength}: a user could type only ${el.maxLength} characters, so the page may refuse it`;
    }
    if (secret) return out;
    let from = 0;
    if (differs) {
      while (from < now.length && now[from] === sent[from]) from++;
      from = Math.max(0, from - 20);
    }
    out.value = (from ? '…' : '') + core.clip(now.slice(from), PREVIEW);
    if (now.length > PREVIEW || from) out.chars = now.length;
    return out;
  }

  function roleChecked(el) {
    if (el.localName === 'input') return el.checked;
    return el.getAttribute('aria-checked') === 'true';
  }

  async function setChecked(el, o, want) {
    const role = core.roleOf(el);
    if (!['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio'].includes(role)) {
      throw new Failure('not_editable', `${core.describe(el, view)} is not a checkbox, radio or switch (role ${role || 'none'}); use click`);
    }
    if (roleChecked(el) === want) return { checked: want, changed: false };
    if (!want && role === 'radio') throw new Failure('not_editable', 'a radio button cannot be unchecked; check another one of its group');
    clickAt(el, o);
    await nextFrame();
    if (roleChecked(el) !== want) {
      throw new Failure('not_editable', `clicking ${core.describe(el, view)} did not ${want ? 'check' : 'uncheck'} it (a listener may have prevented it); look at the page's state with analyze({what:"dom"})`);
    }
    return { checked: want, changed: true };
  }

  // What each action waits for before acting.
  const NEEDS = {
    click: { enabled: true, stable: true, hit: true },
    hover: { stable: true, hit: true },
    check: { enabled: true, stable: true, hit: true, control: true },
    uncheck: { enabled: true, stable: true, hit: true, control: true },
    fill: { enabled: true, editable: true, control: true },
    type: { enabled: true, editable: true, control: true },
    select: { enabled: true, control: true },
    key_press: { enabled: true },
    scroll_to: {},
    get_text: {},
    drag: { stable: true, hit: true },
    fill_form: { targetless: true },
  };

  /**
   * addAction adds an action that runs in act like the built-in ones, for
   * action modules loaded after this script (upload-page.js): needs says
   * what to wait for, fn(el, opts) acts and resolves to its result.
   */
  function addAction(name, needs, fn) {
    if (Object.hasOwn(NEEDS, name)) return;
    NEEDS[name] = needs;
    ACTS[name] = fn;
  }

  // changes is what the last action changed (actions/changed.js), read
  // once by op "changed" after the worker has followed its consequences.
  let changes = null;

  /** changed answers {changed} of the last action, once (null: nothing changed, or no action since). */
  function changed() {
    const c = changes;
    changes = null;
    try {
      return { changed: c?.watch?.stop((el) => brief(el, c.prefix)) ?? null };
    } catch {
      return { changed: null }; // what changed is a hint: never an action's failure
    }
  }

  async function act(msg) {
    const needs = Object.hasOwn(NEEDS, msg.action) ? NEEDS[msg.action] : null;
    if (!needs) throw new Failure('bad_target', `the runtime has no action ${JSON.stringify(msg.action)}`);
    const o = { ...(msg.opts || {}), prefix: msg.prefix, timeout_ms: msg.timeout_ms };
    const t = msg.target;
    let el = null;
    if (t) {
      el = await actionable(t, msg.prefix, msg.timeout_ms, needs, true);
    } else if (!needs.targetless && msg.action !== 'key_press' && msg.action !== 'get_text') {
      throw new Failure('bad_target', `${msg.action} needs a target: ref, selector, text, or role (with name)`);
    }
    const named = el ? brief(el, msg.prefix) : null; // before acting: the action may remove it
    changes?.watch?.cancel();
    changes = msg.action === 'get_text' ? null : { watch: globalThis.gasolineChanged?.watch(el), prefix: msg.prefix };
    const mark = dialogs.length;
    toMain('acting', { on: true, dialog: o.dialog, prompt_text: o.prompt_text });
    let result;
    try {
      result = await ACTS[msg.action](el, o);
    } finally {
      toMain('acting', { on: false });
    }
    if (dialogs.length > mark) result.dialogs = dialogs.slice(mark);
    return named ? { target: named, ...result } : result;
  }

  // --- query, wait, outline, summary ----------------------------------------------

  function query(msg) {
    const limit = Math.max(1, Math.min(msg.limit || 10, 100));
    const els = candidates(msg.target, msg.prefix);
    const out = els.slice(0, limit).map((el) => {
      const b = brief(el, msg.prefix);
      const text = core.clip(core.norm(el.innerText ?? core.textOf(el, view)), 80);
      if (text && text !== b.name) b.text = text;
      b.visible = shows(el);
      b.box = boxOf(el);
      return b;
    });
    return { count: els.length, elements: out };
  }

  async function wait(msg) {
    const deadline = performance.now() + Math.max(0, msg.timeout_ms);
    const state = msg.state || 'visible';
    for (;;) {
      let done = false;
      let detail = '';
      if (msg.target) {
        let els = [];
        try {
          els = candidates(msg.target, msg.prefix);
        } catch (e) {
          if (!(e instanceof Failure) || e.reason !== 'stale_ref' || (state !== 'hidden' && state !== 'detached')) throw e;
        }
        const visible = els.filter(shows);
        done = { attached: els.length > 0, visible: visible.length > 0, hidden: visible.length === 0, detached: els.length === 0 }[state];
        detail = `${what(msg.target)} to be ${state} (now: ${els.length} attached, ${visible.length} visible)`;
        if (done) {
          const el = state === 'visible' ? visible[0] : els[0];
          return el ? { target: brief(el, msg.prefix) } : {};
        }
      } else if (msg.text) {
        const has = core.textMatches(document.body?.innerText || '', msg.text, false);
        done = msg.gone ? !has : has;
        detail = `the text ${JSON.stringify(msg.text)} to be ${msg.gone ? 'gone from' : 'on'} the page`;
        if (done) return {};
      } else {
        return {};
      }
      if (performance.now() >= deadline) {
        throw new Failure('timeout', `waited ${msg.timeout_ms} ms for ${detail}; pass a larger timeout_ms, or check the page with analyze({what:"dom"})`);
      }
      await sleep(50);
    }
  }

  async function outline(msg) {
    let root = document;
    if (msg.scope) root = await actionable(msg.scope, msg.prefix, msg.timeout_ms ?? 0, {});
    const refFor1 = (el) => refFor(el, msg.prefix);
    const iframes = [];
    const out = core.outline(root, {
      refFor: refFor1, view, interactiveOnly: Boolean(msg.interactive_only), maxChars: msg.max_chars,
      onFrame: (el, line) => iframes.push({ el, line }),
    });
    // Each iframe's document learns a nonce, by which the worker tells
    // which frame it is and splices its outline in under the line.
    const frames = [];
    for (const { el, line } of iframes) {
      if (!el.contentWindow) continue;
      const nonce = crypto.randomUUID();
      el.contentWindow.postMessage({ gasolineProbe: nonce }, '*');
      frames.push({ line, nonce });
    }
    return {
      text: out.lines.join('\n'), lines: out.lines.length, chars: out.chars, interactive: out.interactive,
      truncated: out.truncated, clipped: out.clipped, frames,
    };
  }

  function summary(msg) {
    const P = msg.prefix;
    const headings = [];
    const landmarks = [];
    const forms = [];
    const counts = { links: 0, buttons: 0, fields: 0, images: 0, iframes: 0 };
    core.walk(document, (el) => {
      if (!view.visible(el)) return false;
      const role = core.roleOf(el);
      switch (role) {
        case 'heading':
          if (headings.length < 15 && core.headingLevel(el) <= 3) {
            headings.push(`h${core.headingLevel(el)} ${core.clip(core.nameOf(el, view, role), 80)}`);
          }
          break;
        case 'link': counts.links++; break;
        case 'button': counts.buttons++; break;
        case 'img': counts.images++; break;
        case 'iframe': counts.iframes++; break;
        case 'textbox': case 'searchbox': case 'combobox': case 'listbox': case 'checkbox': case 'radio':
        case 'slider': case 'spinbutton': case 'switch':
          counts.fields++;
          break;
      }
      if (core.LANDMARKS.has(role) && role !== 'form' && landmarks.length < 12) {
        const n = core.nameOf(el, view, role);
        landmarks.push(n ? `${role} "${core.clip(n, 40)}"` : role);
      }
      if (el.localName === 'form' && forms.length < 5) {
        const fields = [];
        let more = 0;
        core.walk(el, (c) => {
          if (!view.visible(c)) return false;
          const r = core.roleOf(c);
          if (!core.isInteractive(c, r) || r === 'link') return;
          if (fields.length >= 12) {
            more++;
            return;
          }
          const f = brief(c, P);
          const st = core.states(c, r).filter((s) => s === 'required' || s === 'disabled' || s === 'checked');
          if (st.length) f.states = st.join(' ');
          fields.push(f);
          return false; // a field's options are not fields
        }, view);
        const form = { name: core.clip(core.nameOf(el, view, 'form'), 60), fields };
        if (!form.name) delete form.name;
        if (more) form.more_fields = more;
        forms.push(form);
      }
    }, view);
    const main = document.querySelector('main, [role=main]') || document.body;
    const text = core.norm(main?.innerText || '');
    return { headings, landmarks, forms, counts, text: core.clip(text, 600), text_chars: text.length };
  }

  // The nonce a parent document last sent this one (op "frame"), so the
  // worker can tell which frame an iframe element holds (op "probe").
  let probed = '';
  addEventListener('message', (e) => {
    if (e.source === parent && e.source !== window && typeof e.data?.gasolineProbe === 'string') probed = e.data.gasolineProbe;
  });

  /**
   * frameOf finds the iframe msg.selector names and posts msg.nonce into
   * it; the worker then asks the tab's frames which one received it.
   */
  function frameOf(msg) {
    let el;
    try {
      el = engine.queryDeep(document, msg.selector).find((e) => e.localName === 'iframe' || e.localName === 'frame');
    } catch (e) {
      throw new Failure('bad_target', `frame ${JSON.stringify(msg.selector)} is not a valid CSS selector (${e.message})`);
    }
    if (!el) {
      throw new Failure('not_found', `no iframe matches frame ${JSON.stringify(msg.selector)}; pass a CSS selector of the iframe element (e.g. "iframe#checkout" or "iframe[name=pay]")`);
    }
    if (!el.contentWindow) throw new Failure('not_found', `the iframe ${core.describe(el, view)} has no document loaded yet; wait and retry`);
    el.contentWindow.postMessage({ gasolineProbe: msg.nonce }, '*');
    return { src: el.src || '' };
  }

  const OPS = {
    act,
    changed,
    query,
    wait,
    outline,
    summary,
    frame: frameOf,
    probe: (msg) => ({ match: Boolean(msg.nonce) && probed === msg.nonce }),
    probed: () => ({ nonce: probed }),
    metrics: () => ({ width: innerWidth, height: innerHeight, scroll_height: document.documentElement.scrollHeight, scroll_y: scrollY }),
    async scroll(msg) {
      scrollTo({ left: scrollX, top: msg.y, behavior: 'instant' });
      await nextFrame();
      await nextFrame();
      return { y: scrollY };
    },
    ping: () => ({ counter }),
  };

  async function handle(msg) {
    try {
      const op = Object.hasOwn(OPS, msg.op) ? OPS[msg.op] : null;
      if (!op) throw new Failure('bad_target', `unknown runtime op ${JSON.stringify(msg.op)}`);
      return { ok: true, ...(await op({ prefix: 'e', ...msg })) };
    } catch (e) {
      if (e instanceof Failure) return { ok: false, reason: e.reason, message: e.message, ...e.extra };
      return { ok: false, reason: 'internal', message: `${e?.name || 'Error'}: ${e?.message || e}` };
    }
  }

  chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
    // Only the extension's own worker and pages can reach here (content
    // scripts cannot call tabs.sendMessage); the id check is the guard.
    if (sender.id !== chrome.runtime.id || msg?.gasoline !== 'dom') return false;
    handle(msg).then(sendResponse);
    return true;
  });

  // refFor is the draw-mode overlay's: the annotated element's ref (top
  // frame); addAction, Failure and describe are the action modules', and
  // page (hitAt, clickPoint, brief in a frame, nextFrame) the page verbs'
  // (actions/verbs/); verbs names every verb, for the tests; held,
  // fieldOutcome, fillText, selectOptions and sentText are there for the
  // unit tests; brief and element are the accessibility audit's
  // (audit/audit.js): an element's {ref, role, name}, and the live element
  // of a top-frame ref.
  globalThis.gasolineRuntime = {
    handle, refFor: (el) => refFor(el, 'e'), addAction, Failure, describe: (el) => core.describe(el, view), held, fieldOutcome, fillText, selectOptions, sentText,
    brief: (el) => brief(el, 'e'), element: (ref) => byRef.get(ref)?.deref() ?? null,
    page: { hitAt, clickPoint, brief, nextFrame }, verbs: () => Object.keys(NEEDS),
  };
})();
