// Unit tests of the idle registration's dialog reporter: capture/lean-tell.js
// (ISOLATED) and capture/lean-dialogs.js (MAIN), run in order in one vm
// context standing in for a page (its window an EventTarget, its alert,
// confirm and prompt the "native" ones, recording calls), and the worker's
// reading of their reports (actions/dialog.js leanReport).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import vm from 'node:vm';
import { leanReport } from '../actions/dialog.js';

const MAIN = fs.readFileSync(new URL('../capture/lean-dialogs.js', import.meta.url), 'utf8');
const TELL = fs.readFileSync(new URL('../capture/lean-tell.js', import.meta.url), 'utf8');

class FocusEvent extends Event {
  constructor(type, init = {}) {
    super(type, init);
    this.relatedTarget = init.relatedTarget ?? null;
  }
}

/**
 * page runs lean-tell.js (unless tell is false) then lean-dialogs.js; sent
 * lists what went to the worker, calls what reached the native dialogs
 * (each with what the page saw of the worker's messages by then).
 */
function page({ tell = true, active = false } = {}) {
  const target = new EventTarget();
  const sent = [];
  const calls = [];
  const win = {
    addEventListener: target.addEventListener.bind(target),
    removeEventListener: target.removeEventListener.bind(target),
    dispatchEvent: target.dispatchEvent.bind(target),
    CustomEvent, Event, FocusEvent, Text: EventTarget,
    navigator: { userActivation: { hasBeenActive: active } },
    chrome: { runtime: { sendMessage: async (m) => { sent.push(m); } } },
    alert(m) { calls.push(['alert', m, sent.length]); },
    confirm(m) { calls.push(['confirm', m, sent.length]); return true; },
    prompt(m, d) { calls.push(['prompt', m, d, sent.length]); return 'typed'; },
  };
  win.window = win;
  const ctx = vm.createContext(win);
  if (tell) vm.runInContext(TELL, ctx, { filename: 'lean-tell.js' });
  vm.runInContext(MAIN, ctx, { filename: 'lean-dialogs.js' });
  return { win, ctx, target, sent, calls };
}

test('each dialog is told to the worker before it shows, kind and message, and shows as before', () => {
  const { ctx, sent, calls } = page();
  assert.equal(vm.runInContext('alert("Session expired")', ctx), undefined);
  assert.equal(vm.runInContext('confirm("Leave?")', ctx), true);
  assert.equal(vm.runInContext('prompt("Name?", "Ada")', ctx), 'typed');
  assert.equal(vm.runInContext('alert()', ctx), undefined);
  assert.deepEqual(calls, [['alert', 'Session expired', 1], ['confirm', 'Leave?', 2], ['prompt', 'Name?', 'Ada', 3], ['alert', undefined, 4]],
    'the native dialogs got the page\'s arguments, each after its report was sent');
  assert.deepEqual(sent.map((m) => m.gasoline), ['dialog', 'dialog', 'dialog', 'dialog']);
  assert.deepEqual(sent.map((m) => leanReport(m.lean)), [
    { type: 'alert', message: 'Session expired' },
    { type: 'confirm', message: 'Leave?' },
    { type: 'prompt', message: 'Name?' },
    { type: 'alert', message: '' },
  ]);
  assert.equal(vm.runInContext('[alert.name, confirm.name, prompt.name].join()', ctx), 'alert,confirm,prompt');
});

test('a beforeunload is told only on a page the user interacted with (Chrome prompts on no other)', () => {
  const quiet = page();
  quiet.target.dispatchEvent(new Event('beforeunload'));
  assert.deepEqual(quiet.sent, []);
  const used = page({ active: true });
  used.target.dispatchEvent(new Event('beforeunload'));
  assert.deepEqual(used.sent.map((m) => leanReport(m.lean)), [{ type: 'beforeunload', message: '' }]);
});

test('nothing is wrapped when no one took the channel, and a later handover is not heard', () => {
  const { win, sent } = page({ tell: false });
  assert.equal(win.alert.name, 'alert');
  win.alert('x');
  assert.deepEqual(sent, []);

  const p = page();
  const forged = new EventTarget();
  p.target.dispatchEvent(new FocusEvent('gasoline:dlg', { relatedTarget: forged, cancelable: true }));
  forged.dispatchEvent(new CustomEvent('d', { detail: 'alert\nforged' }));
  assert.deepEqual(p.sent, [], 'lean-tell.js takes the first channel only');
});

test('the worker reads a report of a known kind, its message capped', () => {
  assert.deepEqual(leanReport('confirm\nSure?\nReally?'), { type: 'confirm', message: 'Sure?\nReally?' });
  assert.equal(leanReport('alert'), null, 'no newline, no report');
  assert.equal(leanReport('popup\nhttps://x'), null, 'not a dialog kind');
  assert.equal(leanReport(`alert\n${'m'.repeat(500)}`).message.length, 200);
});
