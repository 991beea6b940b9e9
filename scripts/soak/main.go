//go:build unix

// Command soak runs the faults of issue 7 together against the real
// binaries for a bounded time, and checks that nothing breaks the
// promises: no command executed twice, none lost without an explicit
// failure, every answer valid JSON-RPC, the daemon's memory back to its
// baseline. It prints what it counted and exits 1 on any violation.
//
//	go run ./scripts/soak [-duration 3m] [-agents 4] [-seed N]
//
// Faults: the daemon killed (SIGKILL) and restarted under a running bridge,
// a fake extension that disconnects, drops polls and abandons commands at
// random, floods of idle connections, oversize and malformed posts.
// Everything binds 127.0.0.1; the soak kills only the daemon its own state
// dir names and the bridge it started.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"time"
)

func main() {
	duration := flag.Duration("duration", 3*time.Minute, "how long faults are injected (env SOAK_DURATION)")
	agents := flag.Int("agents", 4, "concurrent agent loops")
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()), "random seed, printed so a run can be repeated")
	flag.Parse()
	if v := os.Getenv("SOAK_DURATION"); v != "" && !isSet("duration") {
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "soak: SOAK_DURATION=%q is not a duration such as 3m\n", v)
			os.Exit(2)
		}
		*duration = d
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(soak(ctx, *duration, *agents, *seed))
}

func isSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func soak(ctx context.Context, d time.Duration, agents int, seed uint64) int {
	work, err := os.MkdirTemp("", "gasoline-soak-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 1
	}
	defer os.RemoveAll(work)
	if err := build(work); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 1
	}
	fmt.Printf("soak: seed %d, %d agents\n", seed, agents)
	rep, err := Run(ctx, Config{
		Duration: d, BinDir: work, WorkDir: work, Agents: agents, Seed: seed,
		Logf: func(format string, args ...any) { fmt.Printf("  "+format+"\n", args...) },
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 1
	}
	rep.Print(os.Stdout, d)
	if len(rep.Violations) > 0 {
		return 1
	}
	return 0
}

// build puts gasoline and gasoline-mcp into dir.
func build(dir string) error {
	for bin, pkg := range map[string]string{"gasoline": "github.com/gasoline-mcp/gasoline/cmd/daemon", "gasoline-mcp": "github.com/gasoline-mcp/gasoline/cmd/bridge"} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, bin), pkg)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building %s: %w", bin, err)
		}
	}
	return nil
}
