package output

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestPutHandle(t *testing.T) {
	big := strings.Repeat("<div>😀 世界 hello</div>\n", 5000) // ~100k chars, over 10k tokens
	tests := []struct {
		name      string
		content   string
		wantModes []string
	}{
		{"small", "hello world", []string{"raw", "slice", "extract"}},
		{"empty", "", []string{"raw", "slice", "extract"}},
		{"large", big, []string{"slice", "extract"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{})
			h := mustPut(t, s, "exec_1", tt.content)
			sum := sha256.Sum256([]byte(tt.content))
			if got, want := h.SHA256, hex.EncodeToString(sum[:]); got != want {
				t.Errorf("SHA256 = %s, want %s", got, want)
			}
			if got, want := h.Chars, utf8.RuneCountInString(tt.content); got != want {
				t.Errorf("Chars = %d, want %d", got, want)
			}
			if got, want := h.Bytes, len(tt.content); got != want {
				t.Errorf("Bytes = %d, want %d", got, want)
			}
			if got, want := h.EstimatedTokens, (h.Chars+3)/4; got != want {
				t.Errorf("EstimatedTokens = %d, want %d", got, want)
			}
			if fmt.Sprint(h.Modes) != fmt.Sprint(tt.wantModes) {
				t.Errorf("Modes = %v, want %v", h.Modes, tt.wantModes)
			}
			if !utf8.ValidString(h.Preview) {
				t.Errorf("Preview is not valid UTF-8: %q", h.Preview)
			}
			if n := utf8.RuneCountInString(h.Preview); n > previewHead+previewTail+60 {
				t.Errorf("Preview has %d chars, want about %d at most", n, previewHead+previewTail)
			}
			if h.Chars > previewHead+previewTail {
				head := runeSlice(tt.content, 0, previewHead)
				tail := runeSlice(tt.content, h.Chars-previewTail, h.Chars)
				if !strings.HasPrefix(h.Preview, head) || !strings.HasSuffix(h.Preview, tail) || !strings.Contains(h.Preview, "chars omitted") {
					t.Errorf("Preview %q is not head + omitted marker + tail", h.Preview)
				}
			} else if h.Preview != tt.content {
				t.Errorf("Preview = %q, want the whole content", h.Preview)
			}
			if h.Truncated || h.OriginalBytes != 0 {
				t.Errorf("Truncated = %v, OriginalBytes = %d, want false, 0", h.Truncated, h.OriginalBytes)
			}
			again, err := s.Handle("exec_1")
			if err != nil || again.SHA256 != h.SHA256 {
				t.Errorf("Handle = %+v, %v; want the Put handle", again, err)
			}
		})
	}
}

func TestPutBadID(t *testing.T) {
	s := New(Options{})
	if _, err := s.Put("", "x"); !errors.Is(err, ErrBadRequest) {
		t.Errorf("Put(\"\") error = %v, want ErrBadRequest", err)
	}
}

func TestPutTruncatesAtCharBoundary(t *testing.T) {
	tests := []struct {
		name     string
		cap      int
		content  string
		wantKept string
	}{
		{"ascii", 5, "abcdefgh", "abcde"},
		{"cut inside euro sign", 5, "abcd€fg", "abcd"}, // € is 3 bytes: 4..7
		{"cut after euro sign", 7, "abcd€fg", "abcd€"},
		{"emoji", 4, "a😀😀", "a"}, // 😀 is 4 bytes: 1..5
		{"after an emoji", 7, "a😀😀", "a😀"},
		{"exactly at cap", 8, "abcdefgh", "abcdefgh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{MaxOutputBytes: tt.cap})
			h := mustPut(t, s, "id", tt.content)
			got := storedContent(t, s, "id")
			if got != tt.wantKept {
				t.Errorf("stored %q, want %q", got, tt.wantKept)
			}
			wantTrunc := tt.wantKept != tt.content
			if h.Truncated != wantTrunc {
				t.Errorf("Truncated = %v, want %v", h.Truncated, wantTrunc)
			}
			if wantTrunc {
				if h.OriginalBytes != len(tt.content) {
					t.Errorf("OriginalBytes = %d, want %d", h.OriginalBytes, len(tt.content))
				}
			}
			if h.Bytes > tt.cap {
				t.Errorf("Bytes = %d, above the cap %d", h.Bytes, tt.cap)
			}
		})
	}
}

