//go:build unix

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/cdp"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/chromium"
	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

var floorOnly = flag.Bool("floor-only", false, "measure only execute_js beside its floor: a minimal MV3 extension in a second Chromium of the same binary that takes a command from a held long poll, runs document.title with scripting.executeScript and posts the answer (issue 33); interleaved")

// The floor extension is the least any MV3 extension that dials a loopback
// server must do for one execute_js: answer a held fetch, run a function in
// the page's MAIN world, fetch a POST back. No sealing, no capture flush,
// no tab ownership, no origin rule, no MCP: what is left of gasoline's
// execute_js above it is ours to win.
const floorManifest = `{
  "manifest_version": 3,
  "name": "gasoline bench floor",
  "version": "1",
  "background": {"service_worker": "sw.js"},
  "permissions": ["scripting", "tabs"],
  "host_permissions": ["http://127.0.0.1/*"]
}`

const floorWorker = `const base = 'http://127.0.0.1:%d';
const subtle = crypto.subtle;
const enc = new TextEncoder();
let tab = null;
let keys = null;
// seal does what gasoline's sealed transport costs a post (extension/auth.js):
// a SHA-256 of the body, AES-GCM over it, an HMAC over the request line.
async function seal(text) {
  keys ??= {
    hmac: await subtle.importKey('raw', new Uint8Array(32), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']),
    aes: await subtle.importKey('raw', new Uint8Array(32), 'AES-GCM', false, ['encrypt']),
  };
  const hash = await subtle.digest('SHA-256', enc.encode(text));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const body = await subtle.encrypt({ name: 'AES-GCM', iv, additionalData: enc.encode('POST /result') }, keys.aes, enc.encode(text));
  const sig = await subtle.sign('HMAC', keys.hmac, enc.encode('POST /result ' + hash.byteLength + Date.now()));
  return { body, sig };
}
async function post(text, sealed) {
  if (!sealed) return fetch(base + '/result', { method: 'POST', body: text });
  const s = await seal(text);
  const r = await fetch(base + '/result?sealed=1&text=' + encodeURIComponent(text), { method: 'POST', body: s.body, headers: { 'X-Sig': String(s.sig.byteLength) } });
  const answer = await r.text();
  await subtle.verify('HMAC', keys.hmac, new Uint8Array(32), enc.encode(answer));
  return r;
}
async function run(cmd) {
  try {
    tab ??= (await chrome.tabs.query({ url: cmd.url + '*' }))[0]?.id;
    const [res] = await chrome.scripting.executeScript({ target: { tabId: tab }, world: 'MAIN', func: () => document.title });
    await post(JSON.stringify({ id: cmd.id, value: res.result }), cmd.sealed);
  } catch (err) {
    console.warn('floor:', err);
  }
}
// As gasoline's poller does, the next poll is held while a command runs.
async function loop() {
  for (;;) {
    try {
      const r = await fetch(base + '/next');
      if (r.status === 200) run(await r.json());
    } catch (err) {
      console.warn('floor:', err);
      await new Promise((ok) => setTimeout(ok, 100));
    }
  }
}
loop();
`

// floorServer hands one command at a time to the floor extension's held
// long poll and times it until the extension posts its answer.
type floorServer struct {
	next    chan floorCmd
	results chan floorResult
	srv     *http.Server
	port    int
}

type floorCmd struct {
	ID     int    `json:"id"`
	URL    string `json:"url"`
	Sealed bool   `json:"sealed"`
}

type floorResult struct {
	ID    int    `json:"id"`
	Value string `json:"value"`
	at    time.Time
}

func startFloorServer() (*floorServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &floorServer{next: make(chan floorCmd), results: make(chan floorResult, 1), port: ln.Addr().(*net.TCPAddr).Port}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /next", func(w http.ResponseWriter, r *http.Request) {
		select {
		case c := <-f.next:
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(c)
		case <-time.After(20 * time.Second):
			w.WriteHeader(http.StatusNoContent)
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("POST /result", func(w http.ResponseWriter, r *http.Request) {
		at := time.Now()
		var res floorResult
		var err error
		if r.URL.Query().Get("sealed") == "1" {
			io.Copy(io.Discard, r.Body) // the sealed body is noise; the text came in the query
			err = json.Unmarshal([]byte(r.URL.Query().Get("text")), &res)
		} else {
			err = json.NewDecoder(r.Body).Decode(&res)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res.at = at
		f.results <- res
	})
	f.srv = &http.Server{Handler: mux}
	go f.srv.Serve(ln)
	return f, nil
}

// call hands one command to the extension and waits for its answer: the
// time from the hand-over to the answer's arrival.
func (f *floorServer) call(ctx context.Context, id int, url string, sealed bool) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	start := time.Now()
	select {
	case f.next <- floorCmd{ID: id, URL: url, Sealed: sealed}:
	case <-ctx.Done():
		return 0, fmt.Errorf("the floor extension took no command %d: %w", id, ctx.Err())
	}
	select {
	case r := <-f.results:
		if r.ID != id || r.Value != "Bench" {
			return 0, fmt.Errorf("the floor extension answered %+v to command %d, want document.title %q", r, id, "Bench")
		}
		return r.at.Sub(start), nil
	case <-ctx.Done():
		return 0, fmt.Errorf("the floor extension did not answer command %d: %w", id, ctx.Err())
	}
}

// openFloorPage waits for the floor extension's worker, then opens url in
// a tab (a navigation started before an extension is loaded may never be
// sent) and waits for its title.
func openFloorPage(ctx context.Context, wsURL, url string) error {
	c, err := cdp.Dial(ctx, wsURL)
	if err != nil {
		return err
	}
	defer c.Close()
	deadline := time.Now().Add(20 * time.Second)
	for worker := false; !worker; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the floor extension's service worker did not start within 20 s")
		}
		ts, err := c.Targets(ctx)
		if err != nil {
			return err
		}
		for _, t := range ts {
			worker = worker || (t.Type == "service_worker" && strings.HasSuffix(t.URL, "/sw.js"))
		}
	}
	id, err := c.CreateTarget(ctx, url)
	if err != nil {
		return err
	}
	s, err := c.Attach(ctx, id)
	if err != nil {
		return err
	}
	for title := ""; title != "Bench"; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the floor's page %s did not load within 20 s (title %q)", url, title)
		}
		if err := s.Evaluate(ctx, "document.title", &title); err != nil {
			return err
		}
	}
	return nil
}

