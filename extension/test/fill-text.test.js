// Unit tests of fill's own checks (actions/runtime.js's fillText,
// selectOptions, sentText): the browser refusing a text is not_editable,
// checked before any event reaches the page; what the page's listeners make
// of it afterwards, even synchronously, is no failure (the read-back says
// value_differs); and no error about a secret field repeats the value sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h, fakeDocument, loadCore } from './fakedom.js';

await loadCore();
globalThis.chrome = { runtime: { id: 'gasoline', onMessage: { addListener() {} } } };
globalThis.addEventListener ??= () => {};
globalThis.document ??= fakeDocument(h('body', {}));

// The native value setter fillText calls: it stores what the browser's
// sanitisation (el.sanitise, per type) makes of the text; the page's own
// writes (el.value = …) are stored as they are.
class NativeField {}
Object.defineProperty(NativeField.prototype, 'value', {
  set(v) { this.stored = this.sanitise ? this.sanitise(String(v)) : String(v); },
});
globalThis.HTMLInputElement = globalThis.HTMLTextAreaElement = globalThis.HTMLSelectElement = NativeField;
globalThis.InputEvent ??= class extends Event {
  constructor(type, init = {}) {
    super(type, init);
    this.data = init.data;
    this.inputType = init.inputType;
  }
};

await import('../actions/runtime.js');
const { fillText, selectOptions, sentText, fieldOutcome, held } = globalThis.gasolineRuntime;

/** field makes a fake input whose listeners run as the page's do, in dispatch order, with a log of events. */
function field(tag, attrs, sanitise) {
  const el = h(tag, attrs);
  el.stored = '';
  el.sanitise = sanitise;
  el.events = [];
  el.listeners = {};
  Object.defineProperty(el, 'value', { get() { return this.stored; }, set(v) { this.stored = String(v); } });
  el.type = attrs.type ?? (tag === 'textarea' ? 'textarea' : 'text');
  el.focus = () => {};
  el.setSelectionRange = () => {};
  el.addEventListener = (type, fn) => { (el.listeners[type] ??= []).push(fn); };
  el.dispatchEvent = (e) => {
    el.events.push(e.type);
    for (const fn of el.listeners[e.type] ?? []) fn(e);
    return !e.defaultPrevented;
  };
  return el;
}

test('a formatter that runs inside the input event is value_differs, not a failure', () => {
  const phone = field('input', { type: 'tel' });
  phone.addEventListener('input', () => {
    const d = phone.value.replace(/\D/g, '');
    if (d.length === 10) phone.value = `(${d.slice(0, 3)}) ${d.slice(3, 6)}-${d.slice(6)}`; // synchronously, as input masks do
  });
  const want = fillText(phone, '5551234567', false);
  assert.equal(want, '5551234567');
  assert.deepEqual(phone.events, ['input', 'change']);
  assert.deepEqual(held(phone, want, false), { value: '(555) 123-4567', value_differs: true });

  // A React-controlled input its state sets back before the event returns.
  const upper = field('input', { type: 'text' });
  upper.addEventListener('input', () => { upper.value = upper.value.toUpperCase(); });
  assert.deepEqual(held(upper, fillText(upper, 'ada', false), false), { value: 'ADA', value_differs: true });
});

test('a text the browser refuses is not_editable, before any event reaches the page', () => {
  const date = field('input', { type: 'date' }, (v) => (/^\d{4}-\d\d-\d\d$/.test(v) ? v : ''));
  assert.throws(() => fillText(date, 'tomorrow', false), (e) => e.reason === 'not_editable' && /"tomorrow"/.test(e.message) && /yyyy-mm-dd/.test(e.message));
  assert.deepEqual(date.events, [], 'no event was sent');
  assert.equal(fillText(date, '2026-11-27', false), '2026-11-27');
  date.events = [];
  assert.throws(() => fillText(date, 'tomorrow', false), (e) => e.reason === 'not_editable');
  assert.equal(date.value, '2026-11-27', 'a refused text leaves the value the field held');
  assert.deepEqual(date.events, [], 'no event was sent');

  const pin = field('input', { type: 'text', autocomplete: 'one-time-code' }, (v) => v.replace(/[\r\n]/g, ''));
  assert.throws(() => fillText(pin, '123\n456', true), (e) => e.reason === 'not_editable' && !e.message.includes('123'));

  // A textarea stores line breaks as \n: that is taken, and what it should hold.
  const area = field('textarea', {}, (v) => v.replace(/\r\n?/g, '\n'));
  assert.equal(fillText(area, 'a\r\nb', false), 'a\nb');
  assert.equal(held(area, 'a\nb', false).value_differs, undefined);
});

test('a field the page turns from password into text after filling stays secret', () => {
  const pw = field('input', { type: 'password' });
  pw.addEventListener('change', () => { pw.attrs.set('type', 'text'); pw.type = 'text'; }); // a "show password" script
  const want = fillText(pw, 'hunter22', true);
  for (const got of [held(pw, want, true), fieldOutcome(pw, want, {}, { ref: 'e1' }, true)]) {
    assert.equal(got.secret, true);
    assert.ok(!JSON.stringify(got).includes('hunter'), JSON.stringify(got));
  }
});

test('an error about a secret field never repeats the value sent', async () => {
  const card = '4111111111111111';
  for (const v of [card, [card], { number: card }]) {
    assert.ok(!sentText(v, true).includes('4111'), sentText(v, true));
  }
  assert.equal(sentText([card], true), 'a list');
  assert.equal(sentText('maybe', false), '"maybe"');

  const month = h('select', { autocomplete: 'cc-exp-month' },
    h('option', { value: '01' }, 'January'), h('option', { value: '12', disabled: true }, 'December'));
  await assert.rejects(selectOptions(month, ['13'], true), (e) => e.reason === 'bad_option' && !e.message.includes('13') && e.message.includes('"01"'));
  await assert.rejects(selectOptions(month, ['12'], true), (e) => e.reason === 'disabled' && !/December|12/.test(e.message));
  const plan = h('select', {}, h('option', { value: 'free' }, 'Free'));
  await assert.rejects(selectOptions(plan, ['gold'], false), (e) => e.reason === 'bad_option' && e.message.includes('"gold"'));
});
