// The MAIN-world capture's bounds: what a record may hold, and how the page
// side buffers and sends records.

export const LIMITS = {
  message: 8000, // a log or error message after serialisation
  stack: 4000,
  nested: 300, // a string inside a serialised object
  depth: 3, // object nesting shown before "[Object]"
  entries: 20, // keys or items shown per object, array, map or set
  url: 2048,
  headers: 64,
  buffer: 1000, // records held while the relay is not connected
  flushCount: 100, // records per port message
  flushMs: 20,
};
export const DEFAULT_BODY_CAP = 262144;
// SCRIPT_NAME is the bundle's name in stack traces (its sourceURL, see full.js).
export const SCRIPT_NAME = 'gasoline-capture.js';
