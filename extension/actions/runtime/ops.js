// The DOM runtime's ops other than act: wait, outline, summary, frames,
// metrics, scroll, ping; handle answers any of them, as page-ops.js
// (generated from internal/tools/interact_pageops.go) declares them.
import { act, changed } from './act.js';
import { nextFrame, shows, sleep, view } from './geometry.js';
import { core, engine } from './globals.js';
import { counter, refFor } from './refs.js';
import { Failure, brief, candidates, what } from './targets.js';
import { messageFault } from './message.js';
import { actionable } from './waits.js';

// --- wait, outline, summary ----------------------------------------------------

/** wait (op "wait") waits until msg.target is in msg.state, msg.text shows, or it is gone, until msg.timeout_ms. */
async function wait(msg) {
  const deadline = performance.now() + Math.max(0, msg.timeout_ms);
  const state = msg.state || 'visible';
  for (;;) {
    let done = false;
    let detail = '';
    if (msg.target) {
      let els = [];
      try {
        els = candidates(msg.target, msg.prefix);
      } catch (e) {
        if (!(e instanceof Failure) || e.reason !== 'stale_ref' || (state !== 'hidden' && state !== 'detached')) throw e;
      }
      const visible = els.filter(shows);
      done = { attached: els.length > 0, visible: visible.length > 0, hidden: visible.length === 0, detached: els.length === 0 }[state];
      detail = `${what(msg.target)} to be ${state} (now: ${els.length} attached, ${visible.length} visible)`;
      if (done) {
        const el = state === 'visible' ? visible[0] : els[0];
        return el ? { target: brief(el, msg.prefix) } : {};
      }
    } else if (msg.text) {
      const has = core.textMatches(document.body?.innerText || '', msg.text, false);
      done = msg.gone ? !has : has;
      detail = `the text ${JSON.stringify(msg.text)} to be ${msg.gone ? 'gone from' : 'on'} the page`;
      if (done) return {};
    } else {
      return {};
    }
    if (performance.now() >= deadline) {
      throw new Failure('timeout', `waited ${msg.timeout_ms} ms for ${detail}; pass a larger timeout_ms, or check the page with analyze({what:"dom"})`);
    }
    await sleep(50);
  }
}

/** outline (op "outline") gives the page's (or msg.scope's) outline text, with a line and a nonce per iframe. */
async function outline(msg) {
  let root = document;
  if (msg.scope) root = await actionable(msg.scope, msg.prefix, msg.timeout_ms ?? 0, {});
  const refFor1 = (el) => refFor(el, msg.prefix);
  const iframes = [];
  const out = core.outline(root, {
    refFor: refFor1, view, interactiveOnly: Boolean(msg.interactive_only), maxChars: msg.max_chars,
    onFrame: (el, line) => iframes.push({ el, line }),
  });
  // Each iframe's document learns a nonce, by which the worker tells
  // which frame it is and splices its outline in under the line.
  const frames = [];
  for (const { el, line } of iframes) {
    if (!el.contentWindow) continue;
    const nonce = crypto.randomUUID();
    el.contentWindow.postMessage({ gasolineProbe: nonce }, '*');
    frames.push({ line, nonce });
  }
  return {
    text: out.lines.join('\n'), lines: out.lines.length, chars: out.chars, interactive: out.interactive,
    truncated: out.truncated, clipped: out.clipped, frames,
  };
}

/** summary (op "summary") gives a short account of the page: its headings, forms, landmarks and interactive elements. */
function summary(msg) {
  const P = msg.prefix;
  const headings = [];
  const landmarks = [];
  const forms = [];
  const counts = { links: 0, buttons: 0, fields: 0, images: 0, iframes: 0 };
  core.walk(document, (el) => {
    if (!view.visible(el)) return false;
    const role = core.roleOf(el);
    switch (role) {
      case 'heading':
        if (headings.length < 15 && core.headingLevel(el) <= 3) {
          headings.push(`h${core.headingLevel(el)} ${core.clip(core.nameOf(el, view, role), 80)}`);
        }
        break;
      case 'link': counts.links++; break;
      case 'button': counts.buttons++; break;
      case 'img': counts.images++; break;
      case 'iframe': counts.iframes++; break;
      case 'textbox': case 'searchbox': case 'combobox': case 'listbox': case 'checkbox': case 'radio':
      case 'slider': case 'spinbutton': case 'switch':
        counts.fields++;
        break;
    }
    if (core.LANDMARKS.has(role) && role !== 'form' && landmarks.length < 12) {
      const n = core.nameOf(el, view, role);
      landmarks.push(n ? `${role} "${core.clip(n, 40)}"` : role);
    }
    if (el.localName === 'form' && forms.length < 5) {
      const fields = [];
      let more = 0;
      core.walk(el, (c) => {
        if (!view.visible(c)) return false;
        const r = core.roleOf(c);
        if (!core.isInteractive(c, r) || r === 'link') return;
        if (fields.length >= 12) {
          more++;
          return;
        }
        const f = brief(c, P);
        const st = core.states(c, r).filter((s) => s === 'required' || s === 'disabled' || s === 'checked');
        if (st.length) f.states = st.join(' ');
        fields.push(f);
        return false; // a field's options are not fields
      }, view);
      const form = { name: core.clip(core.nameOf(el, view, 'form'), 60), fields };
      if (!form.name) delete form.name;
      if (more) form.more_fields = more;
      forms.push(form);
    }
  }, view);
  const main = document.querySelector('main, [role=main]') || document.body;
  const text = core.norm(main?.innerText || '');
  return { headings, landmarks, forms, counts, text: core.clip(text, 600), text_chars: text.length };
}

