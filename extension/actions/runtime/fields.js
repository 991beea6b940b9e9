// The DOM runtime's fields: what fill, type, check and fill_form say of a
// field after filling it, and checking a checkbox, radio or switch.
import { clickAt } from './events.js';
import { nextFrame, view } from './geometry.js';
import { core, engine } from './globals.js';
import { Failure } from './targets.js';

// --- fill_form ---------------------------------------------------------------

export const CHECKABLE = ['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio'];
export const ON = new Set([true, 'true', 'checked', 'on', 'yes']);
export const OFF = new Set([false, 'false', 'unchecked', 'off', 'no', '']);

/** PREVIEW is how many characters of a field's text fill_form gives back; the agent sent the text, so it needs no more. */
export const PREVIEW = 60;
/** PREVIEW_OPTIONS is how many of a <select>'s selected options fill_form lists. */
const PREVIEW_OPTIONS = 20;


/**
 * fieldOutcome is what fill_form says of one filled field, read from the
 * field as it is now: named ({ref, role, name}), then for a checkbox,
 * radio or switch checked (and changed, from res); for a <select>
 * selected, the values of its selected options (at most
 * PREVIEW_OPTIONS, with selected_count when more, each clipped to
 * PREVIEW); for any other field what textOutcome says. value_differs:
 * true says the field does not hold what was sent (the page reformatted,
 * cleared or reset it after it was filled). A secret field (secret,
 * decided before filling, or engine.isSecret now) says secret: true and
 * never its value or options, not even clipped. A field the page removed
 * gets a note. It is a pure function of the element, so that node can
 * test it.
 */
export function fieldOutcome(el, sent, res, named, wasSecret = false) {
  const out = { ...named };
  const secret = wasSecret || engine.isSecret(el);
  const role = core.roleOf(el);
  if (CHECKABLE.includes(role)) {
    if (secret) out.secret = true;
    if (el.isConnected === false) out.note = REMOVED;
    const now = roleChecked(el);
    out.checked = now;
    if (res && typeof res.changed === 'boolean') out.changed = res.changed;
    if (now !== ON.has(sent)) out.value_differs = true;
    return out;
  }
  if (el.localName === 'select') {
    if (secret) out.secret = true;
    if (el.isConnected === false) out.note = REMOVED;
    const now = Array.from(el.options || []).filter((op) => op.selected).map((op) => String(op.value));
    const was = Array.isArray(res?.selected) ? res.selected : now;
    if (now.length !== was.length || now.some((v, i) => v !== was[i])) out.value_differs = true;
    out.selected_count = now.length; // for a secret one, all it says: that it is a <select> (analyze test replays it with selectOption)
    if (secret) return out;
    out.selected = now.slice(0, PREVIEW_OPTIONS).map((v) => core.clip(v, PREVIEW));
    if (now.length <= PREVIEW_OPTIONS) delete out.selected_count;
    return out;
  }
  if (Array.isArray(res?.selected)) { // a custom select's (combobox.js): the options it saw taken
    if (secret) out.secret = true;
    else out.selected = res.selected.slice(0, PREVIEW_OPTIONS).map((v) => core.clip(v, PREVIEW));
    return out;
  }
  return textOutcome(el, sent, secret, out);
}

const REMOVED = 'the page removed this field after it was filled; look at the page (analyze dom) before going on';

/**
 * textOutcome adds to out what a text field (an input, a textarea, a
 * contenteditable) holds now, for fill, type and fill_form alike: value,
 * its text clipped to PREVIEW characters, with chars (its length) when
 * clipped, since the agent sent the text. value_differs: true says it
 * does not hold want (the page reformatted, cleared or reset it), and
 * value then shows the text from where it first differs. A secret field
 * (secret) says secret: true and never its value, not even clipped. A
 * field the page removed, or a text longer than the field's maxlength
 * (which a user could not have typed), gets a note.
 */
export function textOutcome(el, want, secret, out) {
  if (secret) out.secret = true;
  if (el.isConnected === false) out.note = REMOVED;
  const rich = el.localName !== 'input' && el.localName !== 'textarea'; // a contenteditable
  // A contenteditable's text is compared as the outline shows it, whitespace collapsed.
  const sent = rich ? core.norm(String(want ?? '')) : String(want ?? '');
  const now = rich ? core.norm(core.textOf(el, null)) : String(el.value ?? '');
  const differs = now !== sent;
  if (differs) out.value_differs = true;
  if (!out.note && el.maxLength > 0 && now.length > el.maxLength) {
    out.note = `longer than the field's maxlength ${el.maxLength}: a user could type only ${el.maxLength} characters, so the page may refuse it`;
  }
  if (secret) return out;
  let from = 0;
  if (differs) {
    while (from < now.length && now[from] === sent[from]) from++;
    from = Math.max(0, from - 20);
  }
  out.value = (from ? '…' : '') + core.clip(now.slice(from), PREVIEW);
  if (now.length > PREVIEW || from) out.chars = now.length;
  return out;
}

/** roleChecked says whether el (an input, or an ARIA checkbox, radio or switch) is checked. */
function roleChecked(el) {
  if (el.localName === 'input') return el.checked;
  return el.getAttribute('aria-checked') === 'true';
}

/** setChecked makes el checked (want) or unchecked by clicking it when it is not already, and says whether that changed it. */
export async function setChecked(el, o, want) {
  const role = core.roleOf(el);
  if (!['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio'].includes(role)) {
    throw new Failure('not_editable', `${core.describe(el, view)} is not a checkbox, radio or switch (role ${role || 'none'}); use click`);
  }
  if (roleChecked(el) === want) return { checked: want, changed: false };
  if (!want && role === 'radio') throw new Failure('not_editable', 'a radio button cannot be unchecked; check another one of its group');
  clickAt(el, o);
  await nextFrame();
  if (roleChecked(el) !== want) {
    throw new Failure('not_editable', `clicking ${core.describe(el, view)} did not ${want ? 'check' : 'uncheck'} it (a listener may have prevented it); look at the page's state with analyze({what:"dom"})`);
  }
  return { checked: want, changed: true };
}
