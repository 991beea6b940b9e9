// Page verb fill: a field's text replaced at once, as a paste would.
import { addAction } from '../act.js';
import { nextFrame } from '../geometry.js';
import { engine } from '../globals.js';
import { fillText, held } from '../text.js';

/** fill replaces el's text with o.text and says what the field holds a frame later. */
async function fill(el, o) {
  const secret = engine.isSecret(el);
  const want = fillText(el, String(o.text ?? ''), secret);
  await nextFrame(); // for the page's formatters and re-renders, as fill_form
  return held(el, want, secret);
}

addAction('fill', { enabled: true, editable: true, control: true }, fill);
