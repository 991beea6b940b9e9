// Page verb drag: drags its target onto the element {to} names.
import { focusTarget, hoverOver, mods, mouse, mouseInit, pointer } from '../events.js';
import { deepActive, hitAt, nextFrame, view } from '../geometry.js';
import { core } from '../globals.js';
import { Failure, brief } from '../targets.js';
import { actionable } from '../waits.js';
import { addAction } from '../act.js';

// --- drag --------------------------------------------------------------------

/** DRAG_STEPS is how many moves a drag makes between its two ends (libraries wait for a few). */
const DRAG_STEPS = 8;

/** centre is el's centre in the view. */
const centre = (el) => {
  const r = el.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
};

/** dragsNatively says whether pressing on el starts an HTML5 drag: it or an ancestor is draggable="true". */
const dragsNatively = (el) => Boolean(el.closest?.('[draggable="true" i]'));

/**
 * dragTo drags el onto the element o.to names, as a user's mouse does:
 * pointer and mouse over, down, then DRAG_STEPS moves a frame apart
 * (sortable libraries listen to those, on the element under the pointer
 * and the document), and up on the drop target. When the press made el
 * natively draggable (draggable="true" on it or an ancestor, which some
 * libraries set on pointerdown), the moves are HTML5 drag and drop
 * instead: dragstart on el with a DataTransfer the page shares, dragenter
 * / dragover / dragleave on what the pointer crosses, drop where the
 * last dragover was accepted (prevented), dragend on el. The result says
 * which it was and, for HTML5, whether the drop was accepted. A
 * DataTransfer made by script carries data (setData / getData / files)
 * but not effects: its dropEffect reads "none" and effectAllowed
 * "uninitialized" whatever the page sets (Chrome keeps those for the
 * browser's own drags).
 */
async function dragTo(el, o) {
  const to = await actionable(o.to, o.prefix, o.timeout_ms, { stable: true }, true);
  if (to === el) throw new Failure('bad_target', `drag's target and to are the same element (${core.describe(el, view)}); pass another element to drop on`);
  const toBrief = brief(to, o.prefix);
  const m = mods([]);
  let [x, y] = centre(el);
  const src = hoverOver(el, x, y, m);
  const down = pointer(src, 'pointerdown', x, y, m, { button: 0, buttons: 1, pressure: 0.5 });
  if (down && mouse(src, 'mousedown', x, y, m, { button: 0, buttons: 1, detail: 1 })) {
    const f = focusTarget(src);
    if (f && deepActive() !== f) f.focus({ preventScroll: true });
  }
  await nextFrame();
  // Where to drop is where to's centre is as the drag starts, as a user
  // aims: a list that reorders under the pointer moves to away meanwhile.
  const [tx, ty] = centre(to);
  if (dragsNatively(src)) return { to: toBrief, ...await html5Drag(src, to, x, y, tx, ty, m) };
  let over = src;
  for (let i = 1; i <= DRAG_STEPS; i++) {
    const sx = x + (tx - x) * i / DRAG_STEPS;
    const sy = y + (ty - y) * i / DRAG_STEPS;
    const at = hitAt(sx, sy) || to;
    if (at !== over) {
      pointer(over, 'pointerout', sx, sy, m, { buttons: 1 });
      mouse(over, 'mouseout', sx, sy, m, { buttons: 1 });
      pointer(at, 'pointerover', sx, sy, m, { buttons: 1 });
      mouse(at, 'mouseover', sx, sy, m, { buttons: 1 });
      over = at;
    }
    pointer(at, 'pointermove', sx, sy, m, { buttons: 1, pressure: 0.5 });
    mouse(at, 'mousemove', sx, sy, m, { buttons: 1 });
    await nextFrame();
    if (i === DRAG_STEPS) [x, y] = [sx, sy];
  }
  const at = hitAt(x, y) || to;
  pointer(at, 'pointerup', x, y, m, { button: 0, buttons: 0, pressure: 0 });
  mouse(at, 'mouseup', x, y, m, { button: 0, buttons: 0, detail: 1 });
  await nextFrame();
  return { to: toBrief, mode: 'pointer' };
}

/** dragEvent dispatches the HTML5 drag event type on el at (x, y) carrying dt; it says whether it was not cancelled. */
function dragEvent(el, type, x, y, m, dt) {
  const init = mouseInit(el, x, y, m, { dataTransfer: dt, buttons: type === 'dragend' || type === 'drop' ? 0 : 1 });
  init.cancelable = !['dragleave', 'dragend'].includes(type);
  return el.dispatchEvent(new DragEvent(type, init));
}

/** html5Drag runs the HTML5 drag-and-drop events of dragging src from (x, y) onto to at (tx, ty) (see dragTo). */
async function html5Drag(src, to, x, y, tx, ty, m) {
  const dt = new DataTransfer();
  pointer(src, 'pointercancel', x, y, m, { buttons: 0 }); // the browser takes over the pointer, as for a real drag
  if (!dragEvent(src, 'dragstart', x, y, m, dt)) {
    mouse(src, 'mouseup', x, y, m, { button: 0, buttons: 0 });
    return { mode: 'html5', dropped: false, note: 'the page cancelled dragstart: the element would not be dragged' };
  }
  let over = null;
  let accepted = false;
  for (let i = 1; i <= DRAG_STEPS; i++) {
    await nextFrame();
    const sx = x + (tx - x) * i / DRAG_STEPS;
    const sy = y + (ty - y) * i / DRAG_STEPS;
    dragEvent(src, 'drag', sx, sy, m, dt);
    const at = hitAt(sx, sy) || to;
    if (at !== over) {
      // A prevented dragenter accepts the drop too; else the one the browser treats as entered stays the body.
      if (over) dragEvent(over, 'dragleave', sx, sy, m, dt);
      dragEvent(at, 'dragenter', sx, sy, m, dt);
      over = at;
    }
    accepted = !dragEvent(at, 'dragover', sx, sy, m, dt);
    if (i === DRAG_STEPS) [x, y] = [sx, sy];
  }
  let dropped = false;
  if (accepted) {
    dragEvent(over, 'drop', x, y, m, dt);
    dropped = true;
  } else if (over) {
    dragEvent(over, 'dragleave', x, y, m, dt);
  }
  dragEvent(src, 'dragend', x, y, m, dt);
  await nextFrame();
  const out = { mode: 'html5', dropped };
  if (!dropped) out.note = 'the element under the drop point did not accept the drop (no dragover listener called preventDefault)';
  return out;
}

addAction('drag', { stable: true, hit: true }, dragTo);
