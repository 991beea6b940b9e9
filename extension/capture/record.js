// The user-action recorder: runs once the document is parsed, in the frames
// capture/declared.js captures, in the extension's ISOLATED world, after
// dom/engine.js (extension/dist/end-isolated.js, which the worker injects
// when webNavigation reports the document's DOMContentLoaded: a registered
// document_end script would hold the page's load event; capture/relay.js,
// actions/channel.js and capture/tap.js came at document_start, in
// dist/start-isolated.js).
// It takes from capture/tap.js (window, capturing, passive, registered
// before any page script) the user's own clicks, typing, changes, submits
// and Enter/Escape/Tab keys, describes the element with the DOM engine
// (role, accessible name, CSS path and the engine's stable locator, which
// interact can replay) and hands one record per action to the relay
// (globalThis.gasolineRecord), which sends it to the worker like the page
// script's records. A document that lacked the scripts (older than the
// extension, an iframe loaded while idle) gets it with the engine, late,
// from tabs/reach.js; it installs itself once per document.
//
// The trade of starting once the page is parsed (no page pays for the
// recorder or the engine, about 18 KB, before its own first line; a user
// acts on a parsed page, and tap.js, 0.5 KB, holds what they do before):
// an action made while the page parses is recorded only when the recorder
// comes, as the engine then describes its element and reads a field's
// value (changed, moved or removed meanwhile: as it is then); one on a page
// left before then is not recorded. In a document reached late, the page's own
// listeners on window's capture phase precede tap.js's: one that calls
// stopImmediatePropagation hides that event from the recorder.
//
// Only trusted events count: an agent's actions are dispatched by the
// runtime (untrusted) or by CDP Input (trusted, and recorded like the
// user's, which they are to the page). The isolated world sees the page's
// DOM and events but not its JavaScript, so nothing here can be replaced
// by the page.
//
// Record (kind "action", apitype.Event): {kind, ts, type, selector, role?,
// name?, text? (click, dblclick, submit), value? (input, change), key?,
// modifiers?, locator}, then what it made appear: {kind, ts, type:
// "appeared", selector, text} (below). A password or card field's value is
// never recorded ("[redacted]"); such a field's current value is
// remembered and cut out of every later record of this frame
// (capture/main/ does the same for console and network records).
//
// Source as ES modules (capture/record/), shipped as a script: scripts/bundle
// (esbuild) bundles this entry and the modules it imports into one
// self-contained function of dist/end-isolated.js. The modules only
// declare; what the recorder starts is done here, in this order.
import { onActing, endWatch, seedWatch, watchText } from './record/appeared.js';
import { flushInput, takeEvents } from './record/actions.js';
import { bind, tap } from './record/env.js';

// ARRIVAL_MS: a recorder that comes later than this after its document's
// DOMContentLoaded (far more than a worker's start takes) watches no arrival.
const ARRIVAL_MS = 5000;

/** sinceParsed is how long ago (ms) the document's DOMContentLoaded ended; 0 while unknown. */
function sinceParsed() {
  const end = performance.getEntriesByType?.('navigation')?.[0]?.domContentLoadedEventEnd;
  return end > 0 ? performance.now() - end : 0;
}

/** start starts the recorder, once per document, when the engine, the relay and the tap are there. */
function start() {
  if (globalThis.gasolineRecorder || typeof document === 'undefined' || !bind(globalThis)) return;
  Object.defineProperty(globalThis, 'gasolineRecorder', { value: true });
  takeEvents(tap, onActing);
  seedWatch(tap.changes?.());
  addEventListener('pagehide', () => {
    flushInput();
    endWatch();
  }, true);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') flushInput();
  }, true);
  // The recorder comes a worker's round trip after DOMContentLoaded: a
  // fast page may be "complete" by then. A document
  // reached late (tap.js did not run while it parsed) has long shown what
  // it arrived with, and so has one whose recorder the user's first input
  // asked for (tap.asked), or one an agent's look brought it into more
  // than ARRIVAL_MS after it was parsed (tabs/reach.js, in a page loaded
  // while idle): what it shows then is no action's doing.
  if (window.top === window && document.referrer && !tap.asked && sinceParsed() < ARRIVAL_MS) {
    const arrived = () => {
      try {
        watchText('html', document.querySelectorAll('h1,[role=alert],[role=status],output'));
      } catch {
        // recording must never break the page
      }
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', arrived, { once: true });
    else if (document.readyState === 'interactive' || tap.early) arrived();
  }
}

start();
