// Page verb select: the options of a <select> (or a custom one) chosen.
import { addAction } from '../act.js';
import { engine } from '../globals.js';
import { selectOptions } from '../text.js';

/** select chooses the options o.values names in el; a secret field's result says only secret. */
async function select(el, o) {
  const secret = engine.isSecret(el);
  const res = await selectOptions(el, Array.isArray(o.values) ? o.values : [o.values], secret);
  return secret ? { secret: true } : res; // a card's expiry month is as secret as its number
}

addAction('select', { enabled: true, control: true }, select);