func TestPutInvalidUTF8(t *testing.T) {
	s := New(Options{})
	h := mustPut(t, s, "id", "ok\xffok")
	if got, want := storedContent(t, s, "id"), "ok\uFFFDok"; got != want {
		t.Errorf("stored %q, want %q", got, want)
	}
	if h.Chars != 5 {
		t.Errorf("Chars = %d, want 5", h.Chars)
	}
}

func TestRaw(t *testing.T) {
	s := New(Options{InlineTokens: 10})
	mustPut(t, s, "small", "0123456789012345678901234567890123456789") // 40 chars = 10 tokens
	mustPut(t, s, "big", strings.Repeat("x", 41))                      // 11 tokens

	if got, err := s.Raw("small"); err != nil || len(got) != 40 {
		t.Errorf("Raw(small) = %q, %v; want the content", got, err)
	}
	_, err := s.Raw("big")
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Raw(big) error = %v, want ErrTooLarge", err)
	}
	for _, w := range []string{"41 chars", "~11 tokens", "slice", "extract"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Raw(big) error %q does not mention %q", err, w)
		}
	}
	if _, err := s.Raw("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Raw(nope) error = %v, want ErrNotFound", err)
	}
}

func TestOversizeAndTokenizer(t *testing.T) {
	s := New(Options{InlineTokens: 3, Tokenizer: func(s string) int { return len(strings.Fields(s)) }})
	if s.Oversize("a b c") {
		t.Error("Oversize(3 words) = true, want false")
	}
	if !s.Oversize("a b c d") {
		t.Error("Oversize(4 words) = false, want true")
	}
	if got := New(Options{}).EstimateTokens("😀😀😀😀😀"); got != 2 {
		t.Errorf("EstimateTokens(5 chars) = %d, want 2", got)
	}
}

// TestFits: a length Fits takes is one no text of that many characters is
// Oversize for, up to the threshold's last character; with a Tokenizer
// nothing fits unasked.
func TestFits(t *testing.T) {
	s := New(Options{InlineTokens: 100})
	for _, tt := range []struct {
		n    int
		want bool
	}{{0, true}, {400, true}, {401, false}} {
		if got := s.Fits(tt.n); got != tt.want {
			t.Errorf("Fits(%d) = %v, want %v", tt.n, got, tt.want)
		}
		if text := strings.Repeat("😀", tt.n); s.Oversize(text) == tt.want {
			t.Errorf("Oversize(%d chars) = %v, want %v", tt.n, !tt.want, !tt.want)
		}
	}
	if New(Options{InlineTokens: 100, Tokenizer: func(string) int { return 0 }}).Fits(1) {
		t.Error("Fits(1) with a Tokenizer = true, want false")
	}
}

// costOf is what one entry of content under a one-letter id is charged.
func costOf(t *testing.T, content string) int64 {
	t.Helper()
	s := New(Options{})
	mustPut(t, s, "z", content)
	return s.Stats().Bytes
}

func TestEntryCostIncludesOverhead(t *testing.T) {
	if c := costOf(t, "x"); c < entryOverhead {
		t.Errorf("a 1-byte output costs %d, want at least the %d bytes of bookkeeping", c, entryOverhead)
	}
	// Many tiny outputs stay within the budget.
	s := New(Options{ByteBudget: 64 << 10})
	for i := range 10000 {
		mustPut(t, s, fmt.Sprint("id-", i), "x")
	}
	if st := s.Stats(); st.Bytes > st.Budget || st.Entries > 128 {
		t.Errorf("Stats = %+v, want tiny outputs bounded by the budget", st)
	}
}

