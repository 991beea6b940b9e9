//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/client"
)

// Config is one soak run.
type Config struct {
	Duration time.Duration // of the fault phase
	BinDir   string        // holds gasoline and gasoline-mcp
	WorkDir  string        // scratch: state dir, wrapper script
	Agents   int           // concurrent agent loops in the one bridge
	Seed     uint64
	Logf     func(format string, args ...any)
}

// resultTTL is the daemon's retention in the soak, short so that a quiet
// daemon returns to its baseline within seconds.
const resultTTL = 3 * time.Second

// Report is what a run counted.
type Report struct {
	Commands       int            // submitted and given a correlation id
	Completed      int            // read back complete with the right value
	Failed         map[string]int // explicit failures, by status/reason or error code
	SubmitErrors   map[string]int // submissions answered with an error, by code
	ObserveErrors  int            // observe calls answered with a JSON-RPC error, then polled again
	Answers        int            // JSON-RPC lines from the bridge, each checked
	Executed       int            // commands the fake extension ran
	Faults         map[string]int // injected, by kind
	HeapBaseline   uint64         // daemon live heap after warm-up, bytes
	HeapFinal      uint64         // daemon live heap at the end, bytes
	GoroutinesBase int
	GoroutinesEnd  int
	Violations     []string
}

// run owns everything a soak starts: the bridge, the daemons it starts, the
// fake extension, the agents and the fault injector. It kills only the
// daemons its own state dir's daemon names (authenticated through
// client.Local) and the bridge it started.
type run struct {
	cfg      Config
	port     int
	stateDir string
	rng      *rand.Rand
	rngMu    sync.Mutex

	mu         sync.Mutex
	report     Report
	violations map[string]int // message → count; guarded by mu
}

func (r *run) violation(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.violations[msg] == 0 {
		r.cfg.Logf("VIOLATION: %s", msg)
	}
	r.violations[msg]++
}

func (r *run) count(m map[string]int, key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m[key]++
}

func (r *run) add(field *int, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*field += n
}

func (r *run) intn(n int) int {
	r.rngMu.Lock()
	defer r.rngMu.Unlock()
	return r.rng.IntN(n)
}

func (r *run) between(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(r.intn(int(hi-lo)+1))
}