// floorRun times gasoline's execute_js of document.title (through
// gasoline-mcp, as an agent calls it) and the floor extension's, one of
// each in turn, and prints both rows with their ratio.
func floorRun(ctx context.Context, mc *gasoline.Client, bin, siteURL string) error {
	tmp, err := os.MkdirTemp("", "gasoline-floor-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	fs, err := startFloorServer()
	if err != nil {
		return err
	}
	defer fs.srv.Close()
	ext := filepath.Join(tmp, "ext")
	if err := os.MkdirAll(ext, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(ext, "manifest.json"), []byte(floorManifest), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(ext, "sw.js"), fmt.Appendf(nil, floorWorker, fs.port), 0o644); err != nil {
		return err
	}
	logf("starting a second %s with the floor extension", bin)
	b, err := chromium.Start(ctx, chromium.Options{
		Bin: bin, UserDataDir: filepath.Join(tmp, "profile"), ExtensionDir: ext,
		LogPath: filepath.Join(tmp, "chromium.log"), Quiet: true,
	})
	if err != nil {
		return err
	}
	defer b.Stop()
	if err := openFloorPage(ctx, b.WebSocketURL, siteURL+"/"); err != nil {
		return err
	}

	logf("%d warm-up and %d measured execute_js calls, gasoline and floor in turn", *warmup, *n)
	var ours, floor, sealed []time.Duration
	for i := range *warmup + *n {
		start := time.Now()
		r, err := mc.ExecuteJS(ctx, "document.title", map[string]any{"wait_ms": 10000})
		took := time.Since(start)
		if err != nil {
			return err
		}
		if r.Status != "complete" {
			return fmt.Errorf("execute_js %d: %s, want complete", i, r)
		}
		f, err := fs.call(ctx, 2*i, siteURL+"/", false)
		if err != nil {
			return fmt.Errorf("%w (its log: %s)", err, chromium.Tail(filepath.Join(tmp, "chromium.log"), 2000))
		}
		fsealed, err := fs.call(ctx, 2*i+1, siteURL+"/", true)
		if err != nil {
			return fmt.Errorf("%w (its log: %s)", err, chromium.Tail(filepath.Join(tmp, "chromium.log"), 2000))
		}
		if i >= *warmup {
			ours, floor, sealed = append(ours, took), append(floor, f), append(sealed, fsealed)
		}
	}
	if *header {
		fmt.Println("| figure | p50 | p99 | × floor p50 | target |")
		fmt.Println("|---|---|---|---|---|")
	}
	ratio := float64(pct(ours, 50)) / float64(pct(floor, 50))
	fmt.Printf("| real headless Chromium: `interact execute_js` `document.title` with wait_ms → inline result (SDK tools/call through gasoline-mcp, n=%d) | %s | %s | %.2f | p50 ≤ 10 ms |\n", *n, fmtDur(pct(ours, 50)), fmtDur(pct(ours, 99)), ratio)
	fmt.Printf("| floor with the sealed transport's WebCrypto calls (SHA-256, AES-GCM, HMAC sign; HMAC verify of the answer; n=%d) | %s | %s | %.2f | (reference) |\n", *n, fmtDur(pct(sealed, 50)), fmtDur(pct(sealed, 99)), float64(pct(sealed, 50))/float64(pct(floor, 50)))
	fmt.Printf("| floor: a minimal MV3 extension, same Chromium: held long poll → `scripting.executeScript` of `document.title` → POST (server clock, no MCP, n=%d) | %s | %s | 1.00 | (floor) |\n", *n, fmtDur(pct(floor, 50)), fmtDur(pct(floor, 99)))
	return nil
}
