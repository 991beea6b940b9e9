// Page verb type: text typed into a field key by key, at its end.
import { addAction } from '../act.js';
import { fire, mods, pressKey, focusField } from '../events.js';
import { nextFrame, sleep } from '../geometry.js';
import { core, engine } from '../globals.js';
import { held, textNow } from '../text.js';

/** type presses a key for each character of o.text (o.delay_ms apart) and says what the field holds. */
async function type(el, o) {
  const text = String(o.text ?? '');
  const secret = engine.isSecret(el);
  focusField(el);
  const before = textNow(el);
  for (const ch of text) {
    const info = core.keyInfo(ch === '\n' ? 'Enter' : ch) || { key: ch, code: '', keyCode: 0, text: ch };
    pressKey(el, info, mods([]));
    if (o.delay_ms) await sleep(Math.min(1000, o.delay_ms));
  }
  fire(el, 'change');
  await nextFrame();
  // The caret was at the end; Enter in a one-line input submits rather than types.
  return held(el, before + (el.localName === 'input' ? text.replace(/[\r\n]/g, '') : text), secret);
}

addAction('type', { enabled: true, editable: true, control: true }, type);
