// The DOM runtime's visibility and geometry: what is shown, where, what is
// under a point, frames and sleeps.
import { core, engine } from './globals.js';

// --- visibility and geometry -------------------------------------------------

// view.visible is the outline's and the matchers' filter (the engine's).
export const view = engine.pageView;

/** shows reports an element a user could see: rendered with a non-empty box. */
export function shows(el) {
  if (!view.visible(el)) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

/** boxOf is el's box in the view, in whole CSS pixels. */
export const boxOf = (el) => {
  const r = el.getBoundingClientRect();
  return { x: Math.round(r.left), y: Math.round(r.top), w: Math.round(r.width), h: Math.round(r.height) };
};

/** nextFrame resolves after the next animation frame, or 50 ms in a tab that paints no frames. */
export const nextFrame = () => new Promise((resolve) => {
  const t = setTimeout(resolve, 50);
  requestAnimationFrame(() => {
    clearTimeout(t);
    resolve();
  });
});
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * animating reports whether a CSS animation, transition or Web Animation
 * runs on el or on what contains it (through shadow hosts): what moves
 * an element without its page's script. Only then does actionable wait a
 * frame to see its box stay put (issue 33: the frame cost every click
 * about 9 ms; the element is acted on in the task that hit-tested it).
 * which picks the animations that count (starting: those not started yet).
 */
export function animating(el, which = running) {
  let all;
  try {
    all = document.getAnimations();
  } catch {
    return true;
  }
  return all.some((a) => which(a) && a.effect?.target && core.contains(a.effect.target, el));
}

const running = (a) => a.playState === 'running';

/** starting picks, for animating, the animations still waiting to start (a transition just begun holds its first frame's box until it starts). */
export const starting = (a) => a.pending === true;

/** deepActive is the focused element, through shadow roots (engine.shadowOf). */
export function deepActive() {
  let a = document.activeElement;
  while (a && engine.shadowOf(a)?.activeElement) a = engine.shadowOf(a).activeElement;
  return a;
}

/** hitAt is the element at (x, y), through shadow roots (engine.shadowOf). */
export function hitAt(x, y) {
  let hit = document.elementFromPoint(x, y);
  while (hit && engine.shadowOf(hit)) {
    const inner = engine.shadowOf(hit).elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  return hit;
}
