package output

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"
)

func TestChunkSpans(t *testing.T) {
	tests := []struct{ n, size int }{
		{0, 100}, {1, 100}, {99, 100}, {100, 100}, {101, 100}, {195, 100}, {196, 100}, {1000, 100},
		{10_000, 8000}, {1_000_000, 8000}, {57, 20},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%d", tt.n, tt.size), func(t *testing.T) {
			spans := chunkSpans(tt.n, tt.size)
			overlap := tt.size * 5 / 100
			if spans[0].start != 0 || spans[len(spans)-1].end != tt.n {
				t.Fatalf("chunks %v do not cover [0,%d)", spans, tt.n)
			}
			for i, sp := range spans {
				if sp.end-sp.start > tt.size || sp.end <= sp.start && tt.n > 0 {
					t.Errorf("chunk %d %v: bad length (size %d)", i, sp, tt.size)
				}
				if i == 0 {
					continue
				}
				if got := spans[i-1].end - sp.start; got != overlap {
					t.Errorf("chunk %d overlaps the previous by %d chars, want %d (5%% of %d)", i, got, overlap, tt.size)
				}
				if sp.end <= spans[i-1].end {
					t.Errorf("chunk %d %v adds nothing after %v", i, sp, spans[i-1])
				}
			}
		})
	}
}

func TestChunksHandedToExtractor(t *testing.T) {
	content := randomText(rand.New(rand.NewPCG(1, 2)), 5000)
	runes := []rune(content)
	var calls atomic.Int64
	seen := make([]Chunk, 100)
	ex := funcExtractor{id: "rec@1", fn: func(_ context.Context, _ string, c Chunk) ([]Snippet, error) {
		calls.Add(1)
		seen[c.Index] = c
		return nil, nil
	}}
	s := New(Options{Extractor: ex, ChunkChars: 1000, Parallelism: 3})
	mustPut(t, s, "id", content)
	res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "anything"})
	if err != nil {
		t.Fatal(err)
	}
	spans := chunkSpans(len(runes), 1000)
	if res.ChunksTotal != len(spans) || res.ChunksSearched != len(spans) || int(calls.Load()) != len(spans) {
		t.Fatalf("chunks total/searched/calls = %d/%d/%d, want %d", res.ChunksTotal, res.ChunksSearched, calls.Load(), len(spans))
	}
	for i, sp := range spans {
		c := seen[i]
		if c.Index != i || c.Start != sp.start || c.Text != string(runes[sp.start:sp.end]) {
			t.Errorf("chunk %d = {Index %d, Start %d, %d chars}, want {%d, %d, runes[%d:%d]}", i, c.Index, c.Start, utf8.RuneCountInString(c.Text), i, sp.start, sp.start, sp.end)
		}
	}
}

