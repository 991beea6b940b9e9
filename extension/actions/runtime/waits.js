// The DOM runtime's auto-wait: an action's target must be actionable
// (visible, enabled, stable, hit) before it acts.
import { animating, hitAt, nextFrame, shows, starting, view } from './geometry.js';
import { core, engine } from './globals.js';
import { Failure, candidates, pick, what } from './targets.js';

// --- auto-wait ---------------------------------------------------------------

/**
 * IDLE_MS is how long a loaded page must stay quiet (no DOM mutation, no
 * request finishing) before an action stops waiting for a target that is
 * missing or disabled: on a quiet page nothing is coming to change it.
 */
const IDLE_MS = 1000;

/**
 * FROZEN_LOOKS bounds how many looks in a row, one frame (or 50 ms) apart,
 * actionable takes an animated element's unchanged box for no proof that
 * it stays put (its animation clock has not moved, or a transition has not
 * started): a background tab paints no frames, and its clock may not move.
 */
const FROZEN_LOOKS = 4;

/**
 * IDLE_BUDGET_MS is the page budget of the default 10 s deadline
 * (target.js pageBudget): an agent that passes a longer timeout_ms asks
 * to wait, so its action waits it all, idle page or not.
 */
const IDLE_BUDGET_MS = 8500;

/**
 * quiet watches the page while an action waits: idleFor() is how long
 * the document has been loaded with no DOM mutation and no request
 * finishing (resource timing), counted from the start of the watch;
 * stop() ends it. The page's requests in flight are not visible from
 * this world: settled() asks the worker (actions/busy.js), which counts
 * them, and resolves true when the tab's network is quiet too, else
 * restarts the idle count.
 */
function quiet() {
  let last = performance.now();
  const touch = () => {
    last = performance.now();
  };
  const mo = new MutationObserver(touch);
  mo.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  let po = null;
  try {
    po = new PerformanceObserver(touch);
    po.observe({ type: 'resource' });
  } catch { /* no resource timing: mutations alone */ }
  return {
    idleFor: () => (document.readyState === 'complete' ? performance.now() - last : 0),
    async settled() {
      let net = null;
      try {
        net = await chrome.runtime.sendMessage({ gasoline: 'busy' });
      } catch { /* no worker answer: the page's own signals decide */ }
      if (net && (net.inflight > 0 || (typeof net.quiet_ms === 'number' && net.quiet_ms < IDLE_MS))) {
        last = Math.max(last, performance.now() - (net.inflight > 0 ? 0 : net.quiet_ms));
        return false;
      }
      return true;
    },
    stop: () => {
      mo.disconnect();
      po?.disconnect();
    },
  };
}

/**
 * actionable waits up to timeoutMs for the element target names to be
 * attached, visible, enabled (needs.enabled), editable (needs.editable),
 * stable (needs.stable: while an animation runs on it, the same box at
 * two animation times; else at once) and hit at its centre
 * (needs.hit), scrolling it into view when it is outside the viewport.
 * It resolves to the element or throws the last reason it was not ready.
 * With idle (and at most the default budget), a target still missing or
 * disabled once the page has been quiet for IDLE_MS fails then, not at
 * the deadline.
 */
export async function actionable(t, prefix, timeoutMs, needs, idle = false) {
  const watch = idle && timeoutMs > IDLE_MS && timeoutMs <= IDLE_BUDGET_MS ? quiet() : null;
  const tell = teller();
  try {
    const el = await waitActionable(t, prefix, timeoutMs, needs, watch, tell);
    tell.done();
    return el;
  } finally {
    watch?.stop();
  }
}

/**
 * TELL_AFTER_MS is how long an action waits for its target before it tells
 * the worker what for: a shorter wait is a frame or two of layout (a
 * scroll into view, an animation ending), not worth a post to the daemon.
 */
const TELL_AFTER_MS = 300;

/**
 * teller tells the worker what an action waits for in the page
 * ({gasoline: "waiting", text}: actions/waiting.js), which the agent reads
 * while the command runs: say(failure) once it has waited TELL_AFTER_MS,
 * each time the text changes; done() says "" (it waits no more) when
 * anything was said. A page without the worker tells nobody.
 */
function teller() {
  const started = performance.now();
  let told = '';
  const send = (text) => {
    told = text;
    try {
      chrome.runtime.sendMessage({ gasoline: 'waiting', text }).catch(() => {});
    } catch { /* no worker to tell */ }
  };
  return {
    say(failure) {
      const text = `${failure.reason}: ${failure.message.split('; ')[0]}`;
      if (failure.reason !== 'not_stable' && text !== told && performance.now() - started >= TELL_AFTER_MS) send(text);
    },
    done() {
      if (told) send('');
    },
  };
}

/**
 * boxWatch follows an element's box across waitActionable's looks, for
 * needs.stable. moving(el, box) says whether el, its box now, may still
 * be moving: while an animation runs on it (else it is still at once),
 * until the same box is seen at another animation time with none of its
 * animations still to start. The same box at the same time proves
 * nothing (a busy renderer can miss a frame: the wait ends on its timeout
 * and the animation clock has not moved), nor does a transition not
 * started yet (its first box); up to FROZEN_LOOKS such looks, for a tab
 * that paints no frames. forget() starts over (after a scroll). Exported
 * for its tests.
 */
