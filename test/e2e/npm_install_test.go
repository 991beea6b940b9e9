package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

// TestInstallFromNPMWithoutGo is a new user's path with no Go toolchain:
// 'make dist' (scripts/dist) builds this platform's npm packages, npm
// installs them into an empty folder, and with a PATH that holds no go, the
// package's launcher writes the extension ('extension install'), starts the
// daemon, gives a pairing code, and serves the official TypeScript SDK as an
// agent's stdio server: one execute_js runs in Chromium, which loaded the
// extension from the folder the launcher wrote.
func TestInstallFromNPMWithoutGo(t *testing.T) {
	requireBrowser(t)
	if os.Getenv("GASOLINE_HEADED") == "1" {
		t.Skip("the headless run covers it: nothing here depends on a display")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		if os.Getenv("GASOLINE_REQUIRE_BROWSER") == "1" {
			t.Fatal("npm is needed: apt-get install npm")
		}
		t.Skip("no npm")
	}
	root, err := gasoline.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	run := func(dir string, env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env = dir, env
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\nstdout: %s\nstderr: %s", name, strings.Join(args, " "), err, out.String(), errOut.String())
		}
		return out.String()
	}

	dist := t.TempDir()
	run(root, os.Environ(), "go", "run", "./scripts/dist", "-platforms", "linux/"+runtime.GOARCH, "-pack", "-out", dist)
	tgz, _ := filepath.Glob(filepath.Join(dist, "npm", "*.tgz"))
	if len(tgz) != 2 {
		t.Fatalf("npm pack made %v, want the launcher and this platform's package", tgz)
	}

	// The user's machine: an empty project folder and a PATH without go.
	prefix := t.TempDir()
	os.WriteFile(filepath.Join(prefix, "package.json"), []byte(`{"name":"user","version":"1.0.0","private":true}`), 0o644)
	userEnv := withoutGo(t)
	run(prefix, userEnv, npm, append([]string{"install", "--no-audit", "--no-fund", "--loglevel=error"}, tgz...)...)
	launcher := filepath.Join(prefix, "node_modules", ".bin", "gasoline-browser-mcp")
	if _, err := exec.LookPath(filepath.Join(prefix, "node_modules", ".bin", "go")); err == nil {
		t.Fatal("go is reachable from the install")
	}

	state := filepath.Join(t.TempDir(), "state")
	port, err := gasoline.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	flags := []string{"--port", strconv.Itoa(port), "--state-dir", state}
	out := run(prefix, userEnv, launcher, append([]string{"extension", "install"}, flags...)...)
	extDir := filepath.Join(state, "extension")
	if !strings.Contains(out, extDir) {
		t.Fatalf("extension install did not name %s:\n%s", extDir, out)
	}
	out = run(prefix, userEnv, launcher, append([]string{"config", "cursor"}, flags...)...)
	if !strings.Contains(out, `"command": "npx"`) || !strings.Contains(out, `"gasoline-browser-mcp"`) {
		t.Errorf("config from the npm install does not use npx:\n%s", out)
	}
	run(prefix, userEnv, launcher, append([]string{"daemon", "start"}, flags...)...)
	t.Cleanup(func() {
		cmd := exec.Command(launcher, append([]string{"daemon", "stop"}, flags...)...)
		cmd.Env = userEnv
		cmd.Run()
	})

	// The three extension steps, played as the user: Chromium loads the
	// folder, and the popup takes a code from the launcher's 'pair'.
	bin := filepath.Join(prefix, "node_modules", "gasoline-browser-mcp-linux-"+npmCPU(), "bin")
	d := gasoline.Attach(gasoline.Bins{Daemon: filepath.Join(bin, "gasoline"), Bridge: filepath.Join(bin, "gasoline-mcp")}, port, state)
	e := &env{t: t, ctx: ctx, site: newSite(t), profile: t.TempDir(), logDir: t.TempDir(), daemon: d, extDir: extDir}
	t.Cleanup(func() {
		if t.Failed() {
			e.report(context.WithoutCancel(ctx))
		}
		e.stopBrowser()
	})
	e.startBrowser(e.site.URL + "/a")
	e.pair()

	sdkFrom := filepath.Join(root, "test", "npm", "package.json")
	node := filepath.Join(root, "test", "npm", "node_modules", ".bin", "node")
	agent := exec.CommandContext(ctx, node, filepath.Join(root, "test", "e2e", "testdata", "npm", "agent.cjs"), launcher, "--port", strconv.Itoa(port), "--state-dir", state)
	agent.Env = append(userEnv, "SDK_FROM="+sdkFrom)
	var stdout, stderr bytes.Buffer
	agent.Stdout, agent.Stderr = &stdout, &stderr
	if err := agent.Run(); err != nil {
		t.Fatalf("the TypeScript SDK agent: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var got struct {
		Server struct{ Name, Version string }
		Tools  []string
		Result struct {
			Status string          `json:"status"`
			Value  json.RawMessage `json:"result"`
		}
		IsError bool
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("agent output %q: %v", stdout.String(), err)
	}
	t.Logf("agent saw server %s %s, tools %v, result %s %s", got.Server.Name, got.Server.Version, got.Tools, got.Result.Status, got.Result.Value)
	if got.IsError || got.Result.Status != "complete" {
		t.Fatalf("execute_js through the npm install: %s", stdout.String())
	}
	if !strings.Contains(string(got.Result.Value), "Page A") {
		t.Errorf("execute_js read %s, want the page's title Page A", got.Result.Value)
	}
	if !strings.HasPrefix(got.Server.Version, "0.") || strings.HasSuffix(got.Server.Version, "-dev") {
		t.Errorf("server version %q, want the release version 'make dist' builds with", got.Server.Version)
	}
}

// withoutGo is this process's environment with every PATH entry that holds
// a go binary removed, and no GASOLINE_* settings.
func withoutGo(t *testing.T) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, "GASOLINE_"), strings.HasPrefix(kv, "GOROOT="), strings.HasPrefix(kv, "GOPATH="):
		case strings.HasPrefix(kv, "PATH="):
			var keep []string
			for _, dir := range filepath.SplitList(strings.TrimPrefix(kv, "PATH=")) {
				if _, err := os.Stat(filepath.Join(dir, "go")); err != nil {
					keep = append(keep, dir)
				}
			}
			env = append(env, "PATH="+strings.Join(keep, string(os.PathListSeparator)))
		default:
			env = append(env, kv)
		}
	}
	return env
}

func npmCPU() string {
	if runtime.GOARCH == "amd64" {
		return "x64"
	}
	return runtime.GOARCH
}
