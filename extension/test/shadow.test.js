// Shadow DOM in the engine and the outline (dom/engine.js, actions/core.js,
// actions/combobox.js): names from labels and aria-labelledby inside a
// root, a <label> of a custom element naming its inner control, slotted
// text, closed roots through chrome.dom, and what covers a target.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h, fakeDocument, view, find, loadCore, closedRoots } from './fakedom.js';

const core = await loadCore();
await import('../actions/combobox.js');
const combobox = globalThis.gasolineCombobox;

/** outlineOf is the outline of doc with refs e1, e2... */
function outlineOf(doc) {
  let n = 0;
  const refs = new Map();
  const refFor = (el) => refs.get(el) || (refs.set(el, `e${++n}`), refs.get(el));
  return core.outline(doc, { refFor, view }).lines.join('\n');
}

// signUp is a Shoelace-like form: the controls and their labels live in
// each custom element's shadow root, their text is slotted.
function signUp() {
  return fakeDocument(h('form', {},
    h('sl-input', { $shadow: [h('label', { id: 'label', for: 'input' }, h('slot', { name: 'label' }, 'Name')),
      h('div', {}, h('input', { id: 'input', required: '' }))] }),
    h('sl-checkbox', { $shadow: [h('label', { part: 'base' }, h('input', { type: 'checkbox', required: '' }),
      h('span', { class: 'checkbox__control' }, h('sl-icon', { $shadow: [h('svg', { class: 'checkbox__icon' })] })),
      h('div', {}, h('slot', {}, 'I accept the terms')))] }),
    h('sl-select', { $shadow: [h('label', { id: 'label' }, 'Plan'),
      h('input', { role: 'combobox', readonly: '', 'aria-labelledby': 'label', 'aria-controls': 'listbox' }),
      h('div', { id: 'listbox', role: 'listbox' },
        h('sl-option', { role: 'option', value: 'free' }, 'Free'), h('sl-option', { role: 'option', value: 'team' }, 'Team'))] }),
    h('label', {}, h('md-checkbox', { $shadow: [h('input', { type: 'checkbox' }), h('div', { class: 'background' })] }), ' Send news'),
    h('sl-button', { $shadow: [h('button', {}, h('span', {}, h('slot', {}, 'Sign up')))] })));
}

test('controls in shadow roots are named as the page shows them', () => {
  const out = outlineOf(signUp());
  for (const want of [`e1 textbox 'Name' required`, `e2 checkbox 'I accept the terms' required`, `e3 combobox 'Plan'`,
    `checkbox 'Send news'`, `button 'Sign up'`]) {
    assert.ok(out.includes(want), `outline lacks ${want}:\n${out}`);
  }
});

test('aria-labelledby resolves in its own root, not in the document', () => {
  const doc = fakeDocument(h('h2', { id: 'label' }, 'Document heading'),
    h('x-select', { $shadow: [h('span', { id: 'label' }, 'Plan'), h('div', { role: 'combobox', 'aria-labelledby': 'label' })] }));
  const box = find(doc, (e) => e.getAttribute('role') === 'combobox');
  assert.equal(core.nameOf(box, view), 'Plan');
});

test('a label of a custom element stands for its inner control', () => {
  const doc = signUp();
  const label = find(doc, (e) => e.localName === 'label' && e.parentNode.localName === 'form');
  const inner = find(doc, (e) => e.localName === 'input' && e.parentNode.host?.localName === 'md-checkbox');
  assert.equal(core.controlOf(label), inner);
  const byFor = fakeDocument(h('label', { for: 'news' }, 'News'), h('md-switch', { id: 'news', $shadow: [h('input', { type: 'checkbox', role: 'switch' })] }));
  const sw = find(byFor, (e) => e.getAttribute('role') === 'switch');
  assert.equal(core.nameOf(sw, view), 'News');
  assert.equal(core.controlOf(find(byFor, (e) => e.localName === 'label')), sw);
});

test('a target is not covered by its own host nor by the parts of its widget', () => {
  const doc = signUp();
  const cb = find(doc, (e) => e.localName === 'input' && e.getAttribute('type') === 'checkbox');
  const paint = find(doc, (e) => e.getAttribute('class') === 'checkbox__control');
  const button = find(doc, (e) => e.localName === 'button');
  assert.equal(core.partOf(cb, paint), true, 'the painted box over a hidden input');
  assert.equal(core.partOf(cb, find(doc, (e) => e.localName === 'svg')), true, 'an icon component over it');
  assert.equal(core.partOf(button, button.parentNode.host), true, 'the host, hit over slotted text');
  assert.equal(core.partOf(button, paint), false, 'another widget');
  const form = doc.childNodes[0];
  assert.equal(core.partOf(button, form), false, 'an ancestor that is no shadow host');
  // A whole app in one root is no widget: what covers a control there covers it.
  const app = fakeDocument(h('my-app', { $shadow: [h('div', { class: 'banner' }, 'Cookies'),
    ...['A', 'B', 'C', 'D'].map((n) => h('button', {}, n))] }));
  assert.equal(core.partOf(find(app, (e) => e.localName === 'button'), find(app, (e) => e.getAttribute('class') === 'banner')), false);
});

test('closed shadow roots are read where chrome.dom can open them', async (t) => {
  const doc = fakeDocument(h('x-field', { $closed: [h('label', { for: 'i' }, 'Secret door'), h('input', { id: 'i' })] }));
  assert.equal(outlineOf(doc), '', 'without chrome.dom a closed root is not read');
  globalThis.chrome = { dom: closedRoots };
  t.after(() => delete globalThis.chrome);
  assert.match(outlineOf(doc), /textbox 'Secret door'/);
  assert.equal(core.resolve({ role: 'textbox', name: 'Secret door' }, doc, view).length, 1);
});

test('a custom select lists its options, slotted and in shadow trees, with their values', () => {
  const doc = signUp();
  const box = find(doc, (e) => e.getAttribute('role') === 'combobox');
  assert.equal(combobox.isCustomSelect(box), true);
  const list = combobox.listOf(box);
  assert.equal(list.getAttribute('role'), 'listbox');
  assert.deepEqual(combobox.optionsOf(list, view).map((o) => [o.name, o.value]), [['Free', 'free'], ['Team', 'team']]);
  const md = fakeDocument(h('md-filled-select', { $shadow: [h('div', { role: 'combobox', 'aria-controls': 'listbox' }),
    h('md-menu', { id: 'listbox', role: 'listbox', $shadow: [h('slot', {},
      h('md-select-option', { value: 'team', $shadow: [h('li', { role: 'option' }, 'Team')] }))] })] }));
  const opts = combobox.optionsOf(combobox.listOf(find(md, (e) => e.getAttribute('role') === 'combobox')), view);
  assert.deepEqual(opts.map((o) => [o.name, o.value]), [['Team', 'team']]);
  assert.equal(combobox.isCustomSelect(find(md, (e) => e.localName === 'li')), false);
});
