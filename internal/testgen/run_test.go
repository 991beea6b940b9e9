package testgen

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
)

// project is test/npm, where make npm-deps installs @playwright/test.
func project(t *testing.T) string {
	p, _ := filepath.Abs("../../test/npm")
	if _, err := os.Stat(filepath.Join(p, "node_modules/@playwright/test/cli.js")); err != nil {
		t.Skip("@playwright/test is not installed: make npm-deps")
	}
	if _, err := os.Stat("/usr/bin/chromium"); err != nil {
		t.Skip("no /usr/bin/chromium")
	}
	return p
}

// TestVerify runs a generated test against a page that behaves as recorded
// (it passes), then against the same page with its API answering 500 (it
// fails at the response assertion) and with the button renamed (it fails
// at the click).
func TestVerify(t *testing.T) {
	proj := project(t)
	var status atomic.Int32
	var label atomic.Value
	status.Store(200)
	label.Store("Save")
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><label>Name <input id="n"></label><button onclick="fetch('/api/save',{method:'POST'}).then(r=>{document.body.append(r.ok?'Saved':'Failed')})">%s</button>`, label.Load())
	})
	mux.HandleFunc("/api/save", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(int(status.Load())) })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	res, err := Generate(Recording{Name: "save", Entries: []capture.View{
		nav(1, "load", srv.URL+"/"),
		act(2, "input", "#n", &apitype.Locator{By: "label", Name: "Name"}, func(a *capture.ActionView) { a.Value = "ada" }),
		act(3, "click", "button", &apitype.Locator{By: "role", Role: "button", Name: "Save"}, nil),
		req(4, "POST", srv.URL+"/api/save", 200),
	}})
	if err != nil {
		t.Fatal(err)
	}
	run := func() Verdict {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		v, err := Runner{Project: proj}.Verify(ctx, res, nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := run(); !v.Passed {
		t.Fatalf("against the recorded page: got %+v, want passed\n%s", v, res.File)
	}
	status.Store(500)
	if v := run(); v.Passed || !strings.Contains(v.FailedCode, "toBe(200)") {
		t.Errorf("with the API answering 500: got %+v, want a failure at the status assertion", v)
	}
	status.Store(200)
	label.Store("Store")
	if v := run(); v.Passed || !strings.Contains(v.FailedCode, "getByRole('button', { name: 'Save'") {
		t.Errorf("with the button renamed: got %+v, want a failure at its click", v)
	}
}

func TestVerifyWithoutRunner(t *testing.T) {
	t.Setenv(EnvPlaywright, "")
	_, err := Runner{From: t.TempDir()}.Verify(context.Background(), Result{File: "x"}, nil)
	if !errors.Is(err, ErrNoRunner) {
		t.Errorf("got %v, want ErrNoRunner", err)
	}
}

// TestRunnerFindsProjectPlaywright: without GASOLINE_PLAYWRIGHT, the
// Playwright of the project the daemon runs in (or of a parent folder) is
// the one used, as npx playwright there would.
func TestRunnerFindsProjectPlaywright(t *testing.T) {
	t.Setenv(EnvPlaywright, "")
	proj := t.TempDir()
	cli := filepath.Join(proj, "node_modules", "@playwright", "test", "cli.js")
	deep := filepath.Join(proj, "src", "app")
	for _, d := range []string{filepath.Dir(cli), deep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(cli, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{proj, deep} {
		got, modules, err := Runner{From: from}.cli()
		if err != nil || got != cli || modules != filepath.Join(proj, "node_modules") {
			t.Errorf("from %s: got %s, %s, %v; want %s", from, got, modules, err, cli)
		}
	}
}

// TestLaunchOptions: the browser gets --no-sandbox only as root, where
// Chromium will not start with its sandbox.
func TestLaunchOptions(t *testing.T) {
	if got := launchOptions("", true); got != "" {
		t.Errorf("no browser: got %q, want none", got)
	}
	if got := launchOptions("/usr/bin/chromium", false); strings.Contains(got, "no-sandbox") || !strings.Contains(got, "/usr/bin/chromium") {
		t.Errorf("not root: got %q, want the browser, sandboxed", got)
	}
	if got := launchOptions("/usr/bin/chromium", true); !strings.Contains(got, "'--no-sandbox'") {
		t.Errorf("root: got %q, want --no-sandbox", got)
	}
}