func TestReduce(t *testing.T) {
	const src = "0123456789 abcdefghij\n      klmnopqrst uvwxyz ABCDEFGHIJ"
	sn := func(start, end int, score float64) Snippet {
		return Snippet{Text: runeSlice(src, start, end), Start: start, End: end, Score: score}
	}
	tests := []struct {
		name string
		in   []Snippet
		want [][2]int
	}{
		{"duplicates", []Snippet{sn(0, 5, .5), sn(0, 5, .9), sn(0, 5, .1)}, [][2]int{{0, 5}}},
		{"contained", []Snippet{sn(0, 10, .5), sn(2, 4, .9)}, [][2]int{{0, 10}}},
		{"overlapping", []Snippet{sn(0, 6, .5), sn(4, 10, .9)}, [][2]int{{0, 10}}},
		{"adjacent", []Snippet{sn(0, 4, .5), sn(4, 8, .5)}, [][2]int{{0, 8}}},
		{"gap of a few chars", []Snippet{sn(0, 4, .5), sn(7, 10, .5)}, [][2]int{{0, 10}}},
		{"gap of whitespace", []Snippet{sn(11, 21, .5), sn(28, 38, .5)}, [][2]int{{11, 38}}},
		{"far apart", []Snippet{sn(0, 5, .5), sn(40, 46, .5)}, [][2]int{{0, 5}, {40, 46}}},
		{"adjacent but much weaker", []Snippet{sn(0, 4, .9), sn(4, 8, .2)}, [][2]int{{0, 4}, {4, 8}}},
		{"overlapping and much weaker", []Snippet{sn(0, 6, .9), sn(4, 10, .2)}, [][2]int{{0, 10}}},
		{"unsorted input", []Snippet{sn(40, 46, .5), sn(0, 5, .5), sn(3, 8, .5)}, [][2]int{{0, 8}, {40, 46}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &entry{content: src, idx: newRuneIndex(src)}
			out := reduceSnippets(e, tt.in)
			var got [][2]int
			for _, o := range out {
				got = append(got, [2]int{o.Start, o.End})
				if want := runeSlice(src, o.Start, o.End); o.Text != want {
					t.Errorf("merged text %q, want %q", o.Text, want)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("spans = %v, want %v", got, tt.want)
			}
			best := 0.0
			for _, s := range tt.in {
				best = max(best, s.Score)
			}
			if len(out) == 1 && out[0].Score != best {
				t.Errorf("merged score = %v, want the best %v", out[0].Score, best)
			}
		})
	}
}

func TestReduceKeepsMergedSpansShort(t *testing.T) {
	src := strings.Repeat("x", 3000)
	e := &entry{content: src, idx: newRuneIndex(src)}
	var in []Snippet
	for start := 0; start < 3000; start += 100 {
		in = append(in, Snippet{Text: src[start : start+100], Start: start, End: start + 100, Score: 1})
	}
	for _, o := range reduceSnippets(e, in) {
		if o.End-o.Start > maxMergedChars {
			t.Errorf("merged span [%d,%d) is longer than %d chars", o.Start, o.End, maxMergedChars)
		}
	}
}

func TestVerifyRelocatesAndDrops(t *testing.T) {
	content := "héllo wörld. The error: disk full. Then, much later: 世界 error: disk full again."
	ex := funcExtractor{id: "script@1", fn: func(_ context.Context, _ string, c Chunk) ([]Snippet, error) {
		return []Snippet{
			{Text: "wörld", Start: 6, End: 11, Score: 0.9},                   // right
			{Text: "error: disk full", Start: 0, End: 16, Score: 0.8},        // wrong offsets: nearest occurrence is the first
			{Text: "世界 error: disk full again", Start: 3, End: 25, Score: 1}, // wrong offsets, unique text
			{Text: "error: disk is fine", Start: 17, End: 36, Score: 1},      // invented
			{Text: "", Start: 0, End: 0, Score: 1},                           // empty
			{Text: "世界", Start: 1000, End: 1002, Score: 0.5},                 // out of bounds, text present
		}, nil
	}}
	s := New(Options{Extractor: ex})
	mustPut(t, s, "id", content)
	res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "error"})
	if err != nil {
		t.Fatal(err)
	}
	checkProvenance(t, s, "id", res)
	if res.Dropped != 2 {
		t.Errorf("Dropped = %d, want 2 (the invented and the empty snippet)", res.Dropped)
	}
	var texts []string
	for _, sn := range res.Snippets {
		texts = append(texts, sn.Text)
	}
	want := []string{"wörld", "error: disk full", "世界 error: disk full again"}
	if !reflect.DeepEqual(texts, want) {
		t.Errorf("snippets = %q, want %q", texts, want)
	}
	if res.Confidence <= 0 || res.Confidence > 1 {
		t.Errorf("Confidence = %v, want in (0,1]", res.Confidence)
	}
}

func TestProvenanceProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	queries := []string{"error message", "user", "世界", "required form", "😀", "the", "zzz nothing", "Error: required"}
	for i := range 60 {
		content := randomText(rng, 1+rng.IntN(6000))
		ex := Extractor(NewLocalExtractor())
		if i%2 == 1 {
			ex = chaosExtractor(uint64(i))
		}
		s := New(Options{Extractor: ex, ChunkChars: 50 + rng.IntN(900), InlineTokens: 200 + rng.IntN(2000)})
		mustPut(t, s, "id", content)
		q := queries[rng.IntN(len(queries))]
		res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: q, MaxSnippets: 1 + rng.IntN(30)})
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		checkProvenance(t, s, "id", res)
		if len(res.Snippets) == 0 && res.NoMatchReason == "" {
			t.Errorf("case %d: no snippets and no no_match_reason", i)
		}
	}
}

func FuzzExtractProvenance(f *testing.F) {
	f.Add("<div class=\"error\">Email is required</div>\n<p>ok</p>", "error messages", 50)
	f.Add("世界😀 error\nerror 世界", "世界 error", 20)
	f.Add("", "x", 20)
	f.Add("a\xffb error", "error", 30)
	f.Fuzz(func(t *testing.T, content, query string, chunk int) {
		if strings.TrimSpace(query) == "" || utf8.RuneCountInString(query) > MaxQueryChars {
			return
		}
		s := New(Options{ChunkChars: 20 + abs(chunk)%2000})
		mustPut(t, s, "id", content)
		res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: query})
		if err != nil {
			t.Fatal(err)
		}
		checkProvenance(t, s, "id", res)
	})
}

// loginPage is the example: error messages in an HTML page.
const loginPage = `<!doctype html><html><head><title>Sign in</title></head><body>
<nav><ul><li><a href="/user/profile">Your account</a></li><li><a href="/help">Help</a></li></ul></nav>
<main>
  <form id="login" action="/login" method="post">
    <label for="email">Email</label>
    <input id="email" name="email" type="email">
    <div class="error">Email is required</div>
    <label for="pw">Password</label>
    <input id="pw" name="password" type="password">
    <div class="error">
      Password must be at least 8 characters
    </div>
    <button type="submit" class="btn">Sign in</button>
  </form>
  <p class="alert alert-danger">Your session expired. Please sign in again.</p>
  <section><h2>Summer collection</h2><p>Light shoes and linen shirts for warm days.</p></section>
</main>
<footer>© 2025 Shop</footer>
</body></html>`

func TestLocalExtractFindsErrorMessages(t *testing.T) {
	tests := []struct {
		name    string
		content string
		chunk   int
	}{
		{"pretty", loginPage, 0},
		{"small chunks", loginPage, 200},
		{"minified", strings.ReplaceAll(strings.ReplaceAll(loginPage, "\n", ""), "  ", ""), 0},
		{"buried in a large page", genHTML(300_000, 3) + loginPage + genHTML(300_000, 4), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{ChunkChars: tt.chunk})
			mustPut(t, s, "exec_1", tt.content)
			res, err := s.Extract(context.Background(), "exec_1", ExtractRequest{Query: "all error messages shown to the user"})
			if err != nil {
				t.Fatal(err)
			}
			checkProvenance(t, s, "exec_1", res)
			all := ""
			seen := map[string]bool{}
			for _, sn := range res.Snippets {
				all += sn.Text + "\n"
				if seen[sn.Text] {
					t.Errorf("text %q returned twice; repeats belong in Repeats", sn.Text)
				}
				seen[sn.Text] = true
			}
			for _, want := range []string{"Email is required", "Password must be at least 8 characters", `class="alert alert-danger"`} {
				if !strings.Contains(all, want) {
					t.Errorf("snippets do not contain %q:\n%s", want, all)
				}
			}
			for _, unwanted := range []string{"Summer collection", "© 2025"} {
				if strings.Contains(all, unwanted) {
					t.Errorf("snippets contain the unrelated %q:\n%s", unwanted, all)
				}
			}
			if res.Extractor != "local@1" || res.Confidence <= 0 || res.NoMatchReason != "" || res.Dropped != 0 {
				t.Errorf("result %+v: want local@1, confidence > 0, no no_match_reason, nothing dropped", res)
			}
		})
	}
}

