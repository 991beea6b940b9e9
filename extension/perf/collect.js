// The page side of analyze performance, injected on demand (perf/worker.js)
// into the top document's ISOLATED world after the DOM runtime, never at
// document_start: it reads what the browser already measured from its
// buffered performance entries (long animation frames with their scripts,
// long tasks, event timing, layout shifts, largest contentful paint, paint,
// navigation and resource timing) and returns a bounded report, elements
// named as the outline names them (the runtime's ref, the engine's role and
// accessible name). internal/perf ranks it. A classic script: it defines
// globalThis.gasolinePerf once.
(() => {
  if (globalThis.gasolinePerf) return;
  const engine = globalThis.gasolineEngine;

  // The report's bounds: a page that measured more keeps its biggest.
  const MAX = { frames: 20, scripts: 3, tasks: 20, interactions: 10, blocking: 10, shifts: 10, sources: 3, images: 500, name: 80 };

  /**
   * buffered returns the entries of type the browser buffered for this
   * document (an empty list for a type it does not support): an observer
   * with buffered:true, read at once and after one task, then disconnected.
   */
  async function buffered(types) {
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

  /** element names node as the outline does: {ref, role, name}; null when it is gone. */
  function element(node) {
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

  const round = (v) => Math.round(v * 10) / 10;
  const top = (list, n, by) => list.slice().sort((a, b) => by(b) - by(a)).slice(0, n);

  /** early holds the script entries startScripts judged the extensions' own (set by collect). */
  let early = new Set();

  function script(s) {
    return {
      ms: round(s.duration), url: s.sourceURL || '', fn: s.sourceFunctionName || '',
      char: s.sourceCharPosition > 0 ? s.sourceCharPosition : 0, invoker: s.invoker || '', type: s.invokerType || '',
      early: early.has(s) || undefined,
    };
  }

  /** notPage says whether a script entry is an extension's: by its URL's scheme, or judged so by startScripts. */
  const notPage = (s) => early.has(s) || /^(chrome|moz|safari-web)-extension:/.test(s.sourceURL || s.invoker || '');

  /**
   * startScripts returns the classic-script entries of frames that began
   * before mark, the moment gasoline's document_start scripts were done in
   * this document (actions/channel.js notes it as gasolineStartEnd when the
   * MAIN world's last start script, actions/dialogs.js (last in
   * dist/start-main.js), hands over its
   * channel). No page script runs before the document_start content
   * scripts, so such an entry is an extension's start script (ours, or
   * another extension's that ran before), though Chrome names it by the
   * page's URL as it names the page's inline scripts. None without a mark
   * (a document gasoline's start scripts did not run in).
   */
  function startScripts(frames, mark = globalThis.gasolineStartEnd) {
    if (!(mark > 0)) return new Set();
    return new Set(frames.flatMap((f) => f.scripts || []).filter((s) => s.invokerType === 'classic-script' && s.startTime < mark));
  }

  /**
   * interactions groups event timing entries by interactionId: each
   * interaction's span and its INP breakdown (input delay, processing,
   * presentation), its target, and the script that handled it (the longest
   * script of a long animation frame that ran while it was processed).
   */
  function interactions(events, frames) {
    const groups = new Map();
    for (const e of events) {
      if (!e.interactionId) continue;
      const g = groups.get(e.interactionId) || [];
      g.push(e);
      groups.set(e.interactionId, g);
    }
    const out = [];
    for (const g of groups.values()) {
      const start = Math.min(...g.map((e) => e.startTime));
      const end = Math.max(...g.map((e) => e.startTime + e.duration));
      const pStart = Math.min(...g.map((e) => e.processingStart));
      const pEnd = Math.max(...g.map((e) => e.processingEnd));
      const main = top(g, 1, (e) => e.processingEnd - e.processingStart)[0];
      const handlers = [];
      for (const f of frames) {
        for (const s of f.scripts || []) {
          if (s.startTime + s.duration >= pStart && s.startTime <= pEnd) handlers.push(s);
        }
      }
      const h = top(handlers.filter((s) => !notPage(s)), 1, (s) => (s.invokerType === 'event-listener' ? 1e6 : 0) + s.duration)[0];
      out.push({
        type: main.name, start: round(start), ms: round(end - start), delay: round(pStart - start),
        processing: round(pEnd - pStart), presentation: round(Math.max(0, end - pEnd)),
        target: element(g.find((e) => e.target)?.target) || undefined, script: h ? script(h) : undefined,
      });
    }
    return top(out, MAX.interactions, (i) => i.ms);
  }

  /** cls is the largest session window of shifts (gaps under 1 s, at most 5 s long). */
  function cls(shifts) {
    let best = 0;
    let sum = 0;
    let first = -Infinity;
    let last = -Infinity;
    for (const s of shifts) {
      if (s.startTime - last > 1000 || s.startTime - first > 5000) {
        sum = 0;
        first = s.startTime;
      }
      sum += s.value;
      last = s.startTime;
      best = Math.max(best, sum);
    }
    return best;
  }

  /**
   * lateImage is the image that likely caused a shift at time t: one whose
   * response was arriving then or ended within the 2 s before (decoding and
   * the next frame can take that long on a busy machine; an image is laid
   * out once its header gives its size, before its last byte), laid out
   * without width and height attributes (so no space was kept for it), the
   * one whose response began last.
   */
  function lateImage(t, loaded) {
    let best = null;
    for (const [img, began, end] of loaded) {
      if (began > t || end < t - 2000) continue;
      if (img.hasAttribute('width') && img.hasAttribute('height')) continue;
      if (!best || began > best[1]) best = [img, began, end];
    }
    if (!best) return undefined;
    const e = element(best[0]);
    return e ? { ...e, url: best[0].currentSrc || best[0].src, loaded: round(best[2]) } : undefined;
  }

  async function collect() {
    const got = await buffered(['long-animation-frame', 'longtask', 'event', 'first-input', 'layout-shift', 'largest-contentful-paint']);
    const frames = got['long-animation-frame'];
    early = startScripts(frames);
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

  globalThis.gasolinePerf = Object.freeze({ collect, startScripts });
})();
