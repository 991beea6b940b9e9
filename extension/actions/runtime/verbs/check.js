// Page verbs check and uncheck: a checkbox, radio or switch made checked or
// unchecked, by clicking it when it is not already.
import { addAction } from '../act.js';
import { setChecked } from '../fields.js';

/** check makes el checked. */
async function check(el, o) {
  return setChecked(el, o, true);
}

/** uncheck makes el unchecked. */
async function uncheck(el, o) {
  return setChecked(el, o, false);
}

addAction('check', { enabled: true, stable: true, hit: true, control: true }, check);
addAction('uncheck', { enabled: true, stable: true, hit: true, control: true }, uncheck);