func TestLocalExtractIsDeterministic(t *testing.T) {
	page := genHTML(200_000, 9)
	var first ExtractResult
	for i := range 3 {
		s := New(Options{Parallelism: i + 1})
		mustPut(t, s, "id", page)
		res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "alert warnings in the cart"})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = res
			if len(res.Snippets) == 0 {
				t.Fatal("no snippets")
			}
			continue
		}
		if !reflect.DeepEqual(res, first) {
			t.Errorf("run %d differs from run 0", i)
		}
	}
}

func TestExtractNoMatch(t *testing.T) {
	s := New(Options{})
	mustPut(t, s, "id", loginPage)
	res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "the shipping invoices"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Snippets) != 0 || res.Confidence != 0 {
		t.Errorf("got %d snippets, confidence %v; want none, 0", len(res.Snippets), res.Confidence)
	}
	for _, w := range []string{`"shipping"`, `"invoices"`, "chars", "slice"} {
		if !strings.Contains(res.NoMatchReason, w) {
			t.Errorf("NoMatchReason %q does not mention %s", res.NoMatchReason, w)
		}
	}
	if strings.Contains(res.NoMatchReason, `"the"`) {
		t.Errorf("NoMatchReason %q lists a stop word", res.NoMatchReason)
	}
	if res.Snippets == nil {
		t.Error("Snippets is nil, want an empty slice (JSON [])")
	}
}

func TestExtractOnlyStopWords(t *testing.T) {
	s := New(Options{})
	mustPut(t, s, "id", "nothing here\nall of them\n")
	res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "all of them"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Snippets) != 1 || res.Snippets[0].Text != "all of them" {
		t.Errorf("snippets = %+v, want the line made of the query's stop words", res.Snippets)
	}
}

func TestExtractStaysUnderBudget(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "line %d: error code E%d while saving the record\n", i, i)
	}
	for _, tt := range []struct{ inline, max int }{{100, 0}, {1000, 0}, {10000, 5}, {10000, 100}} {
		t.Run(fmt.Sprintf("inline %d max %d", tt.inline, tt.max), func(t *testing.T) {
			s := New(Options{InlineTokens: tt.inline})
			mustPut(t, s, "id", b.String())
			res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "error", MaxSnippets: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			checkProvenance(t, s, "id", res)
			tokens := 0
			for _, sn := range res.Snippets {
				tokens += s.EstimateTokens(sn.Text)
			}
			wantMax := tt.max
			if wantMax == 0 {
				wantMax = DefaultMaxSnippets
			}
			if len(res.Snippets) == 0 || len(res.Snippets) > wantMax {
				t.Errorf("%d snippets, want 1..%d", len(res.Snippets), wantMax)
			}
			if tokens > tt.inline {
				t.Errorf("snippets hold %d tokens, above the %d-token inline threshold", tokens, tt.inline)
			}
		})
	}
}

func TestExtractOversizedSnippetIsCut(t *testing.T) {
	content := strings.Repeat("error ", 1000)
	ex := funcExtractor{id: "big@1", fn: func(_ context.Context, _ string, c Chunk) ([]Snippet, error) {
		return []Snippet{{Text: c.Text, Start: 0, End: utf8.RuneCountInString(c.Text), Score: 1}}, nil
	}}
	s := New(Options{Extractor: ex, InlineTokens: 100})
	mustPut(t, s, "id", content)
	res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "error"})
	if err != nil {
		t.Fatal(err)
	}
	checkProvenance(t, s, "id", res)
	if len(res.Snippets) != 1 || s.EstimateTokens(res.Snippets[0].Text) > 100 {
		t.Errorf("got %d snippets, want one cut under 100 tokens", len(res.Snippets))
	}
}

