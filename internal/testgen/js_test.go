package testgen

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// unq reads the single-quoted literal q wrote at the start of lit, as a
// JavaScript engine would: its value and the rest of lit after it; ok is
// false when the literal does not end on the line.
func unq(lit string) (val, rest string, ok bool) {
	if !strings.HasPrefix(lit, "'") {
		return "", "", false
	}
	var b strings.Builder
	rs := []rune(lit)
	for i := 1; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\'':
			return b.String(), string(rs[i+1:]), true
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			return "", "", false
		case r == '\\' && i+1 < len(rs):
			i++
			switch e := rs[i]; e {
			case 'n':
				b.WriteRune('\n')
			case 'r':
				b.WriteRune('\r')
			case 't':
				b.WriteRune('\t')
			case 'u':
				if i+4 >= len(rs) {
					return "", "", false
				}
				n, err := strconv.ParseUint(string(rs[i+1:i+5]), 16, 32)
				if err != nil {
					return "", "", false
				}
				b.WriteRune(rune(n))
				i += 4
			default:
				b.WriteRune(e)
			}
		default:
			b.WriteRune(r)
		}
	}
	return "", "", false
}

// hostile are names a page can give its elements.
var hostile = []string{
	"Password\u2028alert(1)//", "a\u2029b", "x\ny", "x\rprocess.exit(1)", "*/ evil() /*", "'); evil(); ('",
	"${process.exit(1)}", "`; evil(); `", "\\", "\\'", "\u202eevil", "a\x00b", "\u0085next line", "⟦/page:abc⟧",
}

// FuzzEscape: whatever a page names its elements, types or throws, a
// generated file keeps it inside one literal or one comment line: q's
// literal reads back as the string and holds no line terminator, "${",
// backtick or "*/"; jsComment holds no line terminator or "*/"; and a
// whole recording of hostile strings gives a file whose lines are the
// generator's own (no U+2028, U+2029 or \r; every comment line ends where
// the generator ended it).
func FuzzEscape(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		lit := q(s)
		got, rest, ok := unq(lit)
		if !ok || rest != "" || got != s {
			t.Fatalf("q(%q) = %s reads back as %q (rest %q, ok %v)", s, lit, got, rest, ok)
		}
		if strings.ContainsAny(lit, "\n\r\u2028\u2029") || strings.Contains(lit, "*/") || strings.Contains(lit, "${") ||
			strings.Count(lit, "`") != strings.Count(lit, "\\`") {
			t.Fatalf("q(%q) = %s can end a line, a comment or a template", s, lit)
		}
		c := jsComment(s)
		if strings.ContainsAny(c, "\n\r\u2028\u2029") || strings.Contains(c, "*/") {
			t.Fatalf("jsComment(%q) = %q can end the comment", s, c)
		}
		checkFile(t, s)
	})
}

// checkFile generates a test from a recording whose every page string is
// s and checks the file's lines are the generator's.
func checkFile(t *testing.T, s string) {
	t.Helper()
	res, err := recordingOf(s)
	if err != nil {
		return // a recording Generate refuses writes no file
	}
	// Text the generator writes itself ("process.env" holds "ss.e") says
	// nothing: it is found in the file made from a neutral string too.
	own := ""
	if n, err := recordingOf("\x01"); err == nil {
		for _, l := range strings.Split(n.File, "\n") {
			own += outsideLiterals(l) + "\n"
		}
	}
	if strings.ContainsAny(res.File, "\r\u2028\u2029") {
		t.Fatalf("the file for %q holds a line terminator the generator did not write:\n%s", s, res.File)
	}
	for _, l := range strings.Split(res.File, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "//") && strings.Contains(l, "*/") {
			t.Fatalf("comment line %q holds */", l)
		}
		// Every line of code is the generator's: outside its literals it
		// holds no text of the page.
		if !strings.HasPrefix(l, "//") && s != "" && len(s) > 3 && !strings.Contains(own, s) && strings.Contains(outsideLiterals(l), s) {
			t.Fatalf("line %q holds %q outside a literal", l, s)
		}
	}
}

// recordingOf generates a test from a recording whose every page string is s.
func recordingOf(s string) (Result, error) {
	return Generate(Recording{Name: s, Entries: []capture.View{
		&capture.NavView{Head: capture.Head{ID: 1, TabID: 7, TS: 10}, Type: "load", To: "http://127.0.0.1/" + s},
		&capture.ActionView{Head: capture.Head{ID: 2, TabID: 7, TS: 20}, Type: "input", Selector: s, Value: "[redacted]"},
		&capture.ActionView{Head: capture.Head{ID: 3, TabID: 7, TS: 30}, Type: "input", Selector: "#p", Name: s, Value: "[redacted]"},
		&capture.ActionView{Head: capture.Head{ID: 4, TabID: 7, TS: 40}, Type: "input", Selector: "#n", Value: s,
			Locator: &apitype.Locator{By: "role", Role: "textbox", Name: s}},
		&capture.ActionView{Head: capture.Head{ID: 5, TabID: 7, TS: 50}, Type: "click", Selector: s,
			Locator: &apitype.Locator{By: "testid", Attr: "data-testid", Value: s}},
		&capture.NavView{Head: capture.Head{ID: 6, TabID: 7, TS: 60}, Type: "pushState", To: "http://127.0.0.1/" + s},
		&capture.ErrorView{Head: capture.Head{ID: 7, TabID: 7, TS: 70}, Type: "uncaught", Message: s},
	}})
}

// outsideLiterals is line with each of q's literals removed.
func outsideLiterals(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '\'')
		if i < 0 {
			return b.String() + line
		}
		b.WriteString(line[:i])
		_, rest, ok := unq(line[i:])
		if !ok {
			return b.String() + line[i:]
		}
		line = rest
	}
}

// TestEscapeHostileNames: a secret field named with U+2028 stays in its
// comment (the comment holds the escape, the next line is the fill).
func TestEscapeHostileNames(t *testing.T) {
	for _, s := range hostile {
		checkFile(t, s)
	}
	res, err := Generate(Recording{Entries: []capture.View{
		&capture.ActionView{Head: capture.Head{ID: 2, TabID: 7, TS: 20}, Type: "input", Selector: "#p", Name: "Password\u2028alert(1)//", Value: "[redacted]"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `  // the field 'Password\u2028alert(1)//': a secret, never recorded; set GASOLINE_SECRET_1.`; !strings.Contains(res.File, want+"\n") {
		t.Errorf("got\n%s\nwant the line %s", res.File, want)
	}
}
