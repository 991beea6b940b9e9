// Unit tests of actions/dialogs.js (the MAIN-world dialog hook) in a vm
// context standing in for a page: its window is an EventTarget, its
// alert, confirm and prompt are the "native" ones, recording calls, and
// its clock is the test's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import vm from 'node:vm';

// The script as a document runs it: actions/dialogs.js and its modules bundled.
const SRC = fs.readFileSync(new URL('../dist/dialogs.js', import.meta.url), 'utf8');

class FocusEvent extends Event {
  constructor(type, init = {}) {
    super(type, init);
    this.relatedTarget = init.relatedTarget ?? null;
  }
}

/**
 * page loads dialogs.js into a fresh context, taking the channel it hands
 * over as the runtime does. native answers what the user would (confirm:
 * true, prompt: "typed"); reports collects the "dialog" details; clock.t
 * is Date.now(); heard lists every event the page's window saw after the
 * handover (a page listener there).
 */
function page({ active = false, runtimeFirst = true } = {}) {
  const target = new EventTarget();
  const nativeCalls = [];
  const clock = { t: 1000 };
  const win = {
    addEventListener: target.addEventListener.bind(target),
    removeEventListener: target.removeEventListener.bind(target),
    dispatchEvent: target.dispatchEvent.bind(target),
    CustomEvent, Event, FocusEvent, EventTarget,
    document: { createElement: () => new EventTarget(), baseURI: 'https://shop.test/invoices/7' },
    Date: { now: () => clock.t },
    navigator: { userActivation: { hasBeenActive: active } },
    alert: (m) => { nativeCalls.push(['alert', m]); },
    confirm: (m) => { nativeCalls.push(['confirm', m]); return true; },
    prompt: (m, d) => { nativeCalls.push(['prompt', m, d]); return 'typed'; },
    // window.open as Chrome's popup blocker leaves it: null, unless
    // popups.opens (then a window).
    open(...args) { nativeCalls.push(['open', this === win, ...args]); return popups.opens ? { name: 'popup' } : null; },
    URL,
  };
  const popups = { opens: false };
  win.window = win;
  let main = null;
  const take = (e) => {
    main = e.relatedTarget;
    e.preventDefault();
    target.removeEventListener('gasoline:channel', take);
  };
  if (runtimeFirst) target.addEventListener('gasoline:channel', take);
  const ctx = vm.createContext(win);
  vm.runInContext(SRC, ctx, { filename: 'dialogs.js' });
  if (!runtimeFirst) {
    target.addEventListener('gasoline:channel', take);
    target.dispatchEvent(new Event('gasoline:channel-hello'));
  }
  const heard = [];
  for (const type of ['acting', 'arm', 'armed', 'dialog', 'gasoline:channel', 'gasoline:channel-hello']) {
    target.addEventListener(type, (e) => heard.push(type));
  }
  const reports = [];
  main.addEventListener('dialog', (e) => reports.push(JSON.parse(e.detail)));
  const send = (type, d) => main.dispatchEvent(new CustomEvent(type, { detail: JSON.stringify(d) }));
  const arm = (d) => {
    let ack = null;
    const on = (e) => { ack = JSON.parse(e.detail); };
    main.addEventListener('armed', on);
    send('arm', d);
    main.removeEventListener('armed', on);
    return ack;
  };
  const unload = () => {
    const e = new Event('beforeunload', { cancelable: true });
    let pageRan = false;
    target.addEventListener('beforeunload', () => { pageRan = true; e.preventDefault(); }, { once: true });
    target.dispatchEvent(e);
    return { pageRan, asked: e.defaultPrevented };
  };
  return { win, nativeCalls, clock, reports, send, arm, unload, heard, ctx, popups };
}

test('without an action or an arm, dialogs are the user\'s: native, reported showing then answered', () => {
  const p = page();
  assert.equal(p.win.confirm('Sure?'), true);
  assert.equal(p.win.prompt('Name?', 'x'), 'typed');
  assert.deepEqual(p.nativeCalls, [['confirm', 'Sure?'], ['prompt', 'Name?', 'x']]);
  assert.deepEqual(p.reports.map((r) => [r.type, r.answered, r.showing]), [
    ['confirm', 'by the user', true], ['confirm', 'accepted by the user', false],
    ['prompt', 'by the user', true], ['prompt', 'accepted by the user', false],
  ]);
});

test('the wrappers look like the built-ins to the page: the same names, no constructor, no prototype', () => {
  const p = page();
  for (const name of ['alert', 'confirm', 'prompt', 'open']) {
    const f = p.win[name];
    assert.equal(f.name, name, `the page reads ${name}.name`);
    assert.equal(f.prototype, undefined, `${name} has a prototype (the native one has none)`);
    assert.throws(() => new f(), TypeError, `new ${name}() works (the native one is no constructor)`);
  }
  assert.deepEqual(p.nativeCalls, [], 'new on a wrapper reached a native dialog');
});

