// Unit tests of perf/collect.js's judgement of which script entries are an
// extension's start scripts: by the moment gasoline's document_start
// scripts were done (actions/channel.js's gasolineStartEnd), not by
// counting the page's inline scripts.
import { test } from 'node:test';
import assert from 'node:assert/strict';

await import('../perf/collect.js');
const { startScripts } = globalThis.gasolinePerf;

const page = 'https://shop.test/';
const entry = (startTime, duration, invokerType = 'classic-script', sourceURL = page) => ({ startTime, duration, invokerType, sourceURL });

test('a classic script that began before our start scripts were done is a start script; the page\'s, however heavy, are not', () => {
  const ours = [entry(2, 8), entry(11, 6)];
  // A tag manager's inline loaders, removed from the DOM since: heavy,
  // named by the page's URL, and after the mark.
  const loaders = [entry(40, 180), entry(260, 120)];
  const frames = [{ scripts: [...ours, loaders[0]] }, { scripts: [loaders[1], entry(300, 90, 'event-listener')] }, {}];
  assert.deepEqual([...startScripts(frames, 18.5)], ours);
});

test('without a mark (gasoline\'s start scripts did not run in the document) no entry is judged an extension\'s', () => {
  const frames = [{ scripts: [entry(1, 50), entry(40, 180)] }];
  assert.equal(startScripts(frames, undefined).size, 0);
  assert.equal(startScripts(frames, 0).size, 0);
});

test('the mark is read from where actions/channel.js leaves it', () => {
  const frames = [{ scripts: [entry(1, 50), entry(40, 180)] }];
  globalThis.gasolineStartEnd = 12;
  try {
    assert.deepEqual([...startScripts(frames)], [frames[0].scripts[0]]);
  } finally {
    delete globalThis.gasolineStartEnd;
  }
});

test('the collector as the worker injects it (dist/perf.js) reports, and marks the start scripts it judged early', async () => {
  const { readFileSync } = await import('node:fs');
  const vm = await import('node:vm');
  const ours = entry(2, 60);
  const frame = { startTime: 1, duration: 70, blockingDuration: 20, scripts: [ours] };
  // A browser that buffered one long animation frame and nothing else.
  class PerformanceObserver {
    static supportedEntryTypes = ['long-animation-frame'];
    constructor(fn) { this.fn = fn; }
    observe() {}
    takeRecords() { return [frame]; }
    disconnect() {}
  }
  const ctx = vm.createContext({
    PerformanceObserver, setTimeout, gasolineStartEnd: 12,
    performance: { getEntriesByType: () => [] }, document: { images: [] },
  });
  vm.runInContext(readFileSync(new URL('../dist/perf.js', import.meta.url), 'utf8'), ctx);
  const report = await vm.runInContext('gasolinePerf.collect()', ctx);
  assert.equal(report.vitals.lcp_ms, 0);
  assert.deepEqual(JSON.parse(JSON.stringify(report.frames)), [{ start: 1, ms: 70, blocking: 20, scripts: [{ ms: 60, url: page, fn: '', char: 0, invoker: '', type: 'classic-script', early: true }] }]);
});
