// Tests of capture/record.js on a fake DOM: what the user's event pays for
// (nothing document-wide), the order records leave in, the idle deadline,
// pagehide finishing what is pending, and elements the page removes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h, fakeDocument, view, find } from './fakedom.js';

await import('../dom/engine.js');
const engine = globalThis.gasolineEngine;

// The recorder's world: its listeners, idle callbacks and relay.
const listeners = {};
const on = (type, fn) => (listeners[type] ??= []).push(fn);
const idle = []; // pending idle callbacks
const sent = []; // records handed to the relay
globalThis.addEventListener = on;
globalThis.requestIdleCallback = (fn) => idle.push(fn);
globalThis.gasolineRecord = (rec) => sent.push(rec);
const navigation = { listeners: [], addEventListener(type, fn) { if (type === 'navigate') this.listeners.push(fn); } };
globalThis.navigation = navigation;

const doc = fakeDocument(h('html', {}, h('body', {},
  h('main', { id: 'app' },
    h('button', { 'data-testid': 'buy' }, 'Buy'),
    h('button', {}, 'Add'),
    h('button', {}, 'Other'),
    h('label', { for: 'q' }, 'Search'),
    h('input', { id: 'q', type: 'text', value: '' })))));
doc.addEventListener = on;
doc.visibilityState = 'visible';
globalThis.document = doc;

// The fake DOM has no closest(): the clicked elements here are the interactive ones.
Object.getPrototypeOf(find(doc, (e) => e.localName === 'button')).closest = function closest() {
  return this;
};

// The engine's pageView needs layout; the recorder sees the fake view instead, and
// every document-wide check it makes is counted.
let walks = 0;
globalThis.gasolineEngine = {
  ...engine,
  pageView: view,
  locatorFrom(...args) {
    walks++;
    return engine.locatorFrom(...args);
  },
};
await import('../capture/record.js');

const byText = (text) => find(doc, (e) => e.textContent === text && e.localName === 'button');
const input = find(doc, (e) => e.id === 'q');

/** fire dispatches a trusted event of type on el to the recorder's listeners. */
function fire(type, el, props = {}) {
  const e = { type, isTrusted: true, target: el, composedPath: () => [el], ...props };
  for (const fn of listeners[type] || []) fn(e);
}

/** runIdle runs the pending idle callbacks with timeRemaining ms left (didTimeout as given). */
function runIdle(timeRemaining = 50, didTimeout = false) {
  const fns = idle.splice(0);
  for (const fn of fns) fn({ timeRemaining: () => timeRemaining, didTimeout });
}

function reset() {
  runIdle();
  sent.length = 0;
  walks = 0;
}

test('a click is read at once and checked for uniqueness when the page is idle', () => {
  reset();
  const add = byText('Add');
  fire('click', add);
  assert.equal(walks, 0, 'the click itself made no document-wide check');
  assert.equal(sent.length, 0);
  add.childNodes[0].data = 'Added'; // the page's handler, right after
  runIdle();
  assert.equal(sent.length, 1);
  assert.equal(sent[0].type, 'click');
  assert.equal(sent[0].name, 'Add', 'the name the user clicked');
  // Nothing is named "Add" any more: the locator is the CSS path read on the click.
  assert.deepEqual(sent[0].locator, { by: 'css', selector: '#app > button:nth-of-type(2)' });
  add.childNodes[0].data = 'Add';
});

test('records leave in the order of the actions', () => {
  reset();
  fire('click', byText('Buy'));
  input.value = 'milk';
  fire('input', input);
  fire('click', byText('Other')); // ends the typing: its record comes first
  runIdle();
  assert.deepEqual(sent.map((r) => [r.type, r.locator.by, r.locator.value ?? r.locator.name]),
    [['click', 'testid', 'buy'], ['input', 'role', 'Search'], ['click', 'role', 'Other']]);
  assert.equal(sent[1].value, 'milk');
});

test('an idle period that runs out leaves the rest for the next one', () => {
  reset();
  fire('click', byText('Buy'));
  fire('click', byText('Other'));
  runIdle(0);
  assert.equal(sent.length, 0, 'no time left: nothing done');
  assert.equal(idle.length, 1, 'and the rest is scheduled again');
  runIdle(0, true);
  assert.deepEqual(sent.map((r) => r.name), ['Buy', 'Other'], 'a timed-out wait does it all');
});

test('pagehide finishes every pending record at once', () => {
  reset();
  fire('click', byText('Other'));
  input.value = 'eggs';
  fire('input', input);
  fire('pagehide', globalThis);
  assert.deepEqual(sent.map((r) => [r.type, r.locator.by]), [['click', 'role'], ['input', 'role']]);
  runIdle();
  assert.equal(sent.length, 2, 'nothing sent twice');
});

// (This test removes "Other" from the page: later tests click the others.)
test('an element the click removes keeps the CSS path it had', () => {
  reset();
  const other = byText('Other');
  fire('click', other);
  const main = other.parentNode;
  main.childNodes.splice(main.childNodes.indexOf(other), 1);
  other.parentNode = null;
  other.isConnected = false;
  runIdle();
  assert.equal(sent[0].name, 'Other');
  assert.deepEqual(sent[0].locator, { by: 'css', selector: '#app > button:nth-of-type(3)' });
});

test('a same-document navigation finishes the actions before it; a cross-document one waits for pagehide', () => {
  reset();
  fire('click', byText('Buy'));
  for (const fn of navigation.listeners) fn({ destination: { sameDocument: false } });
  assert.equal(sent.length, 0, 'a link to another page: still pending');
  fire('click', byText('Add'));
  for (const fn of navigation.listeners) fn({ destination: { sameDocument: true } }); // the page's pushState
  assert.deepEqual(sent.map((r) => r.name), ['Buy', 'Add']);
  fire('click', byText('Buy'));
  fire('hashchange', globalThis);
  assert.deepEqual(sent.map((r) => r.name), ['Buy', 'Add', 'Buy']);
});
