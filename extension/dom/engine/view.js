// The browser's answer to whether an element shows (dom/engine.js): the
// engine asks it of its caller (view.visible(el)), and this is the view of
// the live page; the node tests pass their own.
import { isElement } from './basics.js';
import { parentOf, shadowOf } from './tree.js';

/**
 * pageView is the browser's view: an element shows when it is rendered
 * (not display:none, not visibility:hidden). An element without a box of
 * its own (display:contents: a <slot>, a wrapper) shows when its parent
 * in the flat tree does: what it holds is rendered by its parent.
 */
export const pageView = {
  visible(el) {
    for (let n = el, i = 0; isElement(n) && i < 32; i++) {
      if (typeof n.checkVisibility !== 'function') return n.getClientRects().length > 0;
      if (n.checkVisibility({ visibilityProperty: true })) return true;
      const cs = getComputedStyle(n);
      if (cs.display !== 'contents' || cs.visibility === 'hidden') return false;
      // A host's own child that no slot takes is not rendered.
      if (!n.assignedSlot && isElement(n.parentNode) && shadowOf(n.parentNode)) return false;
      n = n.assignedSlot || parentOf(n);
    }
    return false;
  },
};
