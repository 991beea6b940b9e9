// Unit tests of dom/engine.js (locators, CSS paths, secrets, target
// resolution) on a fake DOM; roles, names and matching are core.test.js's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h, fakeDocument, view, find } from './fakedom.js';

await import('../dom/engine.js');
const engine = globalThis.gasolineEngine;

/** roundTrip asserts that el's locator resolves, through its interact target, to el alone. */
function roundTrip(doc, el) {
  const loc = engine.locatorOf(el, view);
  const target = engine.targetOf(loc);
  assert.ok(target, `locator ${JSON.stringify(loc)} has a target`);
  if (typeof target === 'string') return loc; // CSS: resolved by querySelectorAll, in the e2e test
  const found = engine.resolve(target, doc, view);
  assert.equal(found.length, 1, `${JSON.stringify(target)} finds one element`);
  assert.equal(engine.controlOf(found[0]), el, `${JSON.stringify(target)} finds the element`);
  return loc;
}

function shop() {
  return fakeDocument(h('html', {}, h('body', {},
    h('main', { id: 'app' },
      h('button', { 'data-testid': 'buy' }, 'Buy'),
      h('button', { 'data-testid': 'dup' }, 'Add'),
      h('button', { 'data-testid': 'dup' }, 'Remove'),
      h('button', {}, 'Checkout'),
      h('label', { for: 'email' }, 'Email'),
      h('input', { id: 'email', type: 'email', 'aria-label': 'Your address' }),
      h('input', { type: 'text', 'aria-label': 'Your address' }),
      h('ul', {}, h('li', {}, h('span', {}, 'one')), h('li', {}, h('span', {}, 'two'))),
      h('button', { 'data-cy': 'cy-go' }, 'Go'),
      h('div', { $invisible: true }, h('button', {}, 'Ghost'))))));
}

test('locatorOf prefers a unique test id, then role and name, then label, then CSS', async (t) => {
  const doc = shop();
  const byText = (tag, text) => find(doc, (e) => e.localName === tag && e.textContent === text);
  await t.test('a unique data-testid', () => {
    assert.deepEqual(roundTrip(doc, byText('button', 'Buy')), { by: 'testid', attr: 'data-testid', value: 'buy' });
    assert.equal(engine.targetOf({ by: 'testid', attr: 'data-testid', value: 'buy' }), '[data-testid="buy"]');
  });
  await t.test('another test attribute', () => {
    assert.deepEqual(engine.locatorOf(byText('button', 'Go'), view), { by: 'testid', attr: 'data-cy', value: 'cy-go' });
  });
  await t.test('a duplicated test id falls back to role and name', () => {
    assert.deepEqual(roundTrip(doc, byText('button', 'Add')), { by: 'role', role: 'button', name: 'Add' });
  });
  await t.test('role and name', () => {
    const loc = roundTrip(doc, byText('button', 'Checkout'));
    assert.deepEqual(loc, { by: 'role', role: 'button', name: 'Checkout' });
    assert.deepEqual(engine.targetOf(loc), { role: 'button', name: 'Checkout', exact: true });
  });
  await t.test('a name two fields share falls back to the label', () => {
    const email = find(doc, (e) => e.id === 'email');
    const loc = roundTrip(doc, email);
    assert.deepEqual(loc, { by: 'label', name: 'Email' });
    assert.deepEqual(engine.targetOf(loc), { text: 'Email', exact: true });
  });
  await t.test('nothing unique but a CSS path', () => {
    const spans = doc.all().filter((e) => e.localName === 'span');
    assert.deepEqual(engine.locatorOf(spans[1], view), { by: 'css', selector: '#app > ul > li:nth-of-type(2) > span' });
    const other = find(doc, (e) => e.localName === 'input' && !e.id);
    assert.deepEqual(engine.locatorOf(other, view), { by: 'css', selector: '#app > input:nth-of-type(2)' });
  });
  await t.test('an invisible element is not told apart by its name', () => {
    // interact would find the hidden button by role and name too: the
    // locator says so by matching it (exactly one element).
    assert.deepEqual(roundTrip(doc, byText('button', 'Ghost')), { by: 'role', role: 'button', name: 'Ghost' });
  });
});

test('cssOf anchors at a stable unique id, else at body', async (t) => {
  await t.test('a unique id', () => {
    const doc = fakeDocument(h('body', {}, h('button', { id: 'save' }, 'Save')));
    assert.equal(engine.cssOf(find(doc, (e) => e.id === 'save')), '#save');
  });
  await t.test('a generated id is skipped', () => {
    const doc = fakeDocument(h('html', {}, h('body', {}, h('div', {}, h('button', { id: ':r1:' }, 'A')))));
    assert.equal(engine.cssOf(find(doc, (e) => e.localName === 'button')), 'body > div > button');
  });
  await t.test('a duplicated id is not unique', () => {
    const doc = fakeDocument(h('html', {}, h('body', {}, h('p', { id: 'dup' }), h('p', { id: 'dup' }))));
    assert.equal(engine.cssOf(doc.all()[3]), 'body > p:nth-of-type(2)');
  });
  await t.test('inside a shadow root, from the root', () => {
    const inner = h('button', {}, 'In');
    fakeDocument(h('body', {}, h('my-card', { $shadow: [h('div', {}, inner)] })));
    assert.equal(engine.cssOf(inner), 'div > button');
  });
  await t.test('not an element', () => {
    assert.equal(engine.cssOf(null), '');
  });
});

test('targetOf refuses what is not a locator', () => {
  for (const loc of [null, {}, { by: 'xpath', selector: '//a' }, { by: 'testid', attr: 'class', value: 'x' }, { by: 'role', role: 'button' }]) {
    assert.equal(engine.targetOf(loc), null, JSON.stringify(loc));
  }
  assert.equal(engine.targetOf({ by: 'testid', attr: 'data-qa', value: 'a"b\\c' }), '[data-qa="a\\"b\\\\c"]');
});

test('resolve finds by role and name, and by text', () => {
  const doc = shop();
  assert.equal(engine.resolve({ role: 'button', name: 'checkout' }, doc, view).length, 1);
  assert.equal(engine.resolve({ role: 'button', name: 'checkout', exact: true }, doc, view).length, 0);
  assert.equal(engine.resolve({ text: 'two', exact: true }, doc, view)[0].localName, 'span');
  assert.deepEqual(engine.resolve({}, doc, view), []);
});

test('isSecret: passwords and card, password and one-time-code autocomplete', () => {
  const cases = [
    [{ type: 'password' }, true],
    [{ type: 'PASSWORD' }, true],
    [{ type: 'text', autocomplete: 'cc-number' }, true],
    [{ autocomplete: 'billing cc-exp' }, true],
    [{ autocomplete: 'new-password' }, true],
    [{ autocomplete: 'one-time-code' }, true],
    [{ type: 'text' }, false],
    [{ type: 'email', autocomplete: 'email' }, false],
    [{ autocomplete: 'occ-thing' }, false],
  ];
  for (const [attrs, want] of cases) assert.equal(engine.isSecret(h('input', attrs)), want, JSON.stringify(attrs));
  assert.equal(engine.isSecret(null), false);
});
