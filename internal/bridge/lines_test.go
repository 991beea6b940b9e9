package bridge

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type readLine struct {
	line      string
	oversized bool
}

func readAll(t *testing.T, r io.Reader, max int) []readLine {
	t.Helper()
	lr := newLineReader(r, max)
	var got []readLine
	for {
		line, over, err := lr.next()
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatalf("next: %v", err)
		}
		got = append(got, readLine{string(line), over})
	}
}

func TestLineReader(t *testing.T) {
	big := strings.Repeat("x", 200<<10) // longer than the bufio buffer
	tests := []struct {
		name  string
		input string
		max   int
		want  []readLine
	}{
		{"lines", "{\"a\":1}\n{\"b\":2}\n", 100, []readLine{{`{"a":1}`, false}, {`{"b":2}`, false}}},
		{"blank lines skipped", "\n\n  \n{\"a\":1}\r\n\t\n", 100, []readLine{{`{"a":1}`, false}}},
		{"last line without newline", "{\"a\":1}\n{\"b\":2}", 100, []readLine{{`{"a":1}`, false}, {`{"b":2}`, false}}},
		{"empty", "", 100, nil},
		{"exactly max", "12345\n", 5, []readLine{{"12345", false}}},
		{"exactly max with CRLF", "12345\r\n", 5, []readLine{{"12345", false}}},
		{"over max", "123456\nok\n", 5, []readLine{{"123456", true}, {"ok", false}}},
		{"long line within max", big + "\nok\n", len(big), []readLine{{big, false}, {"ok", false}}},
		{"long line over max", big + "\nok\n", len(big) - 1, []readLine{{big[:oversizeHead], true}, {"ok", false}}},
		{"long line over max at EOF", big, 100 << 10, []readLine{{big[:oversizeHead], true}}},
		{"long last line without newline", big, len(big), []readLine{{big, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []struct {
				name string
				r    io.Reader
			}{
				{"whole", strings.NewReader(tt.input)},
				{"one byte at a time", iotest.OneByteReader(strings.NewReader(tt.input))},
			} {
				got := readAll(t, r.r, tt.max)
				if len(got) != len(tt.want) {
					t.Fatalf("%s: got %d lines, want %d", r.name, len(got), len(tt.want))
				}
				for i := range got {
					if got[i] != tt.want[i] {
						t.Errorf("%s: line %d: got %.40q (oversized %v), want %.40q (oversized %v)",
							r.name, i, got[i].line, got[i].oversized, tt.want[i].line, tt.want[i].oversized)
					}
				}
			}
		})
	}
}

// TestLineReaderOwnership checks each returned line survives later reads.
func TestLineReaderOwnership(t *testing.T) {
	lr := newLineReader(strings.NewReader("aaaa\nbbbb\n"), 100)
	first, _, _ := lr.next()
	lr.next()
	if string(first) != "aaaa" {
		t.Errorf("first line changed to %q after the next read", first)
	}
}

func TestIDFromHead(t *testing.T) {
	tests := []struct {
		head, want string
	}{
		{`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"arguments":{"script":"xxxx`, "42"},
		{`{"id":"abc","params":`, `"abc"`},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"script":"xxxx`, ""},
		{`{"params":{"a":1},"id":7,"x":"`, "7"},
		{`[{"id":1}`, ""},
		{`garbage`, ""},
	}
	for _, tt := range tests {
		if got := string(idFromHead([]byte(tt.head))); got != tt.want {
			t.Errorf("idFromHead(%.30q): got %q, want %q", tt.head, got, tt.want)
		}
	}
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n\n{\"b\":2}\r\n"), 8)
	f.Add([]byte("123456\nok"), 5)
	f.Fuzz(func(t *testing.T, input []byte, max int) {
		if max < 1 || max > 1<<20 {
			return
		}
		lr := newLineReader(bytes.NewReader(input), max)
		n := 0
		for {
			line, over, err := lr.next()
			if err != nil {
				break
			}
			if !over && (len(line) > max || len(bytes.TrimSpace(line)) == 0) {
				t.Fatalf("line %q: len %d, max %d", line, len(line), max)
			}
			n++
			if n > len(input)+1 {
				t.Fatal("more lines than bytes")
			}
		}
	})
}
