// The DOM runtime's text helpers for fill, type and select.
import { combobox } from '../combobox.js';
import { clickAt, deleteText, fire, focusField, inputEvent, insertText, setValue } from './events.js';
import { PREVIEW, textOutcome } from './fields.js';
import { hitAt, nextFrame, shows, view } from './geometry.js';
import { core, engine } from './globals.js';
import { Failure } from './targets.js';

// --- actions -------------------------------------------------------------------

/**
 * held is what fill and type say of the field they filled or typed into,
 * read from it as it is now by the rules fill_form follows for a text
 * field (see textOutcome): want is what it should hold, secret whether
 * it was a secret field before anything was sent. A secret field's
 * result says secret: true, which also tells the test generator to write
 * an environment variable, never the text.
 */
export const held = (el, want, secret) => textOutcome(el, want, secret || engine.isSecret(el), {});

/**
 * fillText replaces the text of el (an input, a textarea or a
 * contenteditable) as a paste would, and returns what the field should
 * hold now: text as the browser stores it (a textarea's line breaks
 * become \n). It throws not_editable when the browser itself refuses the
 * text (an <input type=date> given "tomorrow", a text input given line
 * breaks): that is checked right after the value is set, before any
 * event reaches the page, and the field is given its previous value back
 * (the page saw nothing change). What the page's listeners then make of it (a
 * mask, a formatter, a framework setting it back) is no failure: the
 * read-back says value_differs. A secret field's text is never in the
 * error.
 */
export function fillText(el, text, secret) {
  focusField(el);
  if (el.isContentEditable) {
    getSelection().selectAllChildren(el);
    insertText(el, text);
    if (!text) deleteText(el, true);
    return text;
  }
  const before = el.value;
  setValue(el, text);
  const took = String(el.value);
  if (took !== (el.localName === 'textarea' ? text.replace(/\r\n?/g, '\n') : text)) {
    setValue(el, before); // refused: the field holds what it held, as no event said otherwise
    const shown = secret ? '' : ` ${JSON.stringify(core.clip(text, PREVIEW))} (the browser made it ${JSON.stringify(core.clip(took, PREVIEW))})`;
    throw new Failure('not_editable', `${core.describe(el, view)} did not take the value${shown}; an input of type ${el.type} accepts only its own format (one line for text, yyyy-mm-dd for a date, digits for a number): send the text in it`);
  }
  inputEvent(el, 'input', text, 'insertReplacementText');
  fire(el, 'change');
  return took;
}

/** textNow is the text of a field: an input's or textarea's value, a contenteditable's text. */
export const textNow = (el) => (el.localName === 'input' || el.localName === 'textarea' ? String(el.value ?? '') : core.textOf(el, null));

/**
 * sentText is how an error names a value the agent sent: clipped, or for
 * a secret field only its kind, since errors reach the agent and its
 * logs as results do.
 */
export function sentText(value, secret) {
  if (!secret) return core.clip(JSON.stringify(value), PREVIEW);
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'boolean') return String(value);
  return typeof value === 'string' ? 'the text sent (not repeated: the field is secret)' : `a ${typeof value}`;
}

/**
 * selectOptions chooses the options of the <select> el that values
 * name (each an option's value or label) and resolves to {selected}. An
 * error about a secret <select> (secret) names none of the values sent.
 */
export async function selectOptions(el, values, secret) {
  if (el.localName !== 'select' && combobox.isCustomSelect(el)) {
    return combobox.choose(el, values, {
      click: (x) => clickAt(x, {}), shows, hitAt, frame: nextFrame, view, secret,
      fail: (reason, message) => {
        throw new Failure(reason, message);
      },
    });
  }
  if (el.localName !== 'select') {
    throw new Failure('not_editable', `${core.describe(el, view)} is not a <select> nor a combobox with options; click a custom dropdown open and click its option instead`);
  }
  const want = values.map(String);
  const options = Array.from(el.options);
  const chosen = want.map((w) => options.find((op) => op.value === w) ||
    options.find((op) => core.norm(op.label || op.text) === core.norm(w)) ||
    options.find((op) => core.textMatches(op.label || op.text, w, false)));
  const missing = want.filter((_, i) => !chosen[i]);
  if (missing.length) {
    const which = secret ? 'the value or label sent (not repeated: the field is secret)' : `the value or label ${missing.map((m) => JSON.stringify(core.clip(m, PREVIEW))).join(', ')}`;
    throw new Failure('bad_option', `no option of ${core.describe(el, view)} has ${which}; ` +
      `its options: ${options.slice(0, 15).map((op) => `${JSON.stringify(op.label || op.text)} (${JSON.stringify(op.value)})`).join(', ')}${options.length > 15 ? ', …' : ''}`);
  }
  if (chosen.length > 1 && !el.multiple) {
    throw new Failure('bad_option', `${core.describe(el, view)} takes one option, not ${chosen.length}; pass one value`);
  }
  const disabled = chosen.find((op) => op.disabled);
  if (disabled) throw new Failure('disabled', secret ? 'the option chosen is disabled; choose another' : `the option ${JSON.stringify(disabled.label)} is disabled; choose another`);
  focusField(el);
  for (const op of options) op.selected = chosen.includes(op);
  fire(el, 'input');
  fire(el, 'change');
  return { selected: chosen.map((op) => op.value) };
}
