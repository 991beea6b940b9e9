// The DOM runtime's refs ("e12": prefix + number), naming elements through
// weak references, so a ref to a removed element answers stale_ref.

// --- refs ------------------------------------------------------------------

export const byRef = new Map(); // ref → WeakRef<Element>
const refOf = new WeakMap(); // Element → ref
export let counter = 0;
let sweepAt = 1024;

/** refFor returns el's ref, minting prefix + next number the first time. */
export function refFor(el, prefix) {
  let ref = refOf.get(el);
  if (ref) return ref;
  ref = prefix + ++counter;
  refOf.set(el, ref);
  byRef.set(ref, new WeakRef(el));
  if (byRef.size >= sweepAt) {
    for (const [r, w] of byRef) if (!w.deref()) byRef.delete(r);
    sweepAt = Math.max(1024, byRef.size * 2);
  }
  return ref;
}