test('while an action runs: its answer, else dismissed, never native', () => {
  const p = page();
  p.send('acting', { on: true });
  assert.equal(p.win.confirm('A?'), false);
  assert.equal(p.win.alert('hi'), undefined);
  p.send('acting', { on: true, dialog: 'accept', prompt_text: 'Ada' });
  assert.equal(p.win.prompt('Name?', 'x'), 'Ada');
  p.send('acting', { on: false });
  assert.deepEqual(p.nativeCalls, []);
  assert.deepEqual(p.reports.map((r) => r.answered), ['dismissed', 'accepted', 'accepted']);
});

test('an arm answers the next confirm or prompt; alerts close; later ones are dismissed until the window ends', () => {
  const p = page();
  const ack = p.arm({ dialog: 'accept', text: 'Ada', window_ms: 5000 });
  assert.deepEqual(ack, { recent: [] });
  assert.equal(p.win.alert('first an alert'), undefined, 'an alert does not use the arm');
  assert.equal(p.win.prompt('Name?', 'x'), 'Ada');
  assert.equal(p.win.confirm('And this?'), false, 'a second one in the window is dismissed');
  p.clock.t += 5000;
  assert.equal(p.win.confirm('After?'), true, 'past the window: native');
  assert.deepEqual(p.nativeCalls, [['confirm', 'After?']]);
  const again = p.arm({ dialog: 'dismiss', window_ms: 1000 });
  assert.deepEqual(again.recent.map((r) => [r.type, r.answered, r.ago_ms]), [
    ['alert', 'accepted', 5000], ['prompt', 'accepted', 5000], ['confirm', 'dismissed', 5000], ['confirm', 'accepted by the user', 0],
  ]);
  assert.equal(p.win.confirm('Dismissed?'), false);
});

test('an action\'s own dialog option wins over the arm, which stays for the next', () => {
  const p = page();
  p.arm({ dialog: 'accept', window_ms: 5000 });
  p.send('acting', { on: true, dialog: 'dismiss' });
  assert.equal(p.win.confirm('By the action'), false);
  p.send('acting', { on: true });
  assert.equal(p.win.confirm('By the arm'), true, 'an action without dialog lets the arm answer');
  p.send('acting', { on: false });
});

test('an armed accept keeps the page\'s beforeunload listeners from asking, once', () => {
  const p = page({ active: true });
  p.arm({ dialog: 'accept', window_ms: 5000 });
  assert.deepEqual(p.unload(), { pageRan: false, asked: false });
  assert.deepEqual(p.reports.at(-1), { type: 'beforeunload', message: '', answered: 'accepted' });
  const n = p.reports.length;
  assert.deepEqual(p.unload(), { pageRan: true, asked: true }, 'the arm is used up');
  assert.deepEqual(p.reports.slice(n), [{ type: 'beforeunload', message: '', showing: true, unsure: true }]);
});

test('beforeunload unarmed: the worker hears of it only when the user has used the page', () => {
  const untouched = page({ active: false });
  untouched.unload();
  assert.deepEqual(untouched.reports, []);
  const dismissed = page({ active: true });
  dismissed.arm({ dialog: 'dismiss', window_ms: 5000 });
  assert.deepEqual(dismissed.unload(), { pageRan: true, asked: true }, 'a dismiss does not touch beforeunload');
});

test("the page's window hears nothing and holds no name of ours, whichever world starts first", () => {
  for (const runtimeFirst of [true, false]) {
    const p = page({ runtimeFirst });
    p.send('acting', { on: true, dialog: 'accept', prompt_text: 'secret' });
    assert.equal(p.win.prompt('Name?'), 'secret');
    p.send('acting', { on: false });
    p.arm({ dialog: 'accept', text: 'armed secret', window_ms: 5000 });
    assert.equal(p.win.confirm('ok?'), true);
    assert.deepEqual(p.heard, []);
    const names = vm.runInContext('Object.getOwnPropertyNames(globalThis).filter((n) => /gasoline/i.test(n))', p.ctx);
    assert.deepEqual([...names], []);
  }
});

test('a page that hooks JSON, Number and Array learns nothing when an agent acts or arms', () => {
  const p = page();
  vm.runInContext(`
    globalThis.spied = [];
    for (const [o, k] of [[JSON, 'parse'], [JSON, 'stringify'], [globalThis, 'Number'], [Array.prototype, 'push'], [Array.prototype, 'filter'], [Array.prototype, 'map']]) {
      const f = o[k];
      o[k] = function (...a) { spied[spied.length] = k; return Reflect.apply(f, this, a); };
    }
    Object.defineProperty(Object.prototype, 'prompt_text', { get() { spied[spied.length] = 'prompt_text'; return undefined; }, configurable: true });
    Object.defineProperty(Object.prototype, 'bubbles', { get() { spied[spied.length] = 'bubbles'; return false; }, configurable: true });
  `, p.ctx);
  p.send('acting', { on: true });
  p.send('acting', { on: false });
  assert.deepEqual(p.arm({ dialog: 'dismiss', window_ms: 1000 }), { recent: [] });
  assert.deepEqual([...vm.runInContext('spied', p.ctx)], []);
});

