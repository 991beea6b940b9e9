package output

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func intp(i int) *int { return &i }

func TestSlice(t *testing.T) {
	// 19 characters: ASCII, accents, CJK, emoji (including a flag
	// made of two code points).
	const content = "ab😀c世界déf🇫🇷<form>g😀"
	total := utf8.RuneCountInString(content)
	tests := []struct {
		name        string
		req         SliceRequest
		wantStart   int
		wantEnd     int
		wantMatches int
		wantIndex   int
		wantClamped bool
	}{
		{"zero request is the head", SliceRequest{}, 0, total, 0, 0, false},
		{"start and length", SliceRequest{Start: intp(2), Length: 3}, 2, 5, 0, 0, false},
		{"start at the end", SliceRequest{Start: intp(total), Length: 5}, total, total, 0, 0, false},
		{"length past the end", SliceRequest{Start: intp(total - 2), Length: 100}, total - 2, total, 0, 0, false},
		{"last character", SliceRequest{Start: intp(total - 1), Length: 1}, total - 1, total, 0, 0, false},
		{"anchor at the very start", SliceRequest{Anchor: "ab", Window: 4}, 0, 4, 1, 0, false},
		{"anchor at the very end", SliceRequest{Anchor: "g😀", Window: 4}, total - 4, total, 1, 0, false},
		{"anchor in the middle", SliceRequest{Anchor: "<form>", Window: 10}, 9, 19, 1, 0, false},
		{"second match", SliceRequest{Anchor: "😀", Window: 1, MatchIndex: 1}, total - 1, total, 2, 1, false},
		{"last match by -1", SliceRequest{Anchor: "😀", Window: 1, MatchIndex: -1}, total - 1, total, 2, 1, false},
		{"first match by -2", SliceRequest{Anchor: "😀", Window: 1, MatchIndex: -2}, 2, 3, 2, 0, false},
		{"window smaller than anchor grows to it", SliceRequest{Anchor: "<form>", Window: 2}, 11, 17, 1, 0, false},
		{"window larger than content", SliceRequest{Anchor: "世界", Window: 1000}, 0, total, 1, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(Options{})
			h := mustPut(t, s, "id", content)
			got, err := s.Slice("id", tt.req)
			if err != nil {
				t.Fatalf("Slice: %v", err)
			}
			if got.Start != tt.wantStart || got.End != tt.wantEnd {
				t.Errorf("got [%d,%d), want [%d,%d)", got.Start, got.End, tt.wantStart, tt.wantEnd)
			}
			if want := runeSlice(content, got.Start, got.End); got.Text != want {
				t.Errorf("Text = %q, want source[%d:%d] = %q", got.Text, got.Start, got.End, want)
			}
			if !utf8.ValidString(got.Text) {
				t.Errorf("Text %q splits a character", got.Text)
			}
			if got.Matches != tt.wantMatches || got.MatchIndex != tt.wantIndex {
				t.Errorf("Matches, MatchIndex = %d, %d, want %d, %d", got.Matches, got.MatchIndex, tt.wantMatches, tt.wantIndex)
			}
			if got.TotalChars != total || got.SourceSHA256 != h.SHA256 {
				t.Errorf("TotalChars, SourceSHA256 = %d, %s; want %d, %s", got.TotalChars, got.SourceSHA256, total, h.SHA256)
			}
			if got.Clamped != tt.wantClamped {
				t.Errorf("Clamped = %v, want %v", got.Clamped, tt.wantClamped)
			}
			if tt.req.Anchor != "" && !strings.Contains(got.Text, tt.req.Anchor) {
				t.Errorf("Text %q does not contain the anchor %q", got.Text, tt.req.Anchor)
			}
		})
	}
}

