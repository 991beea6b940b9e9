// Page verb hover: the mouse arriving over its target's centre.
import { addAction } from '../act.js';
import { hoverOver, mods } from '../events.js';

/** hover sends the events of the mouse arriving over el's centre, with o.modifiers held. */
async function hover(el, o) {
  const r = el.getBoundingClientRect();
  hoverOver(el, r.left + r.width / 2, r.top + r.height / 2, mods(o.modifiers));
  return {};
}

addAction('hover', { stable: true, hit: true }, hover);
