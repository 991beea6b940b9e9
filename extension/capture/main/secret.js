// Secrets in the page (pure, unit-tested under node): which form fields'
// values must never be recorded, and cutting values out of a record's text.
import { getAttr, strLower, strReplace, strReplaceAll, strUpper, strIndexOf, strSlice, stringify, arrPush } from './builtins.js';
import { isElement } from './format.js';

const SECRET_AUTOCOMPLETE = /(^|\s)(cc-[a-z-]+|current-password|new-password|one-time-code)(\s|$)/i;

/**
 * isSecretField says whether a form control's value must never be
 * recorded: password fields and fields whose autocomplete names a card
 * field ("cc-*"), a password or a one-time code.
 */
export function isSecretField(el) {
  if (!isElement(el)) return false;
  const type = strLower(getAttr(el, 'type') || '');
  if (type === 'password') return true;
  try {
    if (el.type === 'password') return true;
  } catch {
    // not a form control
  }
  const ac = getAttr(el, 'autocomplete');
  return !!ac && SECRET_AUTOCOMPLETE.test(ac);
}

/**
 * scrub replaces every occurrence of each secret in s with "[redacted]":
 * as typed, URL-encoded (encodeURIComponent), form-encoded (URLSearchParams,
 * FormData posted as a form) and JSON-escaped. Secrets shorter than 3
 * characters are left alone: they would match everywhere.
 */
export function scrub(s, secrets) {
  if (typeof s !== 'string' || !secrets.length) return s;
  for (let i = 0; i < secrets.length; i++) {
    const v = secrets[i];
    if (typeof v !== 'string' || v.length < 3) continue;
    const forms = [v];
    try {
      const enc = encodeURIComponent(v);
      const plus = strReplaceAll(enc, '%20', '+'); // jQuery.param and friends
      arrPush(forms, enc);
      arrPush(forms, plus);
      arrPush(forms, strReplace(plus, /[!'()~]/g, (c) => '%' + strUpper(c.charCodeAt(0).toString(16))));
    } catch {
      // a lone surrogate: only the raw form
    }
    arrPush(forms, strSlice(stringify(v), 1, -1));
    for (let j = 0; j < forms.length; j++) {
      if (strIndexOf(s, forms[j]) >= 0) s = strReplaceAll(s, forms[j], '[redacted]');
    }
  }
  return s;
}
