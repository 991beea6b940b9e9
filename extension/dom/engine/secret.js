// Which form controls' values are never recorded (dom/engine.js).
import { attr, isElement } from './basics.js';

const SECRET_AUTOCOMPLETE = /(^|\s)(cc-[a-z-]+|current-password|new-password|one-time-code)(\s|$)/i;

/**
 * isSecret says whether a form control's value must never be recorded: a
 * password field, or a field whose autocomplete names a card field
 * ("cc-*"), a password or a one-time code. (capture/main/secret.js keeps
 * its own copy of this rule, built on the page's saved built-ins.)
 */
export function isSecret(el) {
  if (!isElement(el)) return false;
  if (String(attr(el, 'type') || '').toLowerCase() === 'password' || el.type === 'password') return true;
  const ac = attr(el, 'autocomplete');
  return Boolean(ac) && SECRET_AUTOCOMPLETE.test(ac);
}
