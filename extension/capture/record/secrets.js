// A password or card field's values, which no record may hold: each such
// field's current value and the last values they held (a form's reset
// leaves them secret) are cut out of every later record of this frame
// (capture/main/ does the same for console and network records).

const secretFields = []; // at most 20 fields whose values no record may hold
const held = []; // the last 40 values they held: a form's reset leaves them secret

/** rememberSecret keeps secret field el and the value it holds (3 characters or more). */
export function rememberSecret(el) {
  const v = el.value;
  const last = held.at(-1);
  if (typeof v === 'string' && v.length >= 3 && !last?.startsWith(v)) {
    if (last && v.startsWith(last)) held[held.length - 1] = v; // typed on
    else if (held.push(v) > 40) held.shift();
  }
  if (secretFields.includes(el)) return;
  if (secretFields.length >= 20) secretFields.shift();
  secretFields.push(el);
}

/** scrub cuts the remembered secret values (3 characters or more) out of every string of rec. */
export function scrub(rec) {
  const secrets = [...held, ...secretFields.map((f) => f.value)].filter((v) => typeof v === 'string' && v.length >= 3);
  if (!secrets.length) return;
  const cut = (s) => secrets.reduce((acc, v) => acc.replaceAll(v, '[redacted]'), s);
  for (const o of [rec, rec.locator || {}]) {
    for (const k of Object.keys(o)) if (typeof o[k] === 'string' && k !== 'kind' && k !== 'type' && k !== 'by') o[k] = cut(o[k]);
  }
}
