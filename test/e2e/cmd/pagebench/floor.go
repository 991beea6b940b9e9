//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
)

// floorName is the name of the side with the floor extension.
const floorName = "floor"

// The floor extension (-floor) asks Chrome for what the real extension
// asks of every page while idle, and runs nothing of its own: two content
// scripts at document_start, one in the ISOLATED and one in the MAIN world,
// top documents only (capture/declared.json's idle registration, here
// declared in the manifest; every frame with -at-work, as the at-work
// registration), each a lone ";", and a service worker with the
// webRequest listeners capture/network.js adds (the same filter and extra
// info), each empty. What it adds to a page is Chrome's own cost of those
// injections and listeners, which no extension that captures a page's
// console and network before its scripts run can avoid; what the real
// extension adds beyond it is its own.
const floorManifest = `{
  "manifest_version": 3,
  "name": "pagebench floor",
  "version": "1.0",
  "permissions": ["webRequest"],
  "host_permissions": ["<all_urls>"],
  "background": {"service_worker": "worker.js"},
  "content_scripts": [
    {"matches": ["<all_urls>"], "js": ["empty.js"], "run_at": "document_start", "world": "ISOLATED", "match_origin_as_fallback": true, "all_frames": %[1]t},
    {"matches": ["<all_urls>"], "js": ["empty.js"], "run_at": "document_start", "world": "MAIN", "match_origin_as_fallback": true, "all_frames": %[1]t}
  ]
}
`

const floorWorker = `const filter = { urls: ['<all_urls>'] };
const none = () => {};
chrome.webRequest.onBeforeRequest.addListener(none, filter);
chrome.webRequest.onSendHeaders.addListener(none, filter, ['requestHeaders']);
chrome.webRequest.onBeforeRedirect.addListener(none, filter, ['responseHeaders']);
chrome.webRequest.onResponseStarted.addListener(none, filter, ['responseHeaders']);
chrome.webRequest.onCompleted.addListener(none, filter, ['responseHeaders']);
chrome.webRequest.onErrorOccurred.addListener(none, filter);
`

// writeFloor writes the floor extension into dir, its content scripts in
// every frame when allFrames, and returns dir.
func writeFloor(dir string, allFrames bool) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	manifest := fmt.Sprintf(floorManifest, allFrames)
	for name, text := range map[string]string{"manifest.json": manifest, "worker.js": floorWorker, "empty.js": ";\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return "", fmt.Errorf("writing the floor extension: %w", err)
		}
	}
	return dir, nil
}

// waitFloorWorker waits up to 20 s for the floor extension's service
// worker (its id is Chrome's choice: the manifest has no key).
func waitFloorWorker(ctx context.Context, conn *cdp.Conn) error {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		ts, err := conn.Targets(ctx)
		if err != nil {
			return err
		}
		for _, t := range ts {
			if t.Type == "service_worker" && strings.HasPrefix(t.URL, "chrome-extension://") && strings.HasSuffix(t.URL, "/worker.js") {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("the floor extension's service worker did not start within 20 s")
}