func TestAddAndDelete(t *testing.T) {
	s := New(Options{})
	if _, err := s.Add("id", "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add("id", "second"); !errors.Is(err, ErrExists) {
		t.Fatalf("second Add: got %v, want ErrExists", err)
	}
	if got, _ := s.Raw("id"); got != "first" {
		t.Errorf("got %q, want the first content kept", got)
	}
	s.Delete("id")
	if _, err := s.Handle("id"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after Delete: got %v, want ErrNotFound", err)
	}
	if st := s.Stats(); st.Entries != 0 || st.Bytes != 0 {
		t.Errorf("after Delete: Stats = %+v, want empty", st)
	}
}

func TestEviction(t *testing.T) {
	block := strings.Repeat("x", 40)
	c := costOf(t, block)
	s := New(Options{ByteBudget: 2*c + c/2})
	mustPut(t, s, "a", block)
	mustPut(t, s, "b", block)
	if _, err := s.Handle("a"); err != nil { // a is now more recently used than b
		t.Fatal(err)
	}
	mustPut(t, s, "c", block) // three entries exceed the budget: evicts b, the least recently used

	st := s.Stats()
	if st.Bytes > st.Budget || st.Bytes != 2*c || st.Entries != 2 || st.Evictions != 1 {
		t.Errorf("Stats = %+v, want 2 entries (%d bytes) under the budget, 1 eviction", st, 2*c)
	}
	for _, id := range []string{"a", "c"} {
		if _, err := s.Handle(id); err != nil {
			t.Errorf("Handle(%s) = %v, want it kept", id, err)
		}
	}
	_, err := s.Handle("b")
	if !errors.Is(err, ErrEvicted) {
		t.Fatalf("Handle(b) error = %v, want ErrEvicted", err)
	}
	if !strings.Contains(err.Error(), "run the command again") {
		t.Errorf("evicted error %q does not say what to do", err)
	}
	if _, err := s.Slice("b", SliceRequest{}); !errors.Is(err, ErrEvicted) {
		t.Errorf("Slice(b) error = %v, want ErrEvicted", err)
	}
	if _, err := s.Extract(context.Background(), "b", ExtractRequest{Query: "x"}); !errors.Is(err, ErrEvicted) {
		t.Errorf("Extract(b) error = %v, want ErrEvicted", err)
	}
	_, err = s.Handle("never")
	if !errors.Is(err, ErrNotFound) || errors.Is(err, ErrEvicted) {
		t.Errorf("Handle(never) error = %v, want ErrNotFound only", err)
	}

	// Storing b again brings it back.
	mustPut(t, s, "b", "small")
	if _, err := s.Handle("b"); err != nil {
		t.Errorf("Handle(b) after a new Put = %v", err)
	}
}

func TestEvictionOrderFollowsAccess(t *testing.T) {
	s := New(Options{ByteBudget: 3 * costOf(t, "0123456789")})
	for _, id := range []string{"a", "b", "c"} {
		mustPut(t, s, id, "0123456789")
	}
	// Access order, oldest first: b, c, a (Slice and Raw count as use).
	if _, err := s.Slice("a", SliceRequest{}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, "d", "0123456789")
	if _, err := s.Raw("c"); err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, "e", "0123456789")
	for id, want := range map[string]error{"a": ErrEvicted, "b": ErrEvicted, "c": nil, "d": nil, "e": nil} {
		if _, err := s.Handle(id); !errors.Is(err, want) {
			t.Errorf("Handle(%s) error = %v, want %v", id, err, want)
		}
	}
}

