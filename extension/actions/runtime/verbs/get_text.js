// Page verb get_text: the rendered text of its target, or of the page.
import { addAction } from '../act.js';

/** getText gives (el or the body)'s innerText, clipped to o.max_chars with a note of what was left out. */
async function getText(el, o) {
  const text = (el || document.body).innerText || '';
  const max = o.max_chars; // the daemon's default and bounds (internal/tools getTextArgs)
  const out = { text: text.length > max ? text.slice(0, max) : text, chars: text.length };
  if (text.length > max) out.truncated = `${text.length - max} more characters; narrow the target, or raise max_chars`;
  return out;
}

addAction('get_text', {}, getText);
