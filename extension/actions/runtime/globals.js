// The DOM runtime's two dependencies, loaded before it as classic scripts:
// the pure logic (actions/core.js) and the DOM engine (dom/engine.js).

export const core = globalThis.gasolineCore;
export const engine = globalThis.gasolineEngine;
