// Stage marks of the commands this worker runs, for measuring the command
// path (issue 33: test/e2e/cmd/browserbench -stages). Off unless a
// profiler turned it on in the worker (DevTools: globalThis.gasolineTrace
// = []); a mark then costs one array push, and otherwise one global read.
// Nothing here is read by the extension itself.

/** MAX_MARKS bounds the marks kept (a profiler reads and empties the array). */
export const MAX_MARKS = 100000;

/**
 * mark records that command id reached stage now ([id, stage,
 * performance.now()]), when the trace is on.
 */
export function mark(id, stage) {
  const t = globalThis.gasolineTrace;
  if (Array.isArray(t) && t.length < MAX_MARKS) t.push([id, stage, performance.now()]);
}
