//go:build unix

package main

import (
	"strings"
	"testing"
	"time"
)

// TestSoakShort is the short soak of issue 7, run with the suite: 30 s of
// every fault at once against the real binaries. 'make soak' runs longer.
func TestSoakShort(t *testing.T) {
	work := t.TempDir()
	if err := build(work); err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	rep, err := Run(t.Context(), Config{Duration: 30 * time.Second, BinDir: work, WorkDir: work, Agents: 4, Seed: seed, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.Print(&out, 30*time.Second)
	t.Logf("seed %d\n%s", seed, out.String())
	if len(rep.Violations) > 0 {
		t.Errorf("%d violations (seed %d):\n%s", len(rep.Violations), seed, strings.Join(rep.Violations, "\n"))
	}
	// The soak must have exercised what it claims to.
	for _, kind := range []string{"daemon killed", "connection flood", "oversize post", "malformed post", "unverified flood"} {
		if rep.Faults[kind] == 0 {
			t.Errorf("no %q fault was injected", kind)
		}
	}
	if rep.Completed == 0 || rep.Commands < 20 {
		t.Errorf("only %d commands, %d completed: the soak did too little to mean anything", rep.Commands, rep.Completed)
	}
}
