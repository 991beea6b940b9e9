package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// Capture rows (issue 9): observe logs through the real bridge, ingest over
// HTTP into the running daemon, an observe-logs-like read in process, and
// the heap after millions of events.

var (
	captureEvents  = flag.Int("capture-events", 10_000_000, "events stored for the capture memory row")
	capturePosters = flag.Int("capture-posters", 2, "concurrent POST /events clients for the ingest row")
)

const batchSize = 200 // the extension worker's largest batch

// sampleEvent returns the i-th event of a realistic mix: mostly console
// logs, then requests (some with a JSON body), actions, errors, navigations
// and vitals.
func sampleEvent(i int) apitype.Event {
	ts := float64(1_700_000_000_000 + i)
	tab := int64(1 + i%3)
	page := "http://localhost:3000/shop/cart?item=" + strconv.Itoa(i%50)
	ev := apitype.Event{TS: ts, TabID: tab, PageURL: page}
	switch n := i % 20; {
	case n < 11:
		ev.Kind, ev.Level = "log", []string{"log", "info", "debug", "warn"}[i%4]
		ev.Message = "cart updated: item " + strconv.Itoa(i) + " qty 2 price 12.99 {id: " + strconv.Itoa(i*7) + ", sku: \"SKU-9\"}"
		ev.Source = "http://localhost:3000/static/js/main.chunk.js:1234:17"
	case n < 15:
		ev.Kind, ev.RequestID, ev.Method = "network", strconv.Itoa(i), "GET"
		ev.Source = []string{"page", "browser"}[i%2]
		ev.URL = "http://localhost:3000/api/cart/" + strconv.Itoa(i)
		ev.Status, ev.ResourceType, ev.DurationMS, ev.MimeType = apitype.Num(200), "fetch", 23.4, "application/json"
		ev.ResponseHeaders = map[string]string{"content-type": "application/json", "cache-control": "no-store"}
		if n == 14 {
			ev.Method, ev.Status = "POST", apitype.Num(500)
			ev.RequestBody = `{"item":` + strconv.Itoa(i) + `,"qty":2}`
			ev.ResponseBody = `{"error":"out of stock","item":` + strconv.Itoa(i) + `,"detail":"` + strings.Repeat("x", 400) + `"}`
		}
	case n < 17:
		ev.Kind, ev.Type, ev.Selector = "action", "click", "#cart > button.checkout:nth-of-type(2)"
		ev.Role, ev.Name, ev.Text = "button", "Checkout", "Checkout ("+strconv.Itoa(i%9)+" items)"
	case n < 18:
		ev.Kind, ev.Type = "error", "uncaught"
		ev.Message = "TypeError: Cannot read properties of undefined (reading 'price') #" + strconv.Itoa(i%40)
		ev.Stack = "TypeError: Cannot read properties of undefined (reading 'price')\n    at total (main.chunk.js:1234:17)\n    at render (main.chunk.js:99:3)"
		ev.Source, ev.Line, ev.Column = "http://localhost:3000/static/js/main.chunk.js", 1234, 17
	case n < 19:
		ev.Kind, ev.Type, ev.From, ev.To = "nav", "pushState", page, page+"&step="+strconv.Itoa(i%4)
	default:
		ev.Kind, ev.Name, ev.Value, ev.Unit = "vital", "INP", apitype.Num(float64(40+i%200)), "ms"
	}
	return ev
}

func encodeBatch(first int) ([]byte, error) {
	b := apitype.EventBatch{Events: make([]apitype.Event, batchSize)}
	for i := range b.Events {
		b.Events[i] = sampleEvent(first + i)
	}
	return json.Marshal(b)
}

// captureRows runs the capture rows.
func (b *bench) captureRows() error {
	for _, f := range []func() error{b.captureBridged, b.captureIngest, b.captureQuery, b.captureMemory} {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// captureBridged: observe logs (limit 100, so every buffered entry is in
// the answer) through the real gasoline-mcp, stdin write to stdout line,
// with exactly 100 logs buffered.
func (b *bench) captureBridged() error {
	r := &row{key: "capture", figure: "bridged observe logs with 100 buffered entries, stdin→stdout", target: "p50 ≤ 1 ms", floor: "relay"}
	clear := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"configure","arguments":{"action":"clear","kind":"logs"}}}`)
	if _, err := b.do("POST", "/mcp", "bench-capture", clear); err != nil {
		return err
	}
	var evs []apitype.Event
	for i := 0; len(evs) < 100; i++ {
		if ev := sampleEvent(i); ev.Kind == "log" {
			evs = append(evs, ev)
		}
	}
	body, err := json.Marshal(apitype.EventBatch{Events: evs})
	if err != nil {
		return err
	}
	if out, err := b.do("POST", "/events", "", body); err != nil || !bytes.Contains(out, []byte(`"accepted":100,`)) {
		return fmt.Errorf("POST /events: %v %.300s", err, out)
	}
	call, stop, err := b.bridge()
	if err != nil {
		return err
	}
	defer stop()
	params := `{"name":"observe","arguments":{"what":"logs","limit":100}}`
	r.samples, err = timed(200, func(i int) error {
		out, err := call(i+1, "tools/call", params)
		if err == nil && i == 0 && bytes.Count(out, []byte(`\"level\":`)) != 100 {
			err = fmt.Errorf("observe logs: want 100 entries, got %.300s", out)
		}
		return err
	})
	b.add(r)
	return err
}