test('a page that hooks Array methods cannot read or forge the dialog history, whatever it opens while an agent acts', () => {
  const p = page();
  vm.runInContext(`
    globalThis.seen = [];
    for (const k of ['push', 'shift', 'unshift', 'splice', 'pop', 'slice', 'at', 'concat', 'filter', 'map', 'forEach', 'indexOf']) {
      const f = Array.prototype[k];
      Array.prototype[k] = function (...a) {
        if (this !== seen) {
          seen[seen.length] = k;
          for (let i = 0; i < 5; i++) this[i] = { type: 'confirm', message: 'Delete all data?', answered: 'accepted', at: Date.now() };
        }
        return Reflect.apply(f, this, a);
      };
    }
  `, p.ctx);
  p.send('acting', { on: true });
  assert.equal(p.win.open('/print'), null);
  p.win.alert('Saved');
  p.send('acting', { on: false });
  assert.deepEqual([...vm.runInContext('seen', p.ctx)], [], 'no Array method of the page was called');
  const ack = p.arm({ dialog: 'dismiss', window_ms: 1000 });
  assert.deepEqual(ack.recent.map((r) => [r.type, r.message, r.answered]), [
    ['popup', 'https://shop.test/print', 'blocked (Chrome opens none for a script\'s click): open its url with interact({action:"new_tab", url})'],
    ['alert', 'Saved', 'accepted'],
  ]);
});

test('the ring keeps the last five dialogs, oldest first', () => {
  const p = page();
  p.send('acting', { on: true });
  for (let i = 0; i < 7; i++) p.win.alert(`n${i}`);
  p.send('acting', { on: false });
  assert.deepEqual(p.arm({ dialog: 'dismiss', window_ms: 1000 }).recent.map((r) => r.message), ['n2', 'n3', 'n4', 'n5', 'n6']);
});

test('the late window of a popup is what settle follows: dialogs.js LATE_MS = settle.js SETTLE_CAP_MS = dialog.js LATE_MS', () => {
  const read = (f) => fs.readFileSync(new URL(f, import.meta.url), 'utf8');
  const figure = (src, re) => Number(re.exec(src)?.[1]);
  const track = figure(read('../capture/settle.js'), /export const SETTLE_CAP_MS = (\d+);/);
  assert.ok(track > 0);
  assert.equal(figure(read('../actions/dialogs/answer.js'), /export const LATE_MS = (\d+);/), track);
  assert.equal(figure(read('../actions/dialog.js'), /export const LATE_MS = (\d+);/), track);
});

test('a popup blocked while an action runs is reported with the url it would have opened', () => {
  const p = page();
  p.send('acting', { on: true });
  assert.equal(p.win.open('print?n=1'), null, 'the page still gets what Chrome gave');
  assert.equal(p.win.open(), null);
  p.send('acting', { on: false });
  assert.deepEqual(p.nativeCalls, [['open', true, 'print?n=1'], ['open', true]], 'the native open got the same arguments, on window');
  assert.deepEqual(p.reports.map((r) => [r.type, r.message, r.late]), [
    ['popup', 'https://shop.test/invoices/print?n=1', false], ['popup', 'about:blank', false],
  ]);
  assert.match(p.reports[0].answered, /^blocked .*interact\(\{action:"new_tab", url\}\)/, 'it says what to do instead');
});

test('a popup blocked just after the action (a handler\'s timer) is reported late; later, or outside any action, it is not', () => {
  const p = page();
  assert.equal(p.win.open('/before'), null);
  p.send('acting', { on: true });
  p.send('acting', { on: false });
  p.clock.t += 1900; // a chain of handler timers, still within what settle follows
  assert.equal(p.win.open('/timer'), null);
  p.clock.t += 200;
  assert.equal(p.win.open('/much-later'), null);
  assert.deepEqual(p.reports.map((r) => [r.message, r.late]), [['https://shop.test/timer', true]]);
  assert.equal(p.nativeCalls.length, 3, 'every call reached the native open');
});

test('an open that returned a window is not reported; a noopener one that returned null is, for the worker to check', () => {
  const p = page();
  p.send('acting', { on: true });
  p.popups.opens = true;
  assert.deepEqual(p.win.open('/x', '_blank'), { name: 'popup' });
  p.popups.opens = false;
  assert.equal(p.win.open('/y', '_blank', 'noopener'), null);
  p.send('acting', { on: false });
  assert.deepEqual(p.reports.map((r) => r.message), ['https://shop.test/y']);
});

test('the wrapped open keeps the name open, as alert, confirm and prompt keep theirs', () => {
  const p = page();
  assert.deepEqual(['alert', 'confirm', 'prompt', 'open'].map((k) => p.win[k].name), ['alert', 'confirm', 'prompt', 'open']);
});
