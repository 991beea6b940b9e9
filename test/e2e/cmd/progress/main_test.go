package main

import (
	"strings"
	"testing"
)

func TestProgress(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:1: noisy log\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestA","Elapsed":1.25}`,
		`{"Action":"run","Package":"p","Test":"TestB"}`,
		`{"Action":"run","Package":"p","Test":"TestB/sub"}`,
		`{"Action":"output","Package":"p","Test":"TestB/sub","Output":"    b_test.go:9: got 1, want 2\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestB/sub","Elapsed":0.5}`,
		`{"Action":"fail","Package":"p","Test":"TestB","Elapsed":0.6}`,
		`{"Action":"run","Package":"p","Test":"TestC"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:3: no npm\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestC","Elapsed":0}`,
		`{"Action":"output","Package":"p","Output":"FAIL\n"}`,
		`{"Action":"fail","Package":"p","Elapsed":3.5}`,
	}, "\n")
	var out strings.Builder
	if code := run(strings.NewReader(in), &out); code != 1 {
		t.Errorf("exit %d, want 1 after a failure", code)
	}
	got := out.String()
	for _, want := range []string{"PASS TestA (1.2s)\n", "FAIL TestB (0.6s)\n", "got 1, want 2", "SKIP TestC: c_test.go:3: no npm\n", "FAIL\tp\t3.500s\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "noisy log") {
		t.Errorf("a passing test's log was printed:\n%s", got)
	}

	out.Reset()
	ok := `{"Action":"run","Package":"p","Test":"TestA"}` + "\n" + `{"Action":"pass","Package":"p","Test":"TestA","Elapsed":2}` + "\n" + `{"Action":"pass","Package":"p","Elapsed":2.1}`
	if code := run(strings.NewReader(ok), &out); code != 0 || !strings.Contains(out.String(), "ok  \tp\t2.100s") {
		t.Errorf("exit %d, output %q; want 0 and go test's ok line", code, out.String())
	}
}
