// One listener per browser event, shared: what a command watches while it
// runs (its tab navigating, closing, or opening another) subscribes to
// the event and unsubscribes after, instead of adding and removing a
// listener of its own. Chrome's addListener and removeListener each go to
// the browser process: a settled click added and removed about a dozen
// and spent 1.2 ms of the worker's thread on them, execute_js 0.3 ms
// (browserbench -worker-profile, issue 33). The shared listener stays
// LINGER_MS after its last subscriber left (an agent's commands come one
// after another), then goes: a listener the worker keeps makes Chrome send
// it that event for every page the user loads.

/** LINGER_MS is how long an event's listener outlives its last subscriber. */
export const LINGER_MS = 30000;

const hubs = new Map(); // event -> {fans, listener, on, timer}

/**
 * subscribe calls fn with each event's arguments until the function it
 * returns is called. Subscribers are called in the order they came; one
 * that throws does not keep the others from the event (its error is
 * reported). One that subscribes while the event is delivered gets the
 * next one, one that leaves meanwhile not this one, as with addListener.
 */
export function subscribe(event, fn) {
  let hub = hubs.get(event);
  if (!hub) {
    hub = { fans: new Set(), on: false, timer: null };
    hub.listener = (...args) => {
      for (const f of [...hub.fans]) {
        if (!hub.fans.has(f)) continue; // left while an earlier one ran
        try {
          f(...args);
        } catch (err) {
          queueMicrotask(() => {
            throw err;
          });
        }
      }
    };
    hubs.set(event, hub);
  }
  clearTimeout(hub.timer);
  hub.timer = null;
  if (!hub.on) {
    event.addListener(hub.listener);
    hub.on = true;
  }
  const fan = (...args) => fn(...args); // a subscriber twice is two fans
  hub.fans.add(fan);
  return () => {
    if (!hub.fans.delete(fan) || hub.fans.size || hub.timer) return;
    hub.timer = setTimeout(() => {
      hub.timer = null;
      if (hub.fans.size || !hub.on) return;
      event.removeListener(hub.listener);
      hub.on = false;
    }, LINGER_MS);
    hub.timer?.unref?.(); // node (the unit tests): a lingering listener keeps no process up
  };
}
