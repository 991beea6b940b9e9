package server

import (
	"fmt"
	"testing"
)

func TestNonceCache(t *testing.T) {
	var n nonceCache
	now := int64(10_000_000)
	if !n.fresh("a", now, now) {
		t.Fatal("a new nonce is not fresh")
	}
	if n.fresh("a", now, now) {
		t.Error("a nonce seen before is fresh")
	}
	// Past the window it is forgotten, and the window check refuses it anyway.
	later := now + SignatureWindow.Milliseconds() + 1
	if !n.fresh("b", later, later) {
		t.Error("a new nonce later is not fresh")
	}
	if _, kept := n.seen["a"]; kept {
		t.Error("a nonce older than the window is still remembered")
	}
}

// TestNonceCacheBounded: beyond maxNonces the oldest are forgotten and the
// floor rises with them, so no forgotten nonce can be replayed.
func TestNonceCacheBounded(t *testing.T) {
	var n nonceCache
	now := int64(10_000_000)
	for i := range maxNonces + 10 {
		ts := now + int64(i/1000) // many requests per millisecond
		if !n.fresh(fmt.Sprint(i), ts, now) {
			t.Fatalf("nonce %d is not fresh", i)
		}
	}
	if len(n.seen) != maxNonces || len(n.order) != maxNonces {
		t.Errorf("remembers %d/%d nonces, want %d", len(n.seen), len(n.order), maxNonces)
	}
	if n.fresh("0", now, now) {
		t.Error("an evicted nonce was accepted again")
	}
	if n.fresh("new", now, now) {
		t.Error("a request signed at or below the floor was accepted")
	}
	if !n.fresh("newer", n.floor+1, now) {
		t.Error("a request signed above the floor was refused")
	}
}

func TestByteBudget(t *testing.T) {
	b := byteBudget{max: 10}
	for _, step := range []struct {
		n    int64
		want bool
	}{{4, true}, {6, true}, {1, false}, {0, true}, {-1, false}} {
		if got := b.acquire(step.n); got != step.want {
			t.Errorf("acquire(%d) with %d held: got %v, want %v", step.n, b.held, got, step.want)
		}
	}
	b.release(6)
	if !b.acquire(5) || b.acquire(2) {
		t.Errorf("after releasing 6 of 10: want 5 more to fit and then nothing more (held %d)", b.held)
	}
}
