// What the outline says of a control besides its role and name
// (actions/core.js): its states (checked, expanded, disabled...), its
// value, and a heading's level.
import { engine } from '../../dom/engine.js';

const { attr, contains, inputType, isElement, norm, textOf } = engine;

/** headingLevel is 1..6 for a heading, from aria-level or its tag. */
export function headingLevel(el) {
  const l = Number(attr(el, 'aria-level'));
  if (l >= 1) return l;
  const m = /^h([1-6])$/.exec(el.localName);
  return m ? Number(m[1]) : 2;
}

/** isDisabled reports a control that is disabled natively or by aria-disabled, or inside a disabled fieldset. */
export function isDisabled(el) {
  if (attr(el, 'aria-disabled') === 'true') return true;
  if (!['button', 'input', 'select', 'textarea', 'option', 'optgroup', 'fieldset'].includes(el.localName)) return false;
  if (el.disabled) return true;
  for (let p = el.parentNode; p; p = p.parentNode) {
    if (isElement(p) && p.localName === 'fieldset' && p.disabled) {
      const legend = Array.from(p.childNodes).find((c) => isElement(c) && c.localName === 'legend');
      if (!legend || !contains(legend, el)) return true;
    }
  }
  return false;
}

/** states lists the element's states as outline words: checked, disabled, expanded... */
export function states(el, role) {
  const out = [];
  const tag = el.localName;
  if (role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'menuitemcheckbox' || role === 'menuitemradio') {
    const aria = attr(el, 'aria-checked');
    const on = tag === 'input' ? el.checked : aria === 'true';
    if (aria === 'mixed' || (tag === 'input' && el.indeterminate)) out.push('mixed');
    else if (on) out.push('checked');
  }
  if (attr(el, 'aria-pressed') === 'true') out.push('pressed');
  const expanded = attr(el, 'aria-expanded');
  if (expanded === 'true') out.push('expanded');
  else if (expanded === 'false') out.push('collapsed');
  if (attr(el, 'aria-selected') === 'true' || (tag === 'option' && el.selected)) out.push('selected');
  if (attr(el, 'aria-current') && attr(el, 'aria-current') !== 'false') out.push('current');
  if (isDisabled(el)) out.push('disabled');
  if (el.hasAttribute('required') || attr(el, 'aria-required') === 'true') out.push('required');
  if (el.hasAttribute('readonly') || attr(el, 'aria-readonly') === 'true') out.push('readonly');
  if (attr(el, 'aria-invalid') === 'true') out.push('invalid');
  if (role === 'heading') out.push('h' + headingLevel(el));
  return out;
}

/** valueOf is what a control holds, as the outline shows it ("" for none). */
export function valueOf(el, role) {
  const tag = el.localName;
  if (tag === 'select') {
    const picked = Array.from(el.options || []).filter((o) => o.selected).map((o) => norm(textOf(o, null)));
    return picked.join(', ');
  }
  if (tag === 'input') {
    const t = inputType(el);
    if (t === 'password') return el.value ? '••••' : '';
    if (['checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file'].includes(t)) return '';
    return String(el.value ?? '');
  }
  if (tag === 'textarea') return String(el.value ?? '');
  if (role === 'textbox' && attr(el, 'contenteditable') !== null) return norm(textOf(el, null));
  if (['slider', 'spinbutton', 'progressbar', 'meter'].includes(role)) {
    return String(attr(el, 'aria-valuetext') ?? attr(el, 'aria-valuenow') ?? el.value ?? '');
  }
  return '';
}
