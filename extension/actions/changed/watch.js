// Watching what an action changes in the document (actions/changed.js): a
// MutationObserver from just before the action, read once it has settled.
import { engine } from '../../dom/engine.js';
import { FULL_ITEM_CHARS, line, norm, summarize } from './summary.js';

/** MAX_NODES is how many added or removed nodes watch looks at, per action. */
const MAX_NODES = 4000;

/** CONTROLS selects the elements said as controls (with their refs) when they appear or change state. */
const CONTROLS = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[role=button],[role=link],[role=checkbox],[role=tab],[role=menuitem],[role=option],[role=switch],[role=textbox],[contenteditable=""],[contenteditable=true]';

// STATES are the attributes that say a control's state, with the word
// for their value (on, off): an attribute changed by the action adds the
// word when the state changed.
const STATES = {
  'aria-expanded': (v) => (v === 'true' ? 'expanded' : 'collapsed'),
  'aria-checked': (v) => (v === 'true' ? 'checked' : v === 'mixed' ? 'mixed' : 'unchecked'),
  'aria-pressed': (v) => (v === 'true' ? 'pressed' : 'not pressed'),
  'aria-selected': (v) => (v === 'true' ? 'selected' : 'not selected'),
  'aria-disabled': (v) => (v === 'true' ? 'disabled' : 'enabled'),
  disabled: (v) => (v === null ? 'enabled' : 'disabled'),
};
// SHOWING are the attributes that show or hide an element whole: one the
// action toggled makes it appear or go away.
const SHOWING = ['hidden', 'open'];

/** visibleText is the text an element shows, in one line (innerText: what is rendered). */
function visibleText(el) {
  if (el.nodeType === Node.TEXT_NODE) return el.parentElement && shown(el.parentElement) ? norm(el.data) : '';
  if (el.nodeType !== Node.ELEMENT_NODE || /^(script|style|template|noscript)$/i.test(el.localName)) return '';
  if (!shown(el)) return '';
  const all = el.textContent;
  // A large subtree (a page section rendered at once) is said by its first
  // words: innerText would lay out all of it for an item of ITEM_CHARS.
  return norm(all.length > 2000 ? all.slice(0, 200) : el.innerText);
}

/** shown reports whether el is rendered (checkVisibility, where the browser has it). */
function shown(el) {
  return typeof el.checkVisibility === 'function' ? el.checkVisibility() : true;
}

/** valueOf is a form control's value, or undefined (a secret field's is never read: engine.isSecret). */
function valueOf(el) {
  if (!el || !('value' in el) || !/^(input|textarea|select)$/i.test(el.localName)) return undefined;
  if (engine.isSecret(el)) return undefined;
  if (el.type === 'checkbox' || el.type === 'radio') return undefined; // checked is the state, said by the action's result
  return String(el.value);
}

/** blocks reports whether el holds only elements (and blank text): its children say all it shows. */
function blocks(el) {
  for (const c of el.childNodes) if (c.nodeType === Node.TEXT_NODE ? c.data.trim() : c.nodeType !== Node.ELEMENT_NODE && c.nodeType !== Node.COMMENT_NODE) return false;
  return true;
}

/** deepActive is the focused element, inside open shadow roots too, or null for the body. */
function deepActive() {
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  return a === document.body || a === document.documentElement ? null : a;
}

/**
 * watch records what changes in the document from now on: nodes added
 * and removed (the text of a removed one read as it goes), text changed,
 * the state attributes (STATES: said of controls and elements with a
 * role) and the showing ones (SHOWING) changed,
 * with their first value, and, at stop, the title, the focus and the
 * value of target (else of the field focused now) against what they were
 * now. A class or style that hides or shows an element is not seen (it
 * would take every element's visibility before the action).
 */
export function watch(target) {
  const field = target || deepActive(); // the field acted on, or typed into (key_press without a target)
  const before = { title: document.title, active: deepActive(), value: valueOf(field) };
  // rec is what the observer saw: added nodes, the text of removed ones,
  // attrs (element → {attribute: its value before the action}), and how
  // many nodes it looked at.
  const rec = { added: new Set(), removed: [], attrs: new Map(), looked: 0 };
  const mo = new MutationObserver((records) => collect(rec, records));
  mo.observe(document, { childList: true, subtree: true, characterData: true, attributes: true, attributeOldValue: true, attributeFilter: [...Object.keys(STATES), ...SHOWING] });
  return {
    cancel() {
      mo.disconnect();
    },
    stop(brief) {
      collect(rec, mo.takeRecords());
      mo.disconnect();
      return summarize(seenOf(rec, field, before, brief));
    },
  };
}

