// The page side of analyze performance, injected on demand (perf/worker.js)
// into the top document's ISOLATED world after the DOM runtime, never at
// document_start: it reads what the browser already measured from its
// buffered performance entries (long animation frames with their scripts,
// long tasks, event timing, layout shifts, largest contentful paint, paint,
// navigation and resource timing) and returns a bounded report, elements
// named as the outline names them (the runtime's ref, the engine's role and
// accessible name). internal/perf ranks it. It defines
// globalThis.gasolinePerf once. An ES module (its parts beside it), shipped
// as the classic script dist/perf.js (scripts/bundle).
import { buffered, element, MAX, round, top, unmeasured } from './measure.js';
import { interactions, judge, script, startScripts } from './scripts.js';
import { cls, lateImage } from './shifts.js';

const TYPES = ['long-animation-frame', 'longtask', 'event', 'first-input', 'layout-shift', 'largest-contentful-paint'];

async function collect() {
  const got = await buffered(TYPES);
  const frames = got['long-animation-frame'];
  judge(frames);
  const resources = performance.getEntriesByType('resource');
  const nav = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByType('paint').find((p) => p.name === 'first-contentful-paint');
  const lcp = got['largest-contentful-paint'].at(-1);
  const shifts = got['layout-shift'].filter((s) => !s.hadRecentInput);
  const ins = interactions([...got.event, ...got['first-input']], frames);

  const timing = new Map(resources.map((r) => [r.name, r]));
  const loaded = []; // [img, response began, response ended]
  for (const img of Array.from(document.images).slice(0, MAX.images)) {
    const r = timing.get(img.currentSrc || img.src);
    if (r) loaded.push([img, r.responseStart || r.startTime, r.responseEnd]);
  }
  return {
    unmeasured: unmeasured(TYPES),
    vitals: {
      lcp_ms: lcp ? round(lcp.startTime) : 0,
      lcp_element: lcp ? element(lcp.element) || undefined : undefined,
      lcp_url: lcp?.url || undefined,
      cls: Math.round(cls(shifts) * 1000) / 1000,
      inp_ms: ins.length ? Math.max(...ins.map((i) => i.ms)) : 0,
      fcp_ms: fcp ? round(fcp.startTime) : 0,
      ttfb_ms: nav ? round(nav.responseStart) : 0,
    },
    interactions: ins,
    frames: top(frames, MAX.frames, (f) => f.duration).map((f) => ({
      start: round(f.startTime), ms: round(f.duration), blocking: round(f.blockingDuration || 0),
      scripts: top(f.scripts || [], MAX.scripts, (s) => s.duration).map(script),
    })),
    long_tasks: top(got.longtask, MAX.tasks, (t) => t.duration).map((t) => ({ start: round(t.startTime), ms: round(t.duration) })),
    blocking: top(resources.filter((r) => r.renderBlockingStatus === 'blocking'), MAX.blocking, (r) => r.responseEnd - r.startTime)
      .map((r) => ({ url: r.name, type: r.initiatorType, start: round(r.startTime), ms: round(r.responseEnd - r.startTime) })),
    shifts: top(shifts, MAX.shifts, (s) => s.value).map((s) => ({
      start: round(s.startTime), value: Math.round(s.value * 10000) / 10000,
      sources: (s.sources || []).slice(0, MAX.sources).map((src) => element(src.node)).filter(Boolean),
      image: lateImage(s.startTime, loaded),
    })),
  };
}

if (!globalThis.gasolinePerf) globalThis.gasolinePerf = Object.freeze({ collect, startScripts });
