// One draw-mode session's overlay (see overlay.js): its boxes and note
// frames, the user's input, and Done or cancel sent through the worker.
import * as L from './logic.js';
import { CSS, HOST_TAG } from './look.js';

const core = globalThis.gasolineCore;
const LIFETIME_MS = 10 * 60 * 1000 + 5000; // the daemon's session lifetime, and a margin

let current = null; // the open overlay, or null

/** open shows the overlay for params, ending the one open. */
export function open(params) {
  if (current) current.end({ cancel: 'the agent started a new draw-mode session' });
  current = new Overlay(params);
  return { shown: true, correlation_id: params.correlation_id };
}

/** close ends the open overlay, telling the daemon it was closed. */
export const close = () => current?.end({ cancel: 'closed' });

class Overlay {
  constructor(p) {
    this.p = p;
    this.items = []; // {rect, element, box, frame, key, label, held}
    this.loaded = new WeakSet(); // the note frames that have loaded
    this.listeners = [];
    this.host = document.createElement(HOST_TAG);
    this.host.setAttribute('style', 'all: initial; position: fixed; inset: 0; z-index: 2147483647; display: block;');
    const root = this.host.attachShadow({ mode: 'closed' });
    this.root = root;
    root.innerHTML = `<style>${CSS}</style><div class="layer"></div><div class="bar"><span class="msg"></span>` +
      '<span class="count"></span><button class="undo" type="button">Undo</button>' +
      '<button class="cancel" type="button">Cancel</button><button class="done" type="button">Done</button></div>';
    this.layer = root.querySelector('.layer');
    this.layer.tabIndex = -1; // holds the focus between notes (down)
    this.msg = root.querySelector('.msg');
    this.count = root.querySelector('.count');
    this.msg.textContent = L.instructionText(p);
    if (p.mode === 'pick') this.layer.classList.add('pick');
    this.hover = this.el('div', 'box hover');
    this.hover.style.display = 'none';
    const click = (cls, fn) => root.querySelector(cls).addEventListener('click', (e) => e.isTrusted && fn());
    click('.undo', () => this.undo());
    click('.cancel', () => this.end({ cancel: 'the user pressed Cancel' }));
    click('.done', () => this.done());
    this.layer.addEventListener('mousedown', (e) => this.down(e));
    this.layer.addEventListener('mousemove', (e) => this.move(e));
    this.layer.addEventListener('mouseup', (e) => this.up(e));
    this.on(window, 'keydown', (e) => this.key(e), true);
    this.on(window, 'focusin', (e) => this.guardFocus(e), true);
    this.onMessage = (msg, sender) => this.message(msg, sender);
    chrome.runtime.onMessage.addListener(this.onMessage);
    this.listeners.push(() => chrome.runtime.onMessage.removeListener(this.onMessage));
    this.on(window, 'scroll', () => this.layout(), true);
    this.on(window, 'resize', () => this.layout());
    this.timer = setTimeout(() => this.end({}), LIFETIME_MS);
    // Shown once the first note frame has loaded (or after 3 s), so
    // that what the user types after drawing the first box goes into it.
    this.host.style.setProperty('visibility', 'hidden', 'important');
    (document.body || document.documentElement).appendChild(this.host);
    this.spare = this.noteFrame();
    const show = () => { clearTimeout(this.showTimer); this.host.style.removeProperty('visibility'); };
    this.showTimer = setTimeout(show, 3000);
    this.spare.addEventListener('load', show, { once: true });
    this.update();
  }

  /**
   * noteFrame makes the frame of the next note, off screen, so that it
   * has loaded by the time the user has drawn a box: typing goes into it
   * at once. Its key (the URL fragment) names it to the worker.
   */
  noteFrame() {
    const key = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const frame = document.createElement('iframe');
    frame.className = 'note spare';
    frame.setAttribute('tabindex', '-1');
    frame.src = chrome.runtime.getURL('overlay/note.html') + '#' + key;
    frame.dataset.key = key;
    frame.addEventListener('load', () => {
      this.loaded.add(frame);
      const it = this.items.find((x) => x.frame === frame);
      if (it?.held.length) this.forward(it);
      if (this.items.at(-1)?.frame === frame) frame.focus();
    }, { once: true });
    this.root.appendChild(frame);
    return frame;
  }

