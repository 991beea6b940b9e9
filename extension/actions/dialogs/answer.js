// How a dialog is answered (see dialogs.js): from the agent's action while
// one runs, from the dialog action's armed answer while it is live, else
// by the user, natively.
import { apply, hasOwn, native, now, num, slice, str, stringify } from './saved.js';
import { on, recent, report, ring, send, RECENT, RECENT_MS } from './channel.js';

// LATE_MS is how long after an action's end a blocked popup is still its
// own: as long as settle follows the action at most (capture/settle.js
// SETTLE_CAP_MS: a handler's timer, the timers it sets in turn, the
// requests they make), and the worker's LATE_MS (actions/dialog.js); a
// test checks.
export const LATE_MS = 2000;

// state.acting is {dialog?, text?} while an agent's action runs; armed
// {accept, text, until, used} from the dialog action; actedUntil LATE_MS
// after the last action ended.
export const state = { __proto__: null, acting: null, armed: null, actedUntil: 0 };

const own = (o, k) => (hasOwn(o, k) ? o[k] : undefined);

/** hear hears the runtime's "acting" and "arm" events. */
export function hear() {
  on('acting', (d) => {
    if (state.acting) state.actedUntil = now() + LATE_MS;
    state.acting = own(d, 'on') ? { dialog: own(d, 'dialog'), text: own(d, 'prompt_text') } : null;
  });
  on('arm', (d) => {
    const ms = num(own(d, 'window_ms'));
    state.armed = ms > 0 ? { accept: own(d, 'dialog') === 'accept', text: own(d, 'text'), until: now() + ms, used: false } : null;
    const t = now();
    let list = '';
    for (let i = ring.count > RECENT ? ring.count - RECENT : 0; i < ring.count; i++) {
      const r = recent[i % RECENT];
      if (t - r.at >= RECENT_MS) continue;
      list += (list ? ',' : '') + stringify({ __proto__: null, type: r.type, message: r.message, answered: r.answered, ago_ms: t - r.at });
    }
    send('armed', '{"recent":[' + list + ']}');
  });
}

/** live is the armed answer while its window lasts. */
export const live = () => (state.armed && now() < state.armed.until ? state.armed : null);

/**
 * answerOf decides a dialog of type without showing it: {accept, text},
 * or null when it is the user's to answer natively.
 */
function answerOf(type) {
  const acting = state.acting;
  if (acting?.dialog === 'accept' || acting?.dialog === 'dismiss') {
    return { accept: acting.dialog === 'accept', text: acting.text };
  }
  const a = live();
  if (a && !a.used && type !== 'alert') {
    a.used = true;
    return { accept: a.accept, text: a.text };
  }
  if (a || acting) return { accept: false };
  return null;
}

/** byUser shows a dialog natively and reports it before it shows and once the user answered. */
function byUser(type, message, fallback, text) {
  report({ __proto__: null, type, message: text, answered: 'by the user', showing: true });
  let got;
  try {
    got = apply(native[type], window, [message, fallback]);
  } finally {
    const accepted = type === 'alert' || (type === 'confirm' ? got === true : got !== null && got !== undefined);
    send('dialog', stringify({ __proto__: null, type, message: text, answered: accepted ? 'accepted by the user' : 'dismissed by the user', showing: false }));
    const last = ring.count ? recent[(ring.count - 1) % RECENT] : null;
    if (last?.answered === 'by the user') last.answered = accepted ? 'accepted by the user' : 'dismissed by the user';
  }
  return got;
}

/** dialog is what the wrapped alert, confirm or prompt (type) returns. */
export const dialog = (type, message, fallback) => {
  const text = apply(slice, str(message ?? ''), [0, 500]);
  const answer = answerOf(type);
  if (!answer) return byUser(type, message, fallback, text);
  const accept = type === 'alert' || answer.accept;
  report({ __proto__: null, type, message: text, answered: accept ? 'accepted' : 'dismissed' });
  if (type === 'alert') return undefined;
  if (type === 'confirm') return accept;
  return accept ? String(answer.text ?? fallback ?? '') : null;
};