func TestExtractCache(t *testing.T) {
	var calls atomic.Int64
	local := NewLocalExtractor()
	ex := funcExtractor{id: "counting@1", fn: func(ctx context.Context, q string, c Chunk) ([]Snippet, error) {
		calls.Add(1)
		return local.ExtractChunk(ctx, q, c)
	}}
	s := New(Options{Extractor: ex})
	mustPut(t, s, "a", loginPage)
	mustPut(t, s, "b", loginPage) // same content, other id: same cache entry
	ctx := context.Background()

	first, err := s.Extract(ctx, "a", ExtractRequest{Query: "error"})
	if err != nil || first.Cached {
		t.Fatalf("first call: cached=%v, %v", first.Cached, err)
	}
	n := calls.Load()
	second, err := s.Extract(ctx, "b", ExtractRequest{Query: "error"})
	if err != nil {
		t.Fatal(err)
	}
	if !second.Cached || calls.Load() != n || second.ID != "b" {
		t.Errorf("second call: cached=%v id=%s, extractor calls %d→%d; want a cache hit for b", second.Cached, second.ID, n, calls.Load())
	}
	second.Cached, second.ID = false, "a"
	if !reflect.DeepEqual(first, second) {
		t.Errorf("cached result differs from the original")
	}
	// Mutating a returned result must not corrupt the cache.
	second.Snippets[0].Text = "mutated"
	third, _ := s.Extract(ctx, "a", ExtractRequest{Query: "error"})
	if third.Snippets[0].Text == "mutated" {
		t.Error("the cache shares snippet slices with callers")
	}
	// Another MaxSnippets or query is another key.
	if r, _ := s.Extract(ctx, "a", ExtractRequest{Query: "error", MaxSnippets: 1}); r.Cached {
		t.Error("MaxSnippets 1 hit the cache entry of MaxSnippets 20")
	}
	if st := s.Stats(); st.CacheEntries != 2 || st.CacheHits != 2 {
		t.Errorf("Stats = %+v, want 2 cache entries, 2 hits", st)
	}
}