  /**
   * message takes a trusted key the user pressed in a note frame, or the
   * keys a note frame got after the box of note msg.key was begun,
   * relayed by the worker.
   */
  message(msg, sender) {
    if (sender.id !== chrome.runtime.id || sender.tab) return;
    if (msg?.gasoline === 'draw-late') {
      const it = this.items.find((x) => x.key === msg.key);
      if (!it) return;
      it.held.push(...L.timedKeys(msg.keys).slice(0, Math.max(0, L.MAX_NOTE - it.held.length)));
      if (this.loaded.has(it.frame)) this.forward(it);
      return;
    }
    if (msg?.gasoline !== 'draw-key' || !this.items.some((it) => it.key === msg.key)) return;
    if (msg.action === 'done') this.done();
    else if (msg.action === 'cancel') this.end({ cancel: 'the user pressed Esc' });
  }

  /**
   * guardFocus gives the focus back to the note the user was typing in
   * when the page's script takes it: nothing of the page's can take focus
   * from the user while the overlay covers it, so keys never go to the page.
   */
  guardFocus(e) {
    if (e.composedPath().includes(this.host)) {
      const a = this.root.activeElement;
      if (a?.localName === 'iframe') this.typing = a;
      return;
    }
    const note = this.items.find((it) => it.frame === this.typing) ?? this.items.at(-1);
    if (note) note.frame.focus();
  }

  el(tag, cls) {
    const e = document.createElement(tag);
    e.className = cls;
    this.root.appendChild(e);
    return e;
  }

  on(target, type, fn, capture = false) {
    target.addEventListener(type, fn, capture);
    this.listeners.push(() => target.removeEventListener(type, fn, capture));
  }

  page(e) { return { x: e.clientX + scrollX, y: e.clientY + scrollY }; }

  /** under is the page's element at viewport point (x, y), looking through the overlay. */
  under(x, y) {
    this.host.style.pointerEvents = 'none';
    try {
      const el = document.elementFromPoint(x, y);
      return el && el !== this.host ? el : null;
    } finally {
      this.host.style.pointerEvents = '';
    }
  }

  full() { return this.items.length >= Math.min(this.p.max_items || L.MAX_ITEMS, L.MAX_ITEMS); }

  down(e) {
    if (!e.isTrusted || e.button !== 0 || this.full()) return;
    e.preventDefault();
    // When this box was begun, on the clock every frame shares: a key
    // typed since then is the new note's, wherever it landed.
    this.begun = performance.timeOrigin + e.timeStamp;
    // The focus leaves the last note now, not when the next one takes
    // it: keys typed at once after this box then reach this document
    // (key() hands them to the new note), never the last note.
    this.layer.focus({ preventScroll: true });
    if (this.p.mode === 'pick') return;
    this.start = this.page(e);
    this.drag = this.el('div', 'box');
  }

  move(e) {
    if (!e.isTrusted) return;
    if (this.p.mode === 'pick') {
      const el = this.under(e.clientX, e.clientY);
      if (!el) { this.hover.style.display = 'none'; return; }
      const r = el.getBoundingClientRect();
      Object.assign(this.hover.style, { display: 'block', left: r.left + 'px', top: r.top + 'px', width: r.width + 'px', height: r.height + 'px' });
      return;
    }
    if (!this.start) return;
    const r = L.rectFrom(this.start, this.page(e)) || { ...this.start, width: 0, height: 0 };
    this.place(this.drag, r);
  }

  up(e) {
    if (!e.isTrusted || e.button !== 0) return;
    if (this.p.mode === 'pick') {
      if (this.full()) return;
      const el = this.under(e.clientX, e.clientY);
      if (el) this.add(L.toPage(el.getBoundingClientRect(), scrollX, scrollY), el);
      return;
    }
    if (!this.start) return;
    const r = L.rectFrom(this.start, this.page(e));
    this.start = null;
    const box = this.drag;
    this.drag = null;
    box.remove();
    if (!r) return;
    const c = L.center(r, scrollX, scrollY);
    this.add(r, this.under(c.x, c.y));
  }

  add(rect, el) {
    const element = L.describeElement(el, {
      core, refFor: globalThis.gasolineRuntime?.refFor ?? null, style: el ? getComputedStyle(el) : null,
    });
    const box = this.el('div', 'box');
    const n = this.el('span', 'n');
    box.appendChild(n);
    const frame = this.spare;
    frame.classList.remove('spare');
    frame.removeAttribute('tabindex');
    const item = { rect, element, box, frame, key: frame.dataset.key, label: n, held: [] };
    this.items.push(item);
    // The notes' frames hand back what they got since the box was begun.
    chrome.runtime.sendMessage({
      gasoline: 'draw-new', to: item.key, at: this.begun ?? performance.timeOrigin + performance.now(),
      notes: this.items.slice(0, -1).map((it) => it.key),
    }).catch(() => {});
    this.spare = this.noteFrame();
    this.layout();
    this.update();
    // A frame still loading would swallow what is typed (its document is
    // not note.js's yet): until it has loaded (noteFrame focuses it then),
    // the focus stays here and key() keeps the keys for it.
    this.typing = frame;
    if (this.loaded.has(frame)) frame.focus();
  }

