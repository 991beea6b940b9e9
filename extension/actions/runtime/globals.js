// The DOM runtime's two dependencies: the pure logic (actions/core.js) and
// the DOM engine (dom/engine.js), each this world's one copy (the first
// loaded: dist/end-isolated.js may have brought the engine before the
// runtime came). scripts/bundle bundles them with the runtime into
// dist/runtime.js.
export { core } from '../core.js';
export { engine } from '../../dom/engine.js';
