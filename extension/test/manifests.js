// The extension's two manifests, for the node tests that read one: Chrome's
// (extension/manifest.json) and Firefox's, which extension/firefox.go
// makes from it (go generate writes the copy firefox-manifest.json here;
// a Go test fails while it is stale). A test of the manifest runs for both.
import fs from 'node:fs';

const read = (p) => JSON.parse(fs.readFileSync(new URL(p, import.meta.url)));

/** manifests lists {browser, manifest} for Chrome and Firefox. */
export const manifests = [
  { browser: 'chrome', manifest: read('../manifest.json') },
  { browser: 'firefox', manifest: read('./firefox-manifest.json') },
];

/** manifestOf returns the manifest of browser ('chrome' or 'firefox'). */
export const manifestOf = (browser) => manifests.find((m) => m.browser === browser).manifest;