  place(box, r) {
    Object.assign(box.style, { left: r.x - scrollX + 'px', top: r.y - scrollY + 'px', width: r.width + 'px', height: r.height + 'px' });
  }

  layout() {
    this.items.forEach((it, i) => {
      this.place(it.box, it.rect);
      it.label.textContent = String(i + 1);
      const top = Math.min(it.rect.y - scrollY + it.rect.height + 4, innerHeight - 30);
      Object.assign(it.frame.style, { left: Math.max(0, Math.min(it.rect.x - scrollX, innerWidth - 230)) + 'px', top: Math.max(0, top) + 'px' });
    });
    this.hover.style.display = 'none';
  }

  update() {
    const max = Math.min(this.p.max_items || L.MAX_ITEMS, L.MAX_ITEMS);
    this.count.textContent = `${this.items.length}/${max}`;
  }

  undo() {
    const it = this.items.pop();
    if (!it) return;
    it.box.remove();
    it.frame.remove();
    this.layout();
    this.update();
  }

  key(e) {
    if (!e.isTrusted || !this.host.isConnected) return;
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopImmediatePropagation();
      this.end({ cancel: 'the user pressed Esc' });
      return;
    }
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      e.stopImmediatePropagation();
      this.done();
      return;
    }
    if ((e.ctrlKey || e.metaKey) && e.key === 'z') {
      e.preventDefault();
      this.undo();
      return;
    }
    // Typing that reached this document: the note's, never the page's
    // (Space on a focused toolbar button still presses it).
    if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing || ([...e.key].length !== 1 && e.key !== 'Backspace')) return;
    if (e.key === ' ' && this.root.activeElement?.localName === 'button') return;
    e.preventDefault();
    e.stopImmediatePropagation();
    const it = this.items.find((x) => x.frame === this.typing) ?? this.items.at(-1);
    if (!it || it.held.length >= L.MAX_NOTE) return; // no note yet: typed at nothing
    it.held.push({ k: e.key, t: performance.timeOrigin + e.timeStamp });
    if (!this.loaded.has(it.frame)) return;
    this.forward(it);
    it.frame.focus();
  }

  /** forward hands the keys held for item's note (typed here, or handed back by other notes) to its frame. */
  forward(it) {
    const keys = it.held.splice(0);
    chrome.runtime.sendMessage({ gasoline: 'draw-type', key: it.key, keys }).catch(() => {});
  }

  async done() {
    if (this.sending) return;
    this.sending = true;
    const post = L.donePost({
      id: this.p.correlation_id, url: location.href, title: document.title,
      viewport: { width: innerWidth, height: innerHeight, scroll_x: scrollX, scroll_y: scrollY },
      items: this.items.map((it) => ({ note_key: it.key, rect: it.rect, element: it.element })),
      maxItems: this.p.max_items,
    });
    // Out of the way of the screenshot the worker crops each annotation from.
    this.host.style.setProperty('visibility', 'hidden', 'important');
    await painted();
    const answer = await send(post);
    this.host.style.removeProperty('visibility');
    this.sending = false;
    if (!answer?.ok) {
      this.toast(`Not sent: ${answer?.error || 'the extension did not answer'}. Press Done to try again, or Esc.`, true);
      return;
    }
    this.toast('Sent to the agent ✓');
    this.closeAfter(1500);
  }

  toast(text, err = false) {
    this.note?.remove();
    this.note = this.el('div', err ? 'toast err' : 'toast');
    this.note.textContent = text;
  }

  closeAfter(ms) {
    for (const b of this.root.querySelectorAll('button')) b.disabled = true;
    this.layer.style.pointerEvents = 'none';
    setTimeout(() => this.end({}), ms);
  }

  /** end removes the overlay; with cancel, it first tells the daemon why. */
  end({ cancel }) {
    if (this.ended) return;
    this.ended = true;
    if (cancel) send(L.cancelPost(this.p.correlation_id, cancel));
    clearTimeout(this.timer);
    clearTimeout(this.showTimer);
    for (const off of this.listeners) off();
    this.host.remove();
    if (current === this) current = null;
  }
}

/** painted resolves once a frame has been drawn since the call (or after 200 ms, if frames are throttled). */
function painted() {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, 200);
    requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => { clearTimeout(t); resolve(); }, 30)));
  });
}

function send(post) {
  return chrome.runtime.sendMessage({ gasoline: 'draw', post })
    .catch((err) => ({ ok: false, error: String(err?.message || err) }));
}
