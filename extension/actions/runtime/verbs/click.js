// Page verb click: the full sequence a user's click makes at its target's centre.
import { addAction } from '../act.js';
import { clickAt } from '../events.js';

/** click clicks el (o.modifiers, o.button, o.count as clickAt reads them). */
async function click(el, o) {
  clickAt(el, o);
  return {};
}

addAction('click', { enabled: true, stable: true, hit: true }, click);