// Run runs a soak: warm-up, faults for cfg.Duration, a quiet end, and the
// checks. It returns the report; the error is for a soak that could not run
// at all, not for violations.
func Run(ctx context.Context, cfg Config) (Report, error) {
	if cfg.Agents <= 0 {
		cfg.Agents = 4
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	r := &run{
		cfg:        cfg,
		stateDir:   filepath.Join(cfg.WorkDir, "state"),
		rng:        rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		violations: map[string]int{},
	}
	r.report.Failed = map[string]int{}
	r.report.SubmitErrors = map[string]int{}
	r.report.Faults = map[string]int{}
	port, err := freePort()
	if err != nil {
		return r.report, err
	}
	r.port = port
	defer r.stopDaemon()

	// The bridge starts the daemon through this wrapper, which shortens the
	// result retention so that memory can be checked at rest.
	wrapper := filepath.Join(cfg.WorkDir, "gasoline-soak")
	script := fmt.Sprintf("#!/bin/sh\nexec %q \"$@\" --result-ttl=%s\n", filepath.Join(cfg.BinDir, "gasoline"), resultTTL)
	if err := os.WriteFile(wrapper, []byte(script), 0o700); err != nil {
		return r.report, err
	}
	br, err := r.startBridge(ctx, wrapper)
	if err != nil {
		return r.report, err
	}
	defer br.stop()
	if err := br.initialize(ctx); err != nil {
		return r.report, fmt.Errorf("initialize through the bridge: %w", err)
	}
	extToken, err := r.pair(ctx)
	if err != nil {
		return r.report, err
	}

	ext := newExtension(r, extToken)
	extCtx, stopExt := context.WithCancel(ctx)
	var extWG sync.WaitGroup
	extWG.Add(1)
	go func() { defer extWG.Done(); ext.run(extCtx) }()
	defer func() { stopExt(); extWG.Wait() }()

	// Warm-up, without faults, then the baseline at rest.
	cfg.Logf("warm-up")
	r.agents(ctx, br, 3*time.Second)
	base, err := r.atRest(ctx)
	if err != nil {
		return r.report, fmt.Errorf("baseline: %w", err)
	}
	r.report.HeapBaseline, r.report.GoroutinesBase = base.HeapAllocBytes, base.Goroutines
	cfg.Logf("baseline: heap %.1f MB, %d goroutines", float64(base.HeapAllocBytes)/(1<<20), base.Goroutines)

	// Faults and load together.
	cfg.Logf("faults for %s", cfg.Duration)
	faultCtx, stopFaults := context.WithCancel(ctx)
	var faultWG sync.WaitGroup
	faultWG.Add(1)
	go func() { defer faultWG.Done(); r.injectFaults(faultCtx, extToken, cfg.Duration) }()
	r.agents(ctx, br, cfg.Duration)
	stopFaults()
	faultWG.Wait()

	// The quiet end: the extension stays (commands still queued get run),
	// then the daemon must come back to its baseline.
	end, err := r.atRest(ctx)
	if err != nil {
		r.violation("the daemon did not come to rest after the soak: %v", err)
	} else {
		r.report.HeapFinal, r.report.GoroutinesEnd = end.HeapAllocBytes, end.Goroutines
		if limit := base.HeapAllocBytes + max(4<<20, base.HeapAllocBytes/2); end.HeapAllocBytes > limit {
			r.violation("daemon heap %d bytes at rest after the soak, above its baseline %d (+50%% or 4 MB)", end.HeapAllocBytes, base.HeapAllocBytes)
		}
		if end.Goroutines > base.Goroutines+20 {
			r.violation("daemon has %d goroutines at rest after the soak, baseline %d", end.Goroutines, base.Goroutines)
		}
		if n := r.unauthenticatedAtRest(ctx, end.Connections["tcp"].Unauthenticated); n > 0 {
			r.violation("daemon still holds %d unauthenticated connections at rest", n)
		}
	}
	stopExt()
	extWG.Wait()
	r.report.Executed = ext.executedCount()
	if err := br.stop(); err != nil {
		r.violation("gasoline-mcp: %v", err)
	}
	r.report.Answers = br.answers()

	r.mu.Lock()
	for msg, n := range r.violations {
		if n > 1 {
			msg = fmt.Sprintf("%s (x%d)", msg, n)
		}
		r.report.Violations = append(r.report.Violations, msg)
	}
	r.mu.Unlock()
	sort.Strings(r.report.Violations)
	return r.report, nil
}

// atRest waits until the daemon holds no command (queued, running or
// retained), then returns its stats after a collection.
func (r *run) atRest(ctx context.Context) (apitype.DebugStats, error) {
	c := client.Local(r.port, r.stateDir)
	defer c.CloseIdleConnections()
	deadline := time.Now().Add(resultTTL + 60*time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		h, err := c.Health(cctx)
		cancel()
		if err == nil && h.Queue.Queued == 0 && h.Queue.Pending == 0 && h.Queue.Completed == 0 {
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			st, err := c.DebugStats(cctx, true)
			return st, err
		}
		if time.Now().After(deadline) {
			return apitype.DebugStats{}, fmt.Errorf("still busy after %s: %+v, %v", time.Since(deadline.Add(-resultTTL-60*time.Second)).Round(time.Second), h.Queue, err)
		}
		select {
		case <-ctx.Done():
			return apitype.DebugStats{}, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// unauthenticatedAtRest is the number of unauthenticated TCP connections
// the daemon still holds once they have had their chance to close: the
// daemon closes an idle one after 5 s (a connection of the last flood may
// have been opened just before the soak came to rest), so a count above 0
// is asked again for up to 12 s before it is the answer.
func (r *run) unauthenticatedAtRest(ctx context.Context, n int) int {
	c := client.Local(r.port, r.stateDir)
	defer c.CloseIdleConnections()
	for deadline := time.Now().Add(12 * time.Second); n > 0 && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return n
		case <-time.After(500 * time.Millisecond):
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		st, err := c.DebugStats(cctx, false)
		cancel()
		if err == nil {
			n = st.Connections["tcp"].Unauthenticated
		}
	}
	return n
}

// daemonPID returns the pid of the daemon of the soak's state dir, asked
// through the authenticated client: the soak kills nothing else.
func (r *run) daemonPID(ctx context.Context) (int, bool) {
	c := client.Local(r.port, r.stateDir)
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	h, err := c.Health(ctx)
	if err != nil || h.PID <= 0 {
		return 0, false
	}
	return h.PID, true
}

// stopDaemon stops the soak's daemon: 'gasoline daemon stop', then SIGKILL
// to the pid it reported if it lingers.
func (r *run) stopDaemon() {
	pid, ok := r.daemonPID(context.Background())
	cmd := exec.Command(filepath.Join(r.cfg.BinDir, "gasoline"), "daemon", "stop", "--port", fmt.Sprint(r.port), "--state-dir", r.stateDir)
	cmd.Env = soakEnv()
	cmd.Run()
	if ok && syscall.Kill(pid, 0) == nil {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// soakEnv is the environment without the machine's GASOLINE_ settings.
func soakEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GASOLINE_") {
			env = append(env, kv)
		}
	}
	return env
}

// Print writes the report as a table.
func (rep Report) Print(w io.Writer, d time.Duration) {
	fmt.Fprintf(w, "soak: %s of faults\n", d)
	row := func(k string, v any) { fmt.Fprintf(w, "  %-34s %v\n", k, v) }
	row("commands (given a correlation id)", rep.Commands)
	row("  completed with the right value", rep.Completed)
	failed := 0
	for _, n := range rep.Failed {
		failed += n
	}
	row("  failed explicitly", fmt.Sprintf("%d %s", failed, sortedCounts(rep.Failed)))
	subErr := 0
	for _, n := range rep.SubmitErrors {
		subErr += n
	}
	row("submissions answered with an error", fmt.Sprintf("%d %s", subErr, sortedCounts(rep.SubmitErrors)))
	row("observe answered with an error", rep.ObserveErrors)
	row("commands run by the extension", rep.Executed)
	row("JSON-RPC answers checked", rep.Answers)
	faults := 0
	for _, n := range rep.Faults {
		faults += n
	}
	row("faults injected", fmt.Sprintf("%d %s", faults, sortedCounts(rep.Faults)))
	row("daemon heap at rest: baseline, end", fmt.Sprintf("%.1f MB, %.1f MB", float64(rep.HeapBaseline)/(1<<20), float64(rep.HeapFinal)/(1<<20)))
	row("daemon goroutines: baseline, end", fmt.Sprintf("%d, %d", rep.GoroutinesBase, rep.GoroutinesEnd))
	row("violations", len(rep.Violations))
	for _, v := range rep.Violations {
		fmt.Fprintf(w, "    - %s\n", v)
	}
}

func sortedCounts(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// errStopped marks a call abandoned because the soak is ending.
var errStopped = errors.New("soak stopping")
