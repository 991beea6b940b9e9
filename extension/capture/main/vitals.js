// Web vitals (LCP, CLS, INP, FCP, TTFB, long tasks), recorded at work, in
// the top document only (as the web-vitals library does): their
// PerformanceObservers were most of what each frame paid, about 6 of the 10
// ms of main-thread time an iframe cost (make bench-pages, 20 iframes). The
// lean bundle leaves this module out (full.js imports it, lean.js does not).
import { keys, MathRound, now, NumberIsFinite } from './builtins.js';
import { emit, on } from './channel.js';
import { clearTimeout_, setTimeout_, win } from './page.js';
import { round } from './text.js';

const Observer = win.PerformanceObserver;

// A metric that keeps improving (LCP candidates, CLS, INP) is sent once
// it has been stable for a second, and whatever is pending when the page
// is hidden or left.
const pendingVitals = {}; // name -> {value, unit, timer}

/** vital notes metric name's value, sent after delay ms of stability (at once without one). */
function vital(name, value, unit, delay) {
  if (!NumberIsFinite(value) || !on('vital')) return;
  let p = pendingVitals[name];
  if (!p) p = pendingVitals[name] = { value, unit, timer: 0 };
  p.value = value;
  if (p.timer) clearTimeout_(p.timer);
  p.timer = delay ? setTimeout_(() => sendVital(name), delay) : 0;
  if (!delay) sendVital(name);
}

/** sendVital sends the pending value of metric name. */
function sendVital(name) {
  const p = pendingVitals[name];
  if (!p) return;
  if (p.timer) clearTimeout_(p.timer);
  pendingVitals[name] = undefined;
  const value = p.unit === 'score' ? MathRound(p.value * 10000) / 10000 : round(p.value);
  emit({ kind: 'vital', ts: now(), name, value, unit: p.unit });
}

/** sendPendingVitals sends every metric still pending (the page is hidden or left). */
export function sendPendingVitals() {
  const ks = keys(pendingVitals);
  for (let i = 0; i < ks.length; i++) sendVital(ks[i]);
}

/** observe calls cb with each PerformanceObserver entry of type (buffered: those before too). */
function observe(type, cb, extra) {
  if (!Observer) return;
  try {
    const o = new Observer((list) => {
      try {
        const entries = list.getEntries();
        for (let i = 0; i < entries.length; i++) cb(entries[i]);
      } catch {
        // ignore
      }
    });
    const opts = { type, buffered: true };
    if (extra) {
      const ks = keys(extra);
      for (let i = 0; i < ks.length; i++) opts[ks[i]] = extra[ks[i]];
    }
    o.observe(opts);
  } catch {
    // entry type not supported here
  }
}

// LCP stops at the first user input (the web-vitals definition).
let lcpFinal = false;

/** finalizeLCP sends LCP as it is: the user's first input ends it. */
export function finalizeLCP() {
  if (lcpFinal) return;
  lcpFinal = true;
  sendVital('LCP');
}

/** captureVitals starts the observers of the page's web vitals. */
export function captureVitals() {
  observe('paint', (e) => {
    if (e.name === 'first-contentful-paint') vital('FCP', e.startTime, 'ms');
  });
  let ttfbSent = false; // Chrome reports the navigation entry again when the load ends
  observe('navigation', (e) => {
    if (e.responseStart > 0 && !ttfbSent) {
      ttfbSent = true;
      vital('TTFB', e.responseStart, 'ms');
    }
  });
  observe('largest-contentful-paint', (e) => {
    if (!lcpFinal) vital('LCP', e.renderTime || e.loadTime || e.startTime, 'ms', 1000);
  });
  observeShifts();
}

/** observeShifts observes CLS, INP and long tasks. */
function observeShifts() {
  let clsSession = 0;
  let clsSessionStart = 0;
  let clsLast = 0;
  let cls = 0;
  let inp = 0;
  observe('layout-shift', (e) => {
    if (e.hadRecentInput) return;
    // CLS is the largest session window: shifts < 1 s apart, window < 5 s.
    if (clsSession && e.startTime - clsLast < 1000 && e.startTime - clsSessionStart < 5000) {
      clsSession += e.value;
    } else {
      clsSession = e.value;
      clsSessionStart = e.startTime;
    }
    clsLast = e.startTime;
    if (clsSession > cls) {
      cls = clsSession;
      vital('CLS', cls, 'score', 1000);
    }
  });
  // INP here is the slowest interaction so far (exact for pages with
  // fewer than 50 interactions).
  observe('event', (e) => {
    if (e.interactionId && e.duration > inp) {
      inp = e.duration;
      vital('INP', inp, 'ms', 1000);
    }
  }, { durationThreshold: 40 });
  observe('longtask', (e) => {
    if (on('vital')) emit({ kind: 'vital', ts: now(), name: 'longtask', value: round(e.duration), unit: 'ms' });
  });
}
