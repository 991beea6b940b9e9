package output

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// mustPut stores content under id or fails the test.
func mustPut(t testing.TB, s *Store, id, content string) Handle {
	t.Helper()
	h, err := s.Put(id, content)
	if err != nil {
		t.Fatalf("Put(%q): %v", id, err)
	}
	return h
}

// runeSlice returns the characters [start, end) of s.
func runeSlice(s string, start, end int) string {
	r := []rune(s)
	return string(r[start:end])
}

// checkProvenance fails the test unless every snippet of res equals the
// source's characters [Start, End) and the result names the source's hash.
func checkProvenance(t testing.TB, s *Store, id string, res ExtractResult) {
	t.Helper()
	h, err := s.Handle(id)
	if err != nil {
		t.Fatalf("Handle(%q): %v", id, err)
	}
	src := []rune(storedContent(t, s, id))
	if res.SourceSHA256 != h.SHA256 {
		t.Errorf("source_sha256 = %s, want %s", res.SourceSHA256, h.SHA256)
	}
	if res.SourceChars != len(src) {
		t.Errorf("source_chars = %d, want %d", res.SourceChars, len(src))
	}
	prevEnd := -1
	for i, sn := range res.Snippets {
		if sn.Start < 0 || sn.End > len(src) || sn.Start >= sn.End {
			t.Fatalf("snippet %d has offsets [%d,%d) outside the %d-char source", i, sn.Start, sn.End, len(src))
		}
		if got := string(src[sn.Start:sn.End]); got != sn.Text {
			t.Fatalf("snippet %d: source[%d:%d] = %q, want its text %q", i, sn.Start, sn.End, got, sn.Text)
		}
		if sn.Start < prevEnd {
			t.Errorf("snippet %d starts at %d, before the previous one ends (%d): not in source order or overlapping", i, sn.Start, prevEnd)
		}
		prevEnd = sn.End
	}
}

// storedContent returns the content stored under id, whatever its size.
func storedContent(t testing.TB, s *Store, id string) string {
	t.Helper()
	e, err := s.get(id)
	if err != nil {
		t.Fatalf("get(%q): %v", id, err)
	}
	return e.content
}

// funcExtractor is an Extractor built from a function.
type funcExtractor struct {
	id string
	fn func(ctx context.Context, query string, c Chunk) ([]Snippet, error)
}

func (f funcExtractor) ID() string { return f.id }
func (f funcExtractor) ExtractChunk(ctx context.Context, q string, c Chunk) ([]Snippet, error) {
	return f.fn(ctx, q, c)
}

// chaosExtractor returns, for each chunk, a random mix of correct snippets,
// snippets with wrong offsets, snippets out of bounds, empty ones and
// invented text: the Store must return only verbatim ones.
func chaosExtractor(seed uint64) Extractor {
	return funcExtractor{id: "chaos@1", fn: func(_ context.Context, _ string, c Chunk) ([]Snippet, error) {
		rng := rand.New(rand.NewPCG(seed, uint64(c.Index)))
		r := []rune(c.Text)
		var out []Snippet
		for range rng.IntN(8) {
			if len(r) == 0 {
				break
			}
			a := rng.IntN(len(r))
			b := a + 1 + rng.IntN(min(len(r)-a, 60))
			sn := Snippet{Text: string(r[a:b]), Start: a, End: b, Score: rng.Float64()}
			switch rng.IntN(6) {
			case 1:
				sn.Start, sn.End = sn.Start+rng.IntN(9)-4, sn.End+rng.IntN(9)-4
			case 2:
				sn.Start, sn.End = -1, -1
			case 3:
				sn.Text = "invented " + sn.Text + " text"
			case 4:
				sn.Start, sn.End = len(r)+5, len(r)+9
			case 5:
				sn.Text = ""
			}
			out = append(out, sn)
		}
		return out, nil
	}}
}

// randomText builds n characters mixing ASCII words, HTML tags, emoji, CJK,
// accents and newlines.
func randomText(rng *rand.Rand, n int) string {
	pieces := []string{"error", "Error", "message", "user", "form", "<div class=\"error\">", "</div>", "<p>", "</p>",
		"😀", "世界", "错误", "é", "ñ", " ", " ", " ", "\n", ". ", ",", "required", "é́", "🇫🇷", "x"}
	var b strings.Builder
	for utf8.RuneCountInString(b.String()) < n {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	r := []rune(b.String())
	return string(r[:n])
}

// genHTML builds a realistic page of about size bytes: head, navigation,
// product cards, forms with a few error messages, inline scripts and JSON.
func genHTML(size int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	words := strings.Fields("shoe bag jacket summer winter sale new classic leather cotton blue red black green size price cart delivery return free premium organic handmade vintage limited edition collection")
	phrase := func(n int) string {
		w := make([]string, n)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Shop – summer sale</title>\n")
	b.WriteString("<link rel=\"stylesheet\" href=\"/static/app.css\">\n<script>window.__STATE__={\"user\":{\"id\":42,\"name\":\"Ada\"},\"flags\":{\"beta\":true}};</script>\n</head>\n<body>\n")
	b.WriteString("<nav class=\"top\"><ul><li><a href=\"/\">Home</a></li><li><a href=\"/account\">Account</a></li><li><a href=\"/cart\">Cart (3)</a></li></ul></nav>\n")
	for i := 0; b.Len() < size; i++ {
		switch rng.IntN(12) {
		case 0:
			fmt.Fprintf(&b, "<form id=\"f%d\" action=\"/subscribe\" method=\"post\">\n  <label for=\"email%d\">Email</label>\n  <input id=\"email%d\" type=\"email\" name=\"email\">\n", i, i, i)
			if rng.IntN(4) == 0 {
				fmt.Fprintf(&b, "  <div class=\"error\">Email is required</div>\n")
			}
			b.WriteString("  <button type=\"submit\" class=\"btn btn-primary\">Subscribe</button>\n</form>\n")
		case 1:
			fmt.Fprintf(&b, "<script>(function(){var a=document.querySelectorAll('.card');for(var i=0;i<a.length;i++){a[i].addEventListener('click',function(e){track('card_%d',e)})}})();</script>\n", i)
		case 2:
			if rng.IntN(5) == 0 {
				b.WriteString("<p class=\"alert alert-warning\">Some items in your cart are no longer available.</p>\n")
			} else {
				fmt.Fprintf(&b, "<p>%s. %s!</p>\n", phrase(12), phrase(6))
			}
		default:
			fmt.Fprintf(&b, "<div class=\"card\" data-id=\"%d\"><img src=\"/img/p%d.jpg\" alt=\"%s\"><h3>%s</h3><span class=\"price\">€%d.%02d</span><a class=\"btn\" href=\"/p/%d\">View</a></div>\n",
				i, i, phrase(3), phrase(4), rng.IntN(300), rng.IntN(100), i)
		}
	}
	b.WriteString("<footer>© 2025 Shop · <a href=\"/privacy\">Privacy</a></footer>\n</body>\n</html>\n")
	return b.String()
}

func isErr(err, target error) bool { return errors.Is(err, target) }
