// What the recorder works with, taken from the ISOLATED world's globals
// when it starts (bind): the DOM engine (dom/engine.js), the relay's
// gasolineRecord (capture/relay.js) and capture/tap.js's gasolineTap.

/** engine is dom/engine.js's gasolineEngine; view its pageView. */
export let engine, view;
/** record hands one record to the relay (globalThis.gasolineRecord). */
export let record;
/** tap registers the recorder's handler of the user's events (capture/tap.js). */
export let tap;

/** LIMITS are the most characters of a record's name, text and value. */
export const LIMITS = { name: 200, text: 200, value: 500 };

/**
 * bind takes the engine, the relay's record and the tap from g, and
 * reports whether all three are there (else the recorder does not start).
 */
export function bind(g) {
  engine = g.gasolineEngine;
  record = g.gasolineRecord;
  tap = g.gasolineTap;
  if (!engine || typeof record !== 'function' || typeof tap !== 'function') return false;
  view = engine.pageView;
  return true;
}

/** line is s on one line (white space collapsed), clipped to n characters. */
export const line = (s, n) => engine.clip(engine.norm(s), n);
