package main

import (
	"strings"
	"testing"
	"time"
)

func rowOf(key, floor string, guard float64, p50 time.Duration) *row {
	return &row{key: key, floor: floor, guard: guard, samples: []time.Duration{p50, p50, p50}}
}

func TestCheckGuards(t *testing.T) {
	b := &bench{rows: []*row{
		rowOf("cyclefloor", "", 0, 400*time.Microsecond),
		rowOf("relay", "", 0, 200*time.Microsecond),
		rowOf("bridged", "relay", 1.25, 300*time.Microsecond),   // 1.5 × relay: within 1.25 + 30 % = 1.625
		rowOf("cycle", "cyclefloor", 1.5, 800*time.Microsecond), // 2 ×: past 1.5 + 30 % = 1.95
	}}
	err := b.checkGuards()
	if err == nil || !strings.Contains(err.Error(), "1 of 2 guarded rows") || !strings.Contains(err.Error(), "cycle: 2.00 × cyclefloor") {
		t.Fatalf("checkGuards = %v, want the cycle row named as the one regression of two", err)
	}
	b.rows[3].samples = []time.Duration{700 * time.Microsecond} // 1.75 ×: within 1.95
	if err := b.checkGuards(); err != nil {
		t.Fatalf("checkGuards with every row within its guard = %v", err)
	}
	if err := (&bench{rows: b.rows[:2]}).checkGuards(); err == nil {
		t.Fatal("checkGuards with no guarded row passed; it must say nothing was checked")
	}
}