// captureIngest posts pre-encoded batches of 200 events to the daemon from
// a few keep-alive clients for the throughput window.
func (b *bench) captureIngest() error {
	var batches [][]byte
	bytesPer := 0
	for k := range 64 {
		body, err := encodeBatch(k * batchSize)
		if err != nil {
			return err
		}
		batches = append(batches, body)
		bytesPer += len(body)
	}
	bytesPer /= len(batches)
	post := func(body []byte) error {
		out, err := b.do("POST", "/events", "", body)
		if err != nil {
			return err
		}
		if !bytes.Contains(out, []byte(`"accepted":200,`)) {
			return fmt.Errorf("POST /events: %.300s", out)
		}
		return nil
	}
	for _, body := range batches { // warm-up
		if err := post(body); err != nil {
			return err
		}
	}
	cpu0, cpuErr := b.daemonCPU()
	window, cancel := context.WithTimeout(context.Background(), *throughput)
	defer cancel()
	var posted atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	t0 := time.Now()
	for p := range *capturePosters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := p; window.Err() == nil; i++ {
				if err := post(batches[i%len(batches)]); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				posted.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	if err, _ := firstErr.Load().(error); err != nil {
		return err
	}
	events := float64(posted.Load() * batchSize)
	value := fmt.Sprintf("%.0f events/s (%d clients, %s)", events/elapsed.Seconds(), *capturePosters, elapsed.Round(time.Millisecond))
	// The rate depends on what else the machine runs; the daemon's CPU time
	// per event does not, and bounds the rate one core can sustain.
	if cpu1, err := b.daemonCPU(); err == nil && cpuErr == nil && cpu1 > cpu0 {
		per := (cpu1 - cpu0) / time.Duration(events)
		value += fmt.Sprintf("; daemon CPU %.1f µs/event, %.0f events/s per core", float64(per)/float64(time.Microsecond), float64(time.Second)/float64(per))
	}
	b.add(&row{key: "capture", figure: fmt.Sprintf("capture ingest over HTTP (POST /events, %d events ≈ %d KB per batch)", batchSize, bytesPer>>10),
		value: value, target: "≥ 100 000 events/s"})
	return nil
}

// daemonCPU returns the CPU time (user + system) the daemon has used, from
// /proc (Linux; clock ticks of 10 ms).
func (b *bench) daemonCPU() (time.Duration, error) {
	pid, err := os.ReadFile(filepath.Join(b.stateDir, "daemon.pid"))
	if err != nil {
		return 0, err
	}
	stat, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/stat")
	if err != nil {
		return 0, err
	}
	// Fields after the parenthesised command: state is the first, utime
	// and stime the 12th and 13th.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("unexpected /proc stat %q", stat)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc stat %q", stat)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// captureQuery reads 100 buffered logs the way observe logs does (query,
// then JSON), in process.
func (b *bench) captureQuery() error {
	st := capture.New(capture.Options{})
	var evs []apitype.Event
	for i := 0; len(evs) < 100; i++ {
		if ev := sampleEvent(i); ev.Kind == "log" {
			evs = append(evs, ev)
		}
	}
	if _, err := st.Ingest(apitype.EventBatch{Events: evs}); err != nil {
		return err
	}
	r := &row{key: "capture", figure: "observe-logs-like read of 100 buffered logs (in process: query + JSON)", target: "(part of bridged p50 ≤ 1 ms)"}
	var err error
	r.samples, err = timed(100, func(int) error {
		p, err := st.Query(capture.Filter{Kind: capture.KindLog, Limit: 100})
		if err != nil {
			return err
		}
		if len(p.Entries) != 100 {
			return fmt.Errorf("got %d entries, want 100", len(p.Entries))
		}
		_, err = json.Marshal(p)
		return err
	})
	b.add(r)
	return err
}

// captureMemory stores -capture-events events (fresh strings each, as the
// decoder makes them) in an in-process store with the default bounds and
// compares the heap at a tenth of the way with the heap at the end.
func (b *bench) captureMemory() error {
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	st := capture.New(capture.Options{})
	var bound int64
	for _, k := range st.Stats().Kinds {
		bound += k.MaxBytes
	}
	batch := apitype.EventBatch{Events: make([]apitype.Event, batchSize)}
	var atTenth uint64
	t0 := time.Now()
	for i := 0; i < *captureEvents; i += batchSize {
		for j := range batch.Events {
			batch.Events[j] = sampleEvent(i + j)
		}
		if _, err := st.Ingest(batch); err != nil {
			return err
		}
		if i/batchSize == *captureEvents/batchSize/10 {
			atTenth = heap()
		}
	}
	elapsed := time.Since(t0)
	after := heap()
	var accounted int64
	for _, k := range st.Stats().Kinds {
		accounted += k.Bytes
	}
	mb := func(v uint64) float64 { return (float64(v) - float64(before)) / (1 << 20) }
	b.add(&row{key: "capture", figure: fmt.Sprintf("heap after %d captured events (in process, default bounds)", *captureEvents),
		value: fmt.Sprintf("%.1f MB at %d, %.1f MB at %d (rings account %.1f MB, bound %.0f MB; %.0f events/s in process)",
			mb(atTenth), *captureEvents/10, mb(after), *captureEvents, float64(accounted)/(1<<20), float64(bound)/(1<<20),
			float64(*captureEvents)/elapsed.Seconds()),
		target: "flat (bounded by the rings)"})
	runtime.KeepAlive(st)
	return nil
}
