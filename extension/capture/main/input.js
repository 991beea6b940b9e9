// The page's input (secret fields typed into; the first input ends LCP) and
// its leaving (what is pending goes before the page is hidden or left).
import { flush, remember } from './channel.js';
import { addListener, doc, eventTarget, isTrusted, win } from './page.js';
import { isSecretField } from './secret.js';

/** NO_VITALS stands in for vitals.js in an iframe and in a lean document. */
export const NO_VITALS = { finalizeLCP() {}, sendPendingVitals() {} };

/** watchInput remembers secret fields typed or set into, and their values, and ends LCP at the first input. */
export function watchInput(vitals) {
  const { finalizeLCP } = vitals;
  // capture/record.js records the user's actions (ISOLATED world); this
  // world only remembers the secret fields typed into (trusted or not:
  // the agent's fill) and every value they held, to cut them out of
  // console and network records, and ends LCP at the first input.
  const onInput = (type) => (e) => {
    try {
      if (type === 'input' || type === 'change') {
        const el = eventTarget(e);
        if (isSecretField(el)) remember(el);
        if (type === 'input') return;
      }
      if (!isTrusted(e)) return;
      if (type === 'keydown' && ((e.key !== 'Enter' && e.key !== 'Escape' && e.key !== 'Tab') || e.isComposing)) return;
      finalizeLCP();
    } catch {
      // ignore
    }
  };
  for (const type of ['click', 'dblclick', 'input', 'change', 'submit', 'keydown']) {
    addListener(win, type, onInput(type), { capture: true, passive: true });
  }
}

/** flushOnLeave sends what is pending when the page is hidden or left. */
export function flushOnLeave(vitals) {
  const { finalizeLCP, sendPendingVitals } = vitals;
  addListener(win, 'pagehide', () => {
    try {
      finalizeLCP();
      sendPendingVitals();
      flush();
    } catch {
      // ignore
    }
  }, true);
  addListener(doc, 'visibilitychange', () => {
    try {
      if (doc.visibilityState !== 'hidden') return;
      sendPendingVitals();
      flush();
    } catch {
      // ignore
    }
  }, true);
}
