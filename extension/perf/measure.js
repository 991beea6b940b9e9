// What perf/collect.js reads the browser's measurements with, and names
// elements with: the report's bounds, the buffered entries, the outline's
// names for an element.

// The report's bounds: a page that measured more keeps its biggest.
export const MAX = { frames: 20, scripts: 3, tasks: 20, interactions: 10, blocking: 10, shifts: 10, sources: 3, images: 500, name: 80 };

const engine = globalThis.gasolineEngine;

export const round = (v) => Math.round(v * 10) / 10;
export const top = (list, n, by) => list.slice().sort((a, b) => by(b) - by(a)).slice(0, n);

/**
 * buffered returns the entries of type the browser buffered for this
 * document (an empty list for a type it does not support): an observer
 * with buffered:true, read at once and after one task, then disconnected.
 */
export async function buffered(types) {
  const supported = PerformanceObserver.supportedEntryTypes || [];
  const got = {};
  const observers = [];
  for (const type of types) {
    got[type] = [];
    if (!supported.includes(type)) continue;
    const po = new PerformanceObserver((list) => got[type].push(...list.getEntries()));
    try {
      po.observe({ type, buffered: true });
    } catch {
      continue;
    }
    observers.push([type, po]);
  }
  await new Promise((resolve) => setTimeout(resolve, 0));
  for (const [type, po] of observers) {
    got[type].push(...po.takeRecords());
    po.disconnect();
  }
  return got;
}

/**
 * unmeasured names what of types, and of the resources' render-blocking
 * status, this browser does not measure (Firefox: no layout shifts, long
 * animation frames, long tasks or renderBlockingStatus), so that the
 * report says so instead of reading as a page without them.
 */
export function unmeasured(types) {
  const supported = PerformanceObserver.supportedEntryTypes || [];
  const out = types.filter((t) => !supported.includes(t));
  if (!('renderBlockingStatus' in (globalThis.PerformanceResourceTiming?.prototype ?? {}))) out.push('render-blocking');
  return out;
}

/** element names node as the outline does: {ref, role, name}; null when it is gone. */
export function element(node) {
  if (node && node.nodeType !== 1) node = node.parentElement;
  if (!node || !node.isConnected) return null;
  const ref = globalThis.gasolineRuntime?.refFor(node);
  let role = '';
  let name = '';
  try {
    role = engine.roleOf(node);
    name = engine.nameOf(node, engine.pageView, role);
  } catch { /* a node the engine cannot read: its tag is enough */ }
  if (name.length > MAX.name) name = name.slice(0, MAX.name - 1) + '…';
  return { ref, role: role || node.localName, name };
}