func TestResultCacheIsBounded(t *testing.T) {
	s := New(Options{CacheEntries: 3})
	mustPut(t, s, "id", loginPage)
	for i := range 10 {
		if _, err := s.Extract(context.Background(), "id", ExtractRequest{Query: fmt.Sprint("error ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if st := s.Stats(); st.CacheEntries != 3 {
		t.Errorf("CacheEntries = %d, want 3", st.CacheEntries)
	}
}

func TestExtractBadRequest(t *testing.T) {
	s := New(Options{})
	mustPut(t, s, "id", "x")
	for _, req := range []ExtractRequest{{}, {Query: "  "}, {Query: "x", MaxSnippets: -1}, {Query: strings.Repeat("a", MaxQueryChars+1)}} {
		if _, err := s.Extract(context.Background(), "id", req); !errors.Is(err, ErrBadRequest) {
			t.Errorf("Extract(%+v) error = %v, want ErrBadRequest", req, err)
		}
	}
	if _, err := s.Extract(context.Background(), "nope", ExtractRequest{Query: "x"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: error = %v, want ErrNotFound", err)
	}
}

func TestExtractHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	ex := funcExtractor{id: "slow@1", fn: func(ctx context.Context, _ string, c Chunk) ([]Snippet, error) {
		if c.Index == 0 {
			cancel()
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	s := New(Options{Extractor: ex, ChunkChars: 100})
	mustPut(t, s, "id", strings.Repeat("abc ", 1000))
	_, err := s.Extract(ctx, "id", ExtractRequest{Query: "abc"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

func TestFailingExtractorFallsBackToLocal(t *testing.T) {
	tests := []struct {
		name string
		fn   func(context.Context, string, Chunk) ([]Snippet, error)
		want string
	}{
		{"error", func(context.Context, string, Chunk) ([]Snippet, error) { return nil, errors.New("model unavailable") }, "model unavailable"},
		{"panic", func(context.Context, string, Chunk) ([]Snippet, error) { panic("boom") }, "panicked: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{Extractor: funcExtractor{id: "broken@1", fn: tt.fn}})
			mustPut(t, s, "id", loginPage)
			res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "error messages"})
			if err != nil {
				t.Fatal(err)
			}
			checkProvenance(t, s, "id", res)
			if res.Extractor != "local@1" || !strings.Contains(res.Fallback, "broken@1") || !strings.Contains(res.Fallback, tt.want) || len(res.Snippets) == 0 {
				t.Errorf("result extractor=%q fallback=%q, %d snippets; want local@1 answering, the failure explained", res.Extractor, res.Fallback, len(res.Snippets))
			}
			again, _ := s.Extract(context.Background(), "id", ExtractRequest{Query: "error messages"})
			if again.Cached {
				t.Error("a fallback result was cached under the failing extractor")
			}
		})
	}
}

func TestStem(t *testing.T) {
	groups := [][]string{
		{"message", "messages"},
		{"error", "errors", "errored"},
		{"require", "required", "requires"},
		{"query", "queries"},
		{"show", "showing", "shows"},
		{"run", "running"},
		{"stop", "stopped"},
		{"call", "called", "calls"},
	}
	for _, g := range groups {
		want := string(stem([]byte(g[0])))
		for _, w := range g[1:] {
			if got := string(stem([]byte(w))); got != want {
				t.Errorf("stem(%q) = %q, want %q like stem(%q)", w, got, want, g[0])
			}
		}
	}
	for _, w := range []string{"status", "class", "string", "speed", "add", "h1", "404", "café"} {
		if got := string(stem([]byte(w))); got != w {
			t.Errorf("stem(%q) = %q, want it unchanged", w, got)
		}
	}
}

func TestScanWords(t *testing.T) {
	var got []string
	scanWords(`<div class="errorMessage">Email_is 必須 café HTMLParser x2</div>`, nil, func(w []byte) { got = append(got, string(w)) })
	want := []string{"div", "class", "error", "message", "email", "is", "必", "須", "café", "htmlparser", "x2", "div"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("words = %q, want %q", got, want)
	}
}

func TestSegment(t *testing.T) {
	long := strings.Repeat("<li>item</li>", 60) // 780 chars on one line
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"lines trimmed", "  a b \n\n c\n", []string{"a b", "c"}},
		{"multi-line element joined", "<div class=\"error\">\n  Email is required\n</div>\n<p>x</p>", []string{"<div class=\"error\">\n  Email is required\n</div>", "<p>x</p>"}},
		{"void element not joined", "<input name=\"a\">\n<p>x</p>", []string{"<input name=\"a\">", "<p>x</p>"}},
		{"long line cut between tags", long, slicesRepeat("<li>item</li>", 60)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, sp := range segment(tt.text) {
				got = append(got, tt.text[sp.start:sp.end])
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("segment = %q, want %q", got, tt.want)
			}
		})
	}
	// Every span is short, and spans never overlap, for any long line.
	rng := rand.New(rand.NewPCG(5, 5))
	for range 50 {
		text := randomText(rng, 3000)
		text = strings.ReplaceAll(text, "\n", "")
		prev := 0
		for _, sp := range segment(text) {
			if n := utf8.RuneCountInString(text[sp.start:sp.end]); n > maxSpanChars || sp.start < prev || !utf8.ValidString(text[sp.start:sp.end]) {
				t.Fatalf("span [%d,%d) of %d chars (prev end %d) is invalid", sp.start, sp.end, n, prev)
			}
			prev = sp.end
		}
	}
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestExtractCountsRepeats(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "<p>filler paragraph number %d about shoes</p>\n<div class=\"error\">Email is required</div>\n", i)
	}
	b.WriteString("<p>the end of the filler</p>\n<div class=\"error\">Card declined</div>")
	s := New(Options{ChunkChars: 500})
	mustPut(t, s, "id", b.String())
	res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "error"})
	if err != nil {
		t.Fatal(err)
	}
	checkProvenance(t, s, "id", res)
	if len(res.Snippets) != 2 {
		t.Fatalf("snippets = %+v, want the two distinct error texts", res.Snippets)
	}
	if r := res.Snippets[0]; !strings.Contains(r.Text, "Email is required") || r.Repeats != 29 {
		t.Errorf("first snippet %q repeats %d, want Email is required repeated 29 more times", r.Text, r.Repeats)
	}
}