func TestReplaceKeepsAccounting(t *testing.T) {
	s := New(Options{})
	mustPut(t, s, "id", strings.Repeat("a", 100))
	h := mustPut(t, s, "id", strings.Repeat("b", 10))
	fresh := New(Options{})
	mustPut(t, fresh, "id", strings.Repeat("b", 10))
	if st, want := s.Stats(), fresh.Stats().Bytes; st.Entries != 1 || st.Bytes != want {
		t.Errorf("Stats = %+v, want 1 entry costing %d, as if stored fresh", st, want)
	}
	if got, _ := s.Raw("id"); got != strings.Repeat("b", 10) || h.Bytes != 10 {
		t.Errorf("Raw = %q, want the replacement", got)
	}
}

func TestEvictedIDsAreBounded(t *testing.T) {
	s := New(Options{ByteBudget: 1})
	n := rememberEvicted + 100
	for i := range n {
		mustPut(t, s, fmt.Sprint(i), "x")
	}
	if _, err := s.Handle("0"); !errors.Is(err, ErrNotFound) {
		t.Errorf("oldest evicted id: error = %v, want ErrNotFound (forgotten)", err)
	}
	if _, err := s.Handle(fmt.Sprint(n - 2)); !errors.Is(err, ErrEvicted) {
		t.Errorf("recently evicted id: error = %v, want ErrEvicted", err)
	}
	if got := len(s.evicted.gen); got > rememberEvicted {
		t.Errorf("evicted set holds %d ids, want at most %d", got, rememberEvicted)
	}
}

func TestMaxOutputNeverAboveBudget(t *testing.T) {
	s := New(Options{ByteBudget: 10, MaxOutputBytes: 100})
	h := mustPut(t, s, "id", strings.Repeat("x", 50))
	if !h.Truncated || h.Bytes != 10 {
		t.Errorf("handle = %+v, want truncated to the 10-byte budget", h)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := New(Options{ByteBudget: 200_000, ChunkChars: 500})
	page := genHTML(40_000, 1)
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				id := fmt.Sprintf("exec_%d", (g+i)%10)
				switch i % 5 {
				case 0:
					if _, err := s.Put(id, page[:len(page)-i]); err != nil {
						t.Error(err)
					}
				case 1:
					_, _ = s.Slice(id, SliceRequest{Anchor: "<form", Window: 300})
				case 2:
					if res, err := s.Extract(ctx, id, ExtractRequest{Query: "error messages"}); err == nil {
						for _, sn := range res.Snippets {
							if sn.End <= sn.Start {
								t.Errorf("bad snippet %+v", sn)
							}
						}
					}
				case 3:
					_, _ = s.Handle(id)
				default:
					if st := s.Stats(); st.Bytes > st.Budget {
						t.Errorf("bytes %d above budget %d", st.Bytes, st.Budget)
					}
				}
			}
		})
	}
	wg.Wait()
}

func TestJSONFieldNames(t *testing.T) {
	s := New(Options{})
	h := mustPut(t, s, "id", loginPage)
	sl, _ := s.Slice("id", SliceRequest{Anchor: "<form"})
	ex, _ := s.Extract(context.Background(), "id", ExtractRequest{Query: "error"})
	tests := []struct {
		v    any
		keys []string
	}{
		{h, []string{"id", "chars", "bytes", "estimated_tokens", "sha256", "preview", "truncated", "modes"}},
		{sl, []string{"id", "text", "start", "end", "total_chars", "matches", "match_index", "source_sha256"}},
		{ex, []string{"id", "query", "snippets", "source_sha256", "source_chars", "chunks_searched", "chunks_total", "confidence", "extractor", "dropped", "cached"}},
		{ex.Snippets[0], []string{"text", "start", "end", "chunk_index", "score"}},
		{s.Stats(), []string{"entries", "bytes", "budget", "evictions", "cache_entries", "cache_hits"}},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range tt.keys {
			if _, ok := m[k]; !ok {
				t.Errorf("%T JSON %s lacks %q", tt.v, b, k)
			}
		}
	}
}
