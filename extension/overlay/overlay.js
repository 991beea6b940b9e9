// The draw-mode overlay (seed 004), injected by the worker into a tab's top
// document, in the extension's ISOLATED world, after the DOM runtime
// (dist/runtime.js, which carries core.js). It defines
// globalThis.gasolineOverlay = {open(params), close()}. An ES module (the
// session in session.js, its look in look.js, the pure logic in logic.js),
// shipped as the classic script dist/overlay.js (scripts/bundle).
//
// The overlay lives in a closed shadow root on a fixed, full-viewport host,
// so the page's styles and scripts cannot reach it and its styles do not
// leak. It acts only on trusted input (isTrusted): a page's synthetic
// events do nothing. Notes are not typed here: each annotation's note is
// an extension frame (note.html, note.js), which the page can neither
// script nor listen to, and the overlay never sees what is typed in it;
// Ctrl+Enter and Esc pressed there reach the overlay through the worker
// ({gasoline: "draw-key"}). A key the user types while the focus is still
// on its way to a note (an extension frame is another process: the first
// keys after a box is drawn may reach this document first) never goes to
// the page: the overlay takes it, with when it was typed, and hands it to
// that note ({gasoline: "draw-type", key, keys: [{k, t}]}, once the frame
// has loaded), which puts every key in the order typed (note.js). A key
// typed after a box was begun can also still reach the previous note's
// frame, whose process learns late that the focus moved: the overlay tells
// the open note frames when a note is made ({gasoline: "draw-new", to, at,
// notes}: the new note's key, when its box was begun, the other notes'
// keys), and a frame hands the keys it got since then back ({gasoline:
// "draw-late"}, through the worker), which the overlay passes on to the new
// note (draw-type). Its state lives here, in the page, not in a
// worker await: Done and Esc send {gasoline: "draw", post} to the worker,
// which fills in the notes from their frames, posts it to the daemon and
// answers whether it was taken. On Done the overlay hides while
// the worker captures the tab for the annotations' crops. Rectangles are kept in page
// coordinates and redrawn on scroll, so they stay on what they mark. When it
// closes it removes its host and every listener it added.
import { close, open } from './session.js';

if (!globalThis.gasolineOverlay) globalThis.gasolineOverlay = Object.freeze({ open, close });
