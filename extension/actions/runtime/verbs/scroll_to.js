// Page verb scroll_to: its target scrolled into the middle of the view.
import { addAction } from '../act.js';
import { boxOf } from '../geometry.js';

/** scrollTo scrolls el to the centre of the view at once and gives its box. */
async function scrollTo(el) {
  el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  return { box: boxOf(el) };
}

addAction('scroll_to', {}, scrollTo);