// The nonce a parent document last sent this one (op "frame"), so the
// worker can tell which frame an iframe element holds (op "probe").
let probed = '';
addEventListener('message', (e) => {
  if (e.source === parent && e.source !== window && typeof e.data?.gasolineProbe === 'string') probed = e.data.gasolineProbe;
});

/**
 * frameOf finds the iframe msg.selector names and posts msg.nonce into
 * it; the worker then asks the tab's frames which one received it.
 */
function frameOf(msg) {
  let el;
  try {
    el = engine.queryDeep(document, msg.selector).find((e) => e.localName === 'iframe' || e.localName === 'frame');
  } catch (e) {
    throw new Failure('bad_target', `frame ${JSON.stringify(msg.selector)} is not a valid CSS selector (${e.message})`);
  }
  if (!el) {
    throw new Failure('not_found', `no iframe matches frame ${JSON.stringify(msg.selector)}; pass a CSS selector of the iframe element (e.g. "iframe#checkout" or "iframe[name=pay]")`);
  }
  if (!el.contentWindow) throw new Failure('not_found', `the iframe ${core.describe(el, view)} has no document loaded yet; wait and retry`);
  el.contentWindow.postMessage({ gasolineProbe: msg.nonce }, '*');
  return { src: el.src || '' };
}

const OPS = {
  act,
  changed,
  wait,
  outline,
  summary,
  frame: frameOf,
  probe: (msg) => ({ match: Boolean(msg.nonce) && probed === msg.nonce }),
  probed: () => ({ nonce: probed }),
  metrics: () => ({ width: innerWidth, height: innerHeight, scroll_height: document.documentElement.scrollHeight, scroll_y: scrollY }),
  async scroll(msg) {
    scrollTo({ left: scrollX, top: msg.y, behavior: 'instant' });
    await nextFrame();
    await nextFrame();
    return { y: scrollY };
  },
  ping: () => ({ counter }),
};

/**
 * flushHere is the flush of this document's capture that an op's flush
 * asks for once the op is done (act, changed): the relay's own flush
 * (capture/relay/flush.js flushAnswer), this world's gasolineRelay, so
 * the worker stores what the page recorded from the op's answer instead
 * of asking the relay in a round trip of its own (issue 33). null without
 * a relay here, when the page went into the back/forward cache meanwhile
 * (what waits then goes in batches), or when the op submitted a form or
 * followed a link: the op is answered at once then, before the document
 * goes, and the worker flushes it as before.
 */
async function flushHere(ask) {
  const relay = globalThis.gasolineRelay;
  if (typeof relay !== 'function') return null;
  try {
    return await relay(Array.isArray(ask.polls) ? ask.polls : [], true);
  } catch {
    return null;
  }
}

/**
 * handle answers one {gasoline: "dom"} message: {ok: true, ...} or {ok:
 * false, reason, message}. A message the ops' declaration (page-ops.js)
 * does not allow, an undeclared op or field among them, is refused with
 * reason internal: the worker and this runtime disagree.
 */
export async function handle(msg) {
  try {
    const fault = messageFault(msg);
    if (fault) return { ok: false, reason: 'internal', message: `extension bug: ${fault}` };
    const op = Object.hasOwn(OPS, msg.op) ? OPS[msg.op] : null;
    if (!op) return { ok: false, reason: 'internal', message: `extension bug: the runtime has no handler of op ${JSON.stringify(msg.op)}` };
    const out = await op({ prefix: 'e', ...msg });
    const flushed = msg.flush ? await flushHere(msg.flush) : null;
    return flushed ? { ok: true, ...out, flushed } : { ok: true, ...out };
  } catch (e) {
    if (e instanceof Failure) return { ok: false, reason: e.reason, message: e.message, ...e.extra };
    return { ok: false, reason: 'internal', message: `${e?.name || 'Error'}: ${e?.message || e}` };
  }
}
