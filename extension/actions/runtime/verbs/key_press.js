// Page verb key_press: one key pressed, on its target or what has focus.
import { addAction } from '../act.js';
import { mods, pressKey } from '../events.js';
import { deepActive } from '../geometry.js';
import { core } from '../globals.js';
import { Failure, brief } from '../targets.js';

/** keyPress presses o.key (with o.modifiers) on el, focused first, or on what has focus; it says what has focus after. */
async function keyPress(el, o) {
  const info = core.keyInfo(o.key);
  if (!info) {
    throw new Failure('bad_target', `unknown key ${JSON.stringify(o.key)}; use a DOM key name such as Enter, Tab, Escape, ArrowDown, Backspace, a or A`);
  }
  if (el && deepActive() !== el) el.focus({ preventScroll: true });
  const target = el || deepActive() || document.body;
  pressKey(target, info, mods(o.modifiers));
  return { focused: brief(deepActive() || document.body, o.prefix) };
}

addAction('key_press', { enabled: true }, keyPress);