/** collect adds mutation records to rec, up to MAX_NODES nodes looked at. */
function collect(rec, records) {
  const { added, removed, attrs } = rec;
  for (const r of records) {
    if (rec.looked >= MAX_NODES) return;
    if (r.type === 'attributes') {
      rec.looked++;
      const was = attrs.get(r.target) || attrs.set(r.target, {}).get(r.target);
      if (!Object.hasOwn(was, r.attributeName)) was[r.attributeName] = r.oldValue;
      continue;
    }
    if (r.type === 'characterData') {
      const el = r.target.parentElement;
      if (el) added.add(el);
      rec.looked++;
      continue;
    }
    for (const n of r.removedNodes) {
      rec.looked++;
      if (added.delete(n)) continue; // came and went during the action
      const text = n.nodeType === Node.TEXT_NODE ? norm(n.data) : n.nodeType === Node.ELEMENT_NODE && !/^(script|style|template)$/i.test(n.localName) ? norm(n.textContent) : '';
      if (text) removed.push({ text });
    }
    for (const n of r.addedNodes) {
      rec.looked++;
      added.add(n);
    }
  }
}

/**
 * seenOf is what summarize takes (see the header), from what rec holds
 * at stop and the title, focus and field's value now against before.
 */
function seenOf(rec, field, before, brief) {
  const appeared = [];
  const seenEls = new Set();
  let parts = 0;
  const describe = (n) => {
    // A large block of blocks (a list or table rendered at once) is
    // said block by block, so the whole list holds each row.
    if (n.nodeType === Node.ELEMENT_NODE && n.children.length > 1 && parts < MAX_NODES && n.textContent.length > FULL_ITEM_CHARS && blocks(n) && shown(n)) {
      parts += n.children.length;
      for (const c of n.children) describe(c);
      return;
    }
    const text = visibleText(n);
    if (text) appeared.push({ text });
    if (n.nodeType !== Node.ELEMENT_NODE || !shown(n)) return;
    const controls = [...(n.matches(CONTROLS) ? [n] : []), ...n.querySelectorAll(CONTROLS)].slice(0, 4);
    for (const c of controls) {
      if (seenEls.has(c) || !shown(c)) continue;
      seenEls.add(c);
      const b = brief(c);
      appeared.push({ role: b.role, name: b.name, ref: b.ref });
    }
  };
  for (const n of rec.added) {
    if (n.isConnected && !inAdded(rec.added, n, false)) describe(n);
  }
  const state = statesChanged(rec, brief, describe);
  const seen = { appeared, removed: rec.removed, state, title: { before: before.title, after: document.title } };
  const active = deepActive();
  if (active !== before.active) {
    const b = active ? brief(active) : null;
    seen.focus = { before: null, after: b ? line(b) : '' };
  }
  if (field?.isConnected) {
    const now = valueOf(field);
    if (now !== undefined && now !== before.value) seen.value = { before: before.value, after: now, ref: brief(field).ref };
  }
  return seen;
}

/** inAdded reports whether n is (with self), or is inside, a node the action added (said with it). */
function inAdded(added, n, self) {
  for (let p = self ? n : n.parentNode; p; p = p.parentNode) if (added.has(p)) return true;
  return false;
}

/**
 * statesChanged lists the state items of the elements whose attributes
 * changed (STATES); one that a SHOWING attribute showed is described
 * (describe adds it to what appeared), one it hid goes to rec.removed.
 */
function statesChanged(rec, brief, describe) {
  const state = [];
  for (const [el, was] of rec.attrs) {
    if (!el.isConnected || inAdded(rec.added, el, true)) continue;
    const words = [];
    for (const [name, old] of Object.entries(was)) {
      const now = el.getAttribute(name);
      if (SHOWING.includes(name)) {
        if ((old === null) === (now === null)) continue;
        const on = name === 'open' ? now !== null : now === null;
        const text = on ? '' : norm(el.textContent);
        if (on && shown(el)) describe(el);
        else if (text) rec.removed.push({ text });
      } else if (STATES[name](old) !== STATES[name](now)) {
        words.push(STATES[name](now));
      }
    }
    if (words.length && (el.matches(CONTROLS) || el.hasAttribute('role')) && shown(el)) {
      const b = brief(el);
      state.push({ role: b.role, name: b.name, ref: b.ref, states: words });
    }
  }
  return state;
}
