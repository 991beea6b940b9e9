// Page verb fill_form: several fields filled in one action (no target of its
// own), each as fill, select or check would; what it says of each field is
// runtime/fields.js's.
import { combobox } from '../../combobox.js';
import { NEEDS, addAction } from '../act.js';
import { CHECKABLE, OFF, ON, fieldOutcome, setChecked } from '../fields.js';
import { nextFrame, view } from '../geometry.js';
import { core, engine } from '../globals.js';
import { Failure, brief, what } from '../targets.js';
import { fillText, selectOptions, sentText } from '../text.js';
import { actionable, editable } from '../waits.js';

/**
 * fillForm fills o.fields in order, each {target, value}: a checkbox,
 * radio or switch is checked by true ("checked") and unchecked by false,
 * a <select> takes an option's value or label (a list for a multiple
 * one), any other field is filled with the text. Each is awaited as its
 * single action would be, within what is left of the page budget. Once
 * all are filled it waits a frame (for the page's formatters and
 * re-renders) and reads each field back: it resolves to one outcome per
 * field (see fieldOutcome) or throws the first failure, naming the
 * field's index and what was done before it.
 */
async function fillForm(_, o) {
  const fields = Array.isArray(o.fields) ? o.fields : [];
  const deadline = performance.now() + Math.max(0, o.timeout_ms ?? 0);
  const filled = [];
  for (let i = 0; i < fields.length; i++) {
    const { target, value } = fields[i];
    try {
      filled.push(await fillField(target, value, o, Math.max(0, deadline - performance.now())));
    } catch (e) {
      if (!(e instanceof Failure)) throw e;
      const done = i ? `fields 0-${i - 1} were filled; ` : '';
      e.message = `field ${i} (${what(target)}): ${e.message} (${done}fields from ${i} on were not)`;
      e.extra = { ...e.extra, field: i };
      throw e;
    }
  }
  await nextFrame();
  return { fields: filled.map((f) => fieldOutcome(f.el, f.value, f.res, f.named, f.secret)) };
}

/**
 * fillField fills one field with value and resolves to {el, value, res,
 * named, secret}: the element, what it should hold, its action's result,
 * its brief, and whether it was a secret field, decided before anything
 * is sent to it (a page may turn a password field into a text one once
 * filled) and kept out of every error about it.
 */
async function fillField(t, value, o, timeoutMs) {
  let el = await actionable(t, o.prefix, timeoutMs, { enabled: true, control: true }, true);
  let secret = engine.isSecret(el);
  const role = core.roleOf(el);
  let res = {};
  if (CHECKABLE.includes(role)) {
    if (!ON.has(value) && !OFF.has(value)) {
      throw new Failure('bad_option', `${core.describe(el, view)} is a ${role}: its value is true ("checked") or false ("unchecked"), not ${sentText(value, secret)}`);
    }
    el = await actionable(t, o.prefix, timeoutMs, NEEDS.check, true);
    secret ||= engine.isSecret(el);
    res = await setChecked(el, o, ON.has(value));
  } else if (el.localName === 'select' || (combobox.isCustomSelect(el) && !editable(el))) {
    if (typeof value === 'boolean') throw new Failure('bad_option', `${core.describe(el, view)} is a select: its value is an option's value or label, not ${value}`);
    res = await selectOptions(el, Array.isArray(value) ? value : [value], secret);
  } else {
    if (typeof value !== 'string') {
      throw new Failure('bad_option', `${core.describe(el, view)} takes text, not ${sentText(value, secret)}; true/false are for checkboxes and radios`);
    }
    el = await actionable(t, o.prefix, timeoutMs, NEEDS.fill, true);
    secret ||= engine.isSecret(el);
    value = fillText(el, value, secret);
  }
  return { el, value, res, named: brief(el, o.prefix), secret };
}

addAction('fill_form', { targetless: true }, fillForm);
