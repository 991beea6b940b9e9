// Command progress reads 'go test -json' on stdin and prints one line per
// top-level test as it ends (PASS, FAIL or SKIP with its time), the whole
// output of a failed test, and the package's closing line as go test prints
// it, so a long browser run shows where it is instead of staying silent.
// It exits 1 when a test or a package failed, or the input was not
// test2json's.
//
//	go test -json ./... | go run ./cmd/progress
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// event is one line of test2json.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

func main() {
	os.Exit(run(os.Stdin, os.Stdout))
}

func run(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	outputs := map[string]*strings.Builder{} // top-level test → its output and its subtests'
	failed := false
	started := 0
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// Not test2json (a build error printed before the run): pass it on.
			fmt.Fprintln(out, sc.Text())
			failed = true
			continue
		}
		top, _, _ := strings.Cut(e.Test, "/")
		switch {
		case e.Action == "build-output":
			fmt.Fprint(out, e.Output)
		case e.Action == "build-fail":
			failed = true
		case e.Action == "output" && e.Test == "":
			// Package-level lines: build failures, TestMain, panics,
			// "ok"/"FAIL" closing lines come as pass/fail events instead.
			if !strings.HasPrefix(e.Output, "PASS\n") && !strings.HasPrefix(e.Output, "FAIL\n") &&
				!strings.HasPrefix(e.Output, "ok  ") && !strings.HasPrefix(e.Output, "FAIL\t") {
				fmt.Fprint(out, e.Output)
			}
		case e.Action == "output":
			b := outputs[top]
			if b == nil {
				b = &strings.Builder{}
				outputs[top] = b
			}
			if b.Len() < 4<<20 {
				b.WriteString(e.Output)
			}
		case e.Action == "run" && e.Test == top:
			started++
		case (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") && e.Test == top && e.Test != "":
			switch e.Action {
			case "pass":
				fmt.Fprintf(out, "PASS %s (%.1fs)\n", e.Test, e.Elapsed)
			case "skip":
				fmt.Fprintf(out, "SKIP %s: %s\n", e.Test, skipReason(outputs[top]))
			case "fail":
				failed = true
				fmt.Fprintf(out, "FAIL %s (%.1fs)\n", e.Test, e.Elapsed)
				if b := outputs[top]; b != nil {
					fmt.Fprint(out, indent(b.String()))
				}
			}
			delete(outputs, top)
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail"):
			// The package's closing line, as go test prints it.
			if e.Action == "fail" {
				failed = true
				fmt.Fprintf(out, "FAIL\t%s\t%.3fs\n", e.Package, e.Elapsed)
			} else {
				fmt.Fprintf(out, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
			}
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "progress: reading go test -json:", err)
		return 1
	}
	// A test still open here never ended: the run was cut off (a timeout
	// panic ends the package as failed, and its output is printed above).
	for name, b := range outputs {
		failed = true
		fmt.Fprintf(out, "UNFINISHED %s\n%s", name, indent(b.String()))
	}
	if failed {
		return 1
	}
	return 0
}

// skipReason is the last line a skipped test logged, trimmed.
func skipReason(b *strings.Builder) string {
	if b == nil {
		return "skipped"
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "--- SKIP") && !strings.HasPrefix(l, "=== ") {
			return l
		}
	}
	return "skipped"
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	return b.String()
}