func TestSliceErrors(t *testing.T) {
	const content = "one two one three one"
	tests := []struct {
		name     string
		req      SliceRequest
		want     error
		wantText []string
	}{
		{"absent anchor", SliceRequest{Anchor: "four"}, ErrAnchorNotFound, []string{`"four" does not occur`, "21 chars"}},
		{"anchor is case-sensitive", SliceRequest{Anchor: "ONE"}, ErrAnchorNotFound, []string{"case-sensitive"}},
		{"match index past the last", SliceRequest{Anchor: "one", MatchIndex: 3}, ErrAnchorNotFound, []string{"occurs 3 times", "match_index 0 to 2"}},
		{"negative index past the first", SliceRequest{Anchor: "one", MatchIndex: -4}, ErrAnchorNotFound, []string{"occurs 3 times"}},
		{"start past the end", SliceRequest{Start: intp(22)}, ErrBadRequest, []string{"past the end", "21 chars"}},
		{"negative start", SliceRequest{Start: intp(-1)}, ErrBadRequest, []string{"negative"}},
		{"negative length", SliceRequest{Start: intp(0), Length: -5}, ErrBadRequest, []string{"negative"}},
		{"negative window", SliceRequest{Anchor: "one", Window: -5}, ErrBadRequest, []string{"negative"}},
		{"start and anchor", SliceRequest{Start: intp(0), Anchor: "one"}, ErrBadRequest, []string{"not both"}},
	}
	s := New(Options{})
	mustPut(t, s, "id", content)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Slice("id", tt.req)
			if !errors.Is(err, tt.want) {
				t.Fatalf("error = %v, want %v", err, tt.want)
			}
			for _, w := range tt.wantText {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	if _, err := s.Slice("other", SliceRequest{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: error = %v, want ErrNotFound", err)
	}
}

func TestSliceClamping(t *testing.T) {
	// InlineTokens 10 allows slices of 40 characters.
	s := New(Options{InlineTokens: 10})
	content := strings.Repeat("世界😀.", 100) + "NEEDLE" + strings.Repeat("ab", 100)
	mustPut(t, s, "id", content)

	got, err := s.Slice("id", SliceRequest{Start: intp(3), Length: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if got.End-got.Start != 40 || !got.Clamped {
		t.Errorf("length slice: [%d,%d) clamped=%v, want 40 chars, clamped", got.Start, got.End, got.Clamped)
	}

	got, err = s.Slice("id", SliceRequest{Anchor: "NEEDLE", Window: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if got.End-got.Start != 40 || !got.Clamped || !strings.Contains(got.Text, "NEEDLE") {
		t.Errorf("anchor slice: %q [%d,%d) clamped=%v, want 40 chars holding NEEDLE, clamped", got.Text, got.Start, got.End, got.Clamped)
	}
	// A quarter of the room before the anchor, the rest after.
	if before := strings.Index(got.Text, "NEEDLE"); utf8.RuneCountInString(got.Text[:before]) != (40-6)/4 {
		t.Errorf("anchor slice %q has %d chars before the anchor, want %d", got.Text, utf8.RuneCountInString(got.Text[:before]), (40-6)/4)
	}
	if want := runeSlice(content, got.Start, got.End); got.Text != want {
		t.Errorf("Text = %q, want %q", got.Text, want)
	}
}

func TestSliceWithTokenizerStaysUnderThreshold(t *testing.T) {
	// A tokenizer counting one token per character: chars/4 would allow 4x too much.
	s := New(Options{InlineTokens: 50, Tokenizer: func(s string) int { return utf8.RuneCountInString(s) }})
	mustPut(t, s, "id", strings.Repeat("é", 1000))
	got, err := s.Slice("id", SliceRequest{Start: intp(0), Length: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(got.Text); n > 50 || n == 0 || !got.Clamped || got.End-got.Start != n {
		t.Errorf("slice of %d chars [%d,%d) clamped=%v, want 1..50 chars, clamped", n, got.Start, got.End, got.Clamped)
	}
}

func TestSliceLargeMultibyte(t *testing.T) {
	// Long enough for several rune-index marks; checks offsets far from the start.
	var b strings.Builder
	for b.Len() < 200_000 {
		b.WriteString("世界😀abc é\n")
	}
	b.WriteString("THE END")
	content := b.String()
	runes := []rune(content)
	s := New(Options{})
	mustPut(t, s, "id", content)
	for _, start := range []int{0, 1, runeStride - 1, runeStride, runeStride + 1, 50_000, len(runes) - 7} {
		got, err := s.Slice("id", SliceRequest{Start: intp(start), Length: 3000})
		if err != nil {
			t.Fatal(err)
		}
		end := min(start+3000, len(runes))
		if got.Text != string(runes[start:end]) || got.End != end {
			t.Errorf("start %d: got [%d,%d) %q..., want [%d,%d)", start, got.Start, got.End, got.Text[:min(len(got.Text), 20)], start, end)
		}
	}
	got, err := s.Slice("id", SliceRequest{Anchor: "THE END", MatchIndex: -1, Window: 7})
	if err != nil || got.Text != "THE END" || got.End != len(runes) {
		t.Errorf("anchor at the end: %+v, %v", got, err)
	}
}

func FuzzSlice(f *testing.F) {
	f.Add("ab😀c世界déf🇫🇷<form>g😀", 2, 3, "", 0, 0)
	f.Add("one two one", 0, 0, "one", 5, -1)
	f.Add("a\xffb", 0, 10, "b", 1, 0)
	f.Add("\xff0", 0, 10, "\xbd", 1, 0) // a stray byte that is the tail of U+FFFD
	f.Fuzz(func(t *testing.T, content string, start, length int, anchor string, window, matchIndex int) {
		s := New(Options{InlineTokens: 50})
		mustPut(t, s, "id", content)
		stored := []rune(storedContent(t, s, "id"))
		req := SliceRequest{Length: length, Anchor: anchor, Window: window, MatchIndex: matchIndex}
		if anchor == "" {
			req.Start = &start
		}
		got, err := s.Slice("id", req)
		if err != nil {
			if !errors.Is(err, ErrBadRequest) && !errors.Is(err, ErrAnchorNotFound) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if got.Start < 0 || got.End > len(stored) || got.Start > got.End || got.End-got.Start > 200 {
			t.Fatalf("bad range [%d,%d) of %d chars", got.Start, got.End, len(stored))
		}
		if got.Text != string(stored[got.Start:got.End]) {
			t.Fatalf("Text %q != source[%d:%d]", got.Text, got.Start, got.End)
		}
		if anchor = strings.ToValidUTF8(anchor, "\uFFFD"); anchor != "" && !strings.Contains(got.Text, anchor) {
			t.Fatalf("Text %q lacks the anchor %q", got.Text, anchor)
		}
	})
}
