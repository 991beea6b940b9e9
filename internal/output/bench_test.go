package output

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"
)

// reportLatency adds p50 and p99 metrics, in milliseconds, to b.
func reportLatency(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	ms := func(q float64) float64 { return float64(d[int(q*float64(len(d)-1))]) / 1e6 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}

func BenchmarkPut10MB(b *testing.B) {
	page := genHTML(10<<20, 1)
	s := New(Options{})
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := s.Put("id", page); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSlice10MB(b *testing.B) {
	page := genHTML(10<<20, 1) // holds "€", "–", "©": not ASCII, the rune index is used
	s := New(Options{})
	h := mustPut(b, s, "id", page)
	b.Run("start+length", func(b *testing.B) {
		i := 0
		for b.Loop() {
			start := (i * 7919) % h.Chars
			i++
			if _, err := s.Slice("id", SliceRequest{Start: &start, Length: 2000}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, tt := range []struct {
		name  string
		index int
	}{{"anchor-first", 0}, {"anchor-last", -1}} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Slice("id", SliceRequest{Anchor: "<form", Window: 2000, MatchIndex: tt.index}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkExtractLocal(b *testing.B) {
	for _, size := range []int{1 << 20, 10 << 20} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			page := genHTML(size, 2)
			s := New(Options{})
			mustPut(b, s, "id", page)
			ctx := context.Background()
			b.SetBytes(int64(len(page)))
			var lat []time.Duration
			for b.Loop() {
				s.cache.clear()
				t0 := time.Now()
				res, err := s.Extract(ctx, "id", ExtractRequest{Query: "all error messages shown to the user"})
				lat = append(lat, time.Since(t0))
				if err != nil || len(res.Snippets) == 0 {
					b.Fatalf("extract: %d snippets, %v", len(res.Snippets), err)
				}
			}
			reportLatency(b, lat)
		})
	}
	b.Run("10MB-cached", func(b *testing.B) {
		page := genHTML(10<<20, 2)
		s := New(Options{})
		mustPut(b, s, "id", page)
		ctx := context.Background()
		if _, err := s.Extract(ctx, "id", ExtractRequest{Query: "all error messages shown to the user"}); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := s.Extract(ctx, "id", ExtractRequest{Query: "all error messages shown to the user"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStoreAtBudget fills a 64 MiB store with three times its budget of
// 1 MiB outputs and reports the live heap it holds afterwards.
func BenchmarkStoreAtBudget(b *testing.B) {
	const budget = 64 << 20
	base := genHTML(1<<20, 3)
	var heap, held float64
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		s := New(Options{ByteBudget: budget})
		for i := range 3 * budget >> 20 {
			content := fmt.Sprintf("<!-- output %d -->", i) + base // a fresh 1 MiB string
			if _, err := s.Put(fmt.Sprintf("exec_%d", i), content); err != nil {
				b.Fatal(err)
			}
			if i%8 == 0 { // some reads, so that eviction follows use
				_, _ = s.Slice(fmt.Sprintf("exec_%d", i/2), SliceRequest{Anchor: "<form"})
			}
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		heap = float64(after.HeapAlloc) - float64(before.HeapAlloc)
		held = float64(s.Stats().Bytes)
		runtime.KeepAlive(s)
	}
	b.ReportMetric(heap/(1<<20), "heap-MiB")
	b.ReportMetric(held/(1<<20), "held-MiB")
	b.ReportMetric(budget>>20, "budget-MiB")
	b.ReportMetric(heap/budget, "heap/budget")
}
