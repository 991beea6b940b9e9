// Choosing the options of a custom select: a combobox (role combobox, or a
// button with aria-haspopup listbox) whose options are elements of role
// option in the listbox it controls, such as Shoelace's sl-select,
// Material Web's md-filled-select or an ARIA combobox of any framework.
// The select action does what a user does: click the combobox open, wait
// for the option a value names (its accessible name or its value
// attribute) to show, click it, and see that it was taken.
//
// An ES module of the DOM runtime (bundled into dist/runtime.js by
// scripts/bundle): importing it sets globalThis.gasolineCombobox, unless a
// copy loaded earlier in this world set it first, and exports that one
// object (combobox). The runtime (runtime/text.js, runtime/verbs/fill_form.js)
// calls it with its own clicks and waits (io), so this file holds no event code.
import { engine } from '../dom/engine.js';

const { roleOf, nameOf, walk, norm, clip, attr, isElement } = engine;

/** OPEN_MS is how long a list may take to open and show an option (menus animate). */
const OPEN_MS = 2500;

/** TAKEN_MS is how long a clicked option may take to show it was taken. */
const TAKEN_MS = 1500;

/** isCustomSelect reports an element select drives as a custom select. */
const isCustomSelect = (el) => {
  const r = roleOf(el);
  return r === 'combobox' || r === 'listbox' || (r === 'button' && attr(el, 'aria-haspopup') === 'listbox');
};

/** rootOf is the document or shadow root n is in. */
const rootOf = (n) => {
  while (n.parentNode) n = n.parentNode;
  return n;
};

/**
 * listOf is the listbox el controls: el itself when it is one, the
 * element its aria-controls or aria-owns names in its tree, else the
 * first listbox in the component el is in (its shadow host's tree); null
 * for none.
 */
function listOf(el) {
  if (roleOf(el) === 'listbox') return el;
  const root = rootOf(el);
  for (const a of ['aria-controls', 'aria-owns']) {
    for (const id of norm(attr(el, a)).split(' ').filter(Boolean)) {
      const t = typeof root.getElementById === 'function' ? root.getElementById(id) : null;
      if (t) return t;
    }
  }
  let list = null;
  walk(root.host || el.parentNode || el, (c) => {
    if (list) return false;
    if (roleOf(c) === 'listbox') list = c;
  });
  return list;
}

// valueAttr is an option's value attribute (a custom element's value
// property lives in the page's world, out of this one's sight).
const valueAttr = (el) => attr(el, 'value') ?? (typeof el.value === 'string' ? el.value : null);

/** optionsOf lists the options under list in the composed tree (slotted ones included), with their names and values. */
function optionsOf(list, view) {
  const out = [];
  walk(list, (c) => {
    if (roleOf(c) !== 'option') return;
    const host = rootOf(c).host;
    const value = valueAttr(c) ?? (host ? valueAttr(host) : null) ?? '';
    out.push({ el: c, name: nameOf(c, null, 'option'), value, shown: view.visible(c) });
    return false;
  });
  return out;
}

/**
 * over reports whether hit is opt or inside it in the flat tree (slotted
 * content included), or inside the custom element opt renders (the role
 * on md-select-option's inner <li>).
 */
function over(opt, hit) {
  const host = rootOf(opt).host;
  for (let n = hit, i = 0; n && i < 64; n = n.assignedSlot || n.parentNode || n.host, i++) {
    if (n === opt || n === host) return true;
  }
  return false;
}

/** match finds the option want names: its value, else its name exactly, else a name holding it. */
function match(opts, want) {
  const w = norm(want).toLowerCase();
  return opts.find((o) => o.value === want) || opts.find((o) => norm(o.name).toLowerCase() === w) ||
    opts.find((o) => w && norm(o.name).toLowerCase().includes(w)) || null;
}

/** taken reports an option that shows it was chosen: aria-selected, the combobox showing its name, or its list closed. */
function taken(el, o, list, view) {
  const sel = attr(o.el, 'aria-selected') ?? attr(rootOf(o.el).host || o.el, 'aria-selected');
  if (sel === 'true') return true;
  const shown = norm(el.localName === 'input' ? el.value : engine.textOf(el, view));
  if (o.name && shown.toLowerCase().includes(norm(o.name).toLowerCase())) return true;
  return !list.isConnected || !view.visible(list) || !view.visible(o.el);
}

/**
 * choose selects in the custom select el the options values name, one
 * after the other (reopening the list for each), and resolves to
 * {selected: their values, else names}. io is the runtime's: click(el),
 * shows(el), hitAt(x, y), frame() (the next frame), fail(reason, message) (throws), view and
 * secret (an error names no value sent then).
 */
async function choose(el, values, io) {
  const chosen = [];
  for (const want of values.map(String)) {
    const deadline = performance.now() + OPEN_MS;
    let clicked = false;
    let list = null;
    let opts = [];
    let o = null;
    let box = '';
    for (;;) {
      list = listOf(el);
      opts = list ? optionsOf(list, io.view) : [];
      o = match(opts, want);
      if (o && io.shows(o.el)) {
        // Ready once it stopped moving (a menu animates open) and a click
        // at its centre lands on it, not on what it is still sliding over.
        const r = o.el.getBoundingClientRect();
        const now = `${r.left},${r.top},${r.width},${r.height}`;
        if (now === box && over(o.el, io.hitAt(r.left + r.width / 2, r.top + r.height / 2))) break;
        box = now;
      }
      if (!clicked) {
        io.click(el);
        clicked = true;
      } else if (performance.now() >= deadline) {
        const which = io.secret ? 'the value or label sent' : `the value or label ${JSON.stringify(clip(want, 60))}`;
        if (!o) {
          io.fail('bad_option', `no option of ${engine.describe(el, io.view)} has ${which}` +
            (opts.length ? `; its options: ${opts.slice(0, 15).map((p) => `${JSON.stringify(p.name)}${p.value ? ` (${JSON.stringify(p.value)})` : ''}`).join(', ')}` :
              '; clicking it showed no list of options (role option): click it open and click the option instead'));
        }
        io.fail('not_visible', `the option ${io.secret ? '' : JSON.stringify(o.name) + ' '}of ${engine.describe(el, io.view)} did not show after clicking it open; click it open, then click the option`);
      }
      await io.frame();
    }
    if (attr(o.el, 'aria-disabled') === 'true') {
      io.fail('disabled', io.secret ? 'the option chosen is disabled; choose another' : `the option ${JSON.stringify(o.name)} is disabled; choose another`);
    }
    o.el.scrollIntoView?.({ block: 'nearest', behavior: 'instant' });
    io.click(o.el);
    const until = performance.now() + TAKEN_MS;
    while (!taken(el, o, list, io.view)) {
      if (performance.now() >= until) {
        io.fail('not_editable', `clicking the option ${io.secret ? '' : JSON.stringify(o.name) + ' '}of ${engine.describe(el, io.view)} did not select it (it is not marked selected, the list stayed open); look at the page with analyze({what:"dom"})`);
      }
      await io.frame();
    }
    chosen.push(o.value || o.name);
  }
  return { selected: chosen };
}

/** combobox is this world's gasolineCombobox: the first copy loaded here. */
export const combobox = globalThis.gasolineCombobox ??= Object.freeze({ isCustomSelect, listOf, optionsOf, choose, isElement });
