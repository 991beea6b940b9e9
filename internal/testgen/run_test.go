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

// TestVerifyWithoutRunner: with no Playwright in the agent's folder, its
// parents or the daemon's, the error names every folder searched and what
// to do.
func TestVerifyWithoutRunner(t *testing.T) {
	t.Setenv(EnvPlaywright, "")
	agent, daemon := t.TempDir(), t.TempDir()
	t.Chdir(daemon)
	_, err := Runner{From: []string{agent}}.Verify(context.Background(), Result{File: "x"}, nil)
	if !errors.Is(err, ErrNoRunner) {
		t.Fatalf("got %v, want ErrNoRunner", err)
	}
	for _, want := range []string{agent + ", " + daemon, "npm i -D @playwright/test", EnvPlaywright} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got %q, want it to say %q", err, want)
		}
	}
}

// fakePlaywright makes dir a project with @playwright/test installed (its
// cli.js, empty: enough to be found) and returns that cli.js.
func fakePlaywright(t *testing.T, dir string) string {
	t.Helper()
	cli := filepath.Join(dir, "node_modules", "@playwright", "test", "cli.js")
	if err := os.MkdirAll(filepath.Dir(cli), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cli, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return cli
}

// TestRunnerFindsProjectPlaywright: without GASOLINE_PLAYWRIGHT, the
// Playwright of the agent's project folder (or of its nearest parent that
// has one) is used, as npx playwright there would, before the one of the
// daemon's working directory; with no agent folder, the daemon's.
func TestRunnerFindsProjectPlaywright(t *testing.T) {
	t.Setenv(EnvPlaywright, "")
	proj, bare, daemon := t.TempDir(), t.TempDir(), t.TempDir()
	cli := fakePlaywright(t, proj)
	daemonCLI := fakePlaywright(t, daemon)
	deep := filepath.Join(proj, "src", "app")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(daemon)
	for _, tc := range []struct {
		name string
		from []string
		want string
	}{
		{"the agent's folder", []string{proj}, cli},
		{"a parent of the agent's folder", []string{deep}, cli},
		{"the first folder that has one", []string{bare, deep}, cli},
		{"the daemon's, when the agent's has none", []string{bare}, daemonCLI},
		{"the daemon's, when the agent named none", []string{""}, daemonCLI},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, modules, err := Runner{From: tc.from}.cli()
			if err != nil || got != tc.want || modules != filepath.Dir(filepath.Dir(filepath.Dir(tc.want))) {
				t.Errorf("from %v: got %s, %s, %v; want %s", tc.from, got, modules, err, tc.want)
			}
		})
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
