// Unit tests of dom/early.js: what the recorder says of an element before
// the DOM engine arrives must be the engine's answer wherever early.js
// gives one (CSS path, test id, secrets), on a fake DOM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h, fakeDocument, view } from './fakedom.js';

await import('../dom/engine.js');
await import('../dom/early.js');
const engine = globalThis.gasolineEngine;
const early = globalThis.gasolineEarlyEngine;

function docs() {
  return [
    fakeDocument(h('html', {}, h('body', {},
      h('main', { id: 'app' },
        h('button', { 'data-testid': 'buy' }, 'Buy'),
        h('button', { 'data-testid': 'dup' }, 'Add'),
        h('button', { 'data-testid': 'dup' }, 'Remove'),
        h('button', {}, 'Checkout'),
        h('label', { for: 'email' }, 'Email'),
        h('input', { id: 'email', type: 'email', autocomplete: 'email' }),
        h('input', { type: 'password', id: ':r1:' }),
        h('ul', {}, h('li', {}, h('span', {}, 'one')), h('li', {}, h('span', {}, 'two'))),
        h('button', { 'data-cy': 'cy-go' }, 'Go'),
        h('my-card', { $shadow: [h('div', {}, h('button', { 'data-testid': 'buy' }, 'In'), h('a', { 'data-qa': 'q' }, 'A'))] }))))),
    fakeDocument(h('html', {}, h('body', {}, h('p', { id: 'dup' }), h('p', { id: 'dup' }), h('div', { id: '123abc' }, h('i', {}))))),
  ];
}

/** withQuery gives a fake document the querySelectorAll the browser path of early.js uses ('*' and [name="value"]). */
function withQuery(doc) {
  const give = (root) => {
    root.querySelectorAll = (sel) => {
      const m = /^\[([\w-]+)="(.*)"\]$/.exec(sel);
      const out = [];
      const visit = (n) => {
        for (const c of n.childNodes) {
          if (c.nodeType !== 1) continue;
          if (!m || c.getAttribute(m[1]) === m[2].replace(/\\(.)/g, '$1')) out.push(c);
          visit(c);
        }
      };
      visit(root);
      return out;
    };
    for (const el of doc.all()) if (el.shadowRoot && !el.shadowRoot.querySelectorAll) give(el.shadowRoot);
  };
  give(doc);
  return doc;
}

test('early.js gives the engine\'s CSS path, and its test id or CSS locator', () => {
  for (const [i, doc] of docs().entries()) {
    for (const el of doc.all()) {
      const what = `doc ${i} <${el.localName}> ${el.textContent}`;
      assert.equal(early.cssOf(el), engine.cssOf(el), what);
      const want = engine.locatorOf(el, view);
      const got = early.locatorOf(el, view);
      if (want.by === 'testid' || want.by === 'css') assert.deepEqual(got, want, what);
      else assert.deepEqual(got, { by: 'css', selector: engine.cssOf(el) }, what);
    }
  }
});

test('early.js counts test ids as the engine does with the browser\'s querySelectorAll, shadow roots included', () => {
  const doc = withQuery(docs()[0]);
  const byText = (t) => doc.all().find((e) => e.textContent === t);
  assert.deepEqual(early.locatorOf(byText('Buy')), { by: 'css', selector: '#app > button:nth-of-type(1)' }, 'a test id repeated in a shadow root is not unique');
  assert.deepEqual(early.locatorOf(byText('Go')), { by: 'testid', attr: 'data-cy', value: 'cy-go' });
  assert.deepEqual(early.locatorOf(byText('A')), { by: 'testid', attr: 'data-qa', value: 'q' });
  assert.equal(early.cssOf(doc.all().find((e) => e.id === 'email')), '#email');
});

test('early.js keeps the engine\'s secrets and text rules, and says no role or name', () => {
  for (const attrs of [{ type: 'password' }, { autocomplete: 'cc-number' }, { autocomplete: 'one-time-code' }, { type: 'text' }, { autocomplete: 'email' }]) {
    assert.equal(early.isSecret(h('input', attrs)), engine.isSecret(h('input', attrs)), JSON.stringify(attrs));
  }
  assert.equal(early.isSecret(null), false);
  for (const s of ['  a \n b ', '', null, 'x'.repeat(300)]) assert.equal(early.norm(s), engine.norm(s));
  assert.equal(early.clip('abcdef', 4), engine.clip('abcdef', 4));
  assert.equal(early.roleOf(h('button', {}, 'Go')), '');
  assert.equal(early.nameOf(h('button', {}, 'Go')), '');
});

test('a CSS path over 400 characters keeps its shortest unique tail, in both engines, or is none', () => {
  const nest = (depth, leaf) => {
    let n = leaf;
    for (let i = 0; i < depth; i++) n = h('div', {}, n);
    return n;
  };
  // 120 nested divs: the whole path is over 700 characters.
  const doc = fakeDocument(h('html', {}, h('body', {},
    nest(120, h('p', {}, h('b', {}, 'one'), h('b', {}, 'two'), h('em', {}, 'alone'))),
    h('section', {}, nest(80, h('span', {}, 'left'))),
    h('section', {}, nest(80, h('span', {}, 'right'))))));
  const byText = (t) => doc.all().find((e) => e.textContent === t && e.childNodes.every((c) => c.nodeType === 3));
  const cases = [
    ['alone', 'em'], // the one em: its own step is enough
    ['two', 'b:nth-of-type(2)'],
    ['one', 'b:nth-of-type(1)'],
    // Two identical 80-deep chains differ only at section:nth-of-type(k),
    // past the cap: no CSS locator rather than one naming another element.
    ['left', ''],
    ['right', ''],
  ];
  for (const [text, want] of cases) {
    const el = byText(text);
    assert.equal(engine.cssOf(el), want, text);
    assert.equal(early.cssOf(el), want, text);
    assert.ok(engine.cssOf(el).length <= 400);
  }
  // The deepest div: every tail within the cap ("div > div > …") matches
  // other divs too, so it has none.
  const div = byText('one').parentNode.parentNode;
  assert.equal(engine.cssOf(div), '');
  assert.equal(early.cssOf(div), '');
  assert.deepEqual(early.locatorOf(byText('left')), { by: 'css', selector: '' });
});