export function boxWatch() {
  let prevBox = null;
  let prevTime = null; // the animation time prevBox was seen at
  let frozen = 0; // looks in a row that found prevBox again without proof it stays put
  return {
    forget() {
      prevBox = null;
    },
    moving(el, box) {
      if (prevBox === null && !animating(el)) return false;
      const time = document.timeline?.currentTime ?? null;
      const still = box === prevBox;
      if (still && (frozen >= FROZEN_LOOKS || !((time !== null && time === prevTime) || animating(el, starting)))) return false;
      frozen = still ? frozen + 1 : 0;
      prevBox = box;
      prevTime = time;
      return true;
    },
  };
}

/** waitActionable waits until target t names one element that meets needs (watch, when given, sees what it waits through; tell hears each failed look), failing at timeoutMs with why it is not. */
async function waitActionable(t, prefix, timeoutMs, needs, watch, tell) {
  const deadline = performance.now() + Math.max(0, timeoutMs);
  let last = null;
  let seen = null; // an element found once, to tell detached from not found
  const motion = boxWatch();
  let scrolled = 0;
  for (;;) {
    try {
      const els = candidates(t, prefix);
      let el = pick(t, els, prefix);
      if (needs.control && el) el = core.controlOf(el);
      if (!el) {
        throw seen
          ? new Failure('detached', `the element ${what(t)} named (${core.describe(seen, view)}) was removed from the page while waiting for it; ` +
            'the page re-rendered it: take a new snapshot or retry')
          : new Failure('not_found', `no element matches ${what(t)}; check the page with analyze({what:"dom"}) ` +
            '(or query), or wait_for it if it appears later');
      }
      seen = el;
      if (!needs.invisible && !shows(el)) {
        throw new Failure('not_visible', `${core.describe(el, view)} (${what(t)}) is not visible (hidden, display:none or zero size); ` +
          'make it visible first (open its menu or section), or target another element');
      }
      if (needs.enabled && core.isDisabled(el)) {
        throw new Failure('disabled', `${core.describe(el, view)} is disabled; do what enables it first (fill the required fields), or wait_for it`);
      }
      if (needs.editable && !editable(el)) {
        throw new Failure('not_editable', `${core.describe(el, view)} is not an editable field (input, textarea, select or contenteditable) or is read-only; target the field itself`);
      }
      if (needs.invisible) return el; // acts on hidden elements too: no layout checks
      const r = el.getBoundingClientRect();
      const box = `${r.left},${r.top},${r.width},${r.height}`;
      const inView = r.top + r.height / 2 >= 0 && r.left + r.width / 2 >= 0 &&
        r.top + r.height / 2 < innerHeight && r.left + r.width / 2 < innerWidth;
      if (!inView && scrolled < 3) {
        el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
        scrolled++;
        motion.forget();
        throw new Failure('not_visible', `${core.describe(el, view)} is outside the viewport`);
      }
      if (needs.stable && motion.moving(el, box)) {
        throw new Failure('not_stable', `${core.describe(el, view)} is still moving (animating)`);
      }
      if (needs.hit) {
        const x = r.left + r.width / 2;
        const y = r.top + r.height / 2;
        const hit = hitAt(x, y);
        // A hit inside el's <label> (not a control of its own) clicks el too.
        const labelled = Boolean(hit) && (hit.localName === 'label' || !core.isInteractive(hit)) && core.controlOf(hit) === el;
        if (hit && !core.contains(el, hit) && !labelled && !engine.partOf(el, hit)) {
          throw new Failure('covered', `${core.describe(el, view)} is covered by ${core.describe(hit, view)} at its centre (${Math.round(x)}, ${Math.round(y)}); ` +
            'close or dismiss what is on top (a dialog, banner or overlay), wait_for it to be hidden, or scroll',
          { covering: core.describe(hit, view) });
        }
      }
      return el;
    } catch (e) {
      if (!(e instanceof Failure)) throw e;
      if (e.reason === 'ambiguous' || e.reason === 'bad_target' || e.reason === 'stale_ref' || e.reason === 'not_editable') throw e;
      last = e;
    }
    if (performance.now() >= deadline) {
      if (last.reason === 'not_stable') last.reason = 'not_visible';
      throw last;
    }
    if (watch && (last.reason === 'not_found' || last.reason === 'disabled') && watch.idleFor() >= IDLE_MS && await watch.settled()) {
      last.message += ` (the page was idle for ${IDLE_MS} ms: no DOM change, no request in flight; so it was not awaited longer. ` +
        'If it comes later, wait_for it first)';
      throw last;
    }
    tell.say(last);
    await nextFrame();
  }
}

/** editable says whether el takes a value typed or chosen: a contenteditable, or a textarea, select or text-like input that is not read-only. */
export function editable(el) {
  if (el.isContentEditable) return true;
  if (el.localName === 'textarea' || el.localName === 'select') return !el.readOnly;
  if (el.localName !== 'input') return false;
  const t = (el.type || 'text').toLowerCase();
  return !el.readOnly && !['checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file', 'hidden', 'range', 'color'].includes(t);
}
