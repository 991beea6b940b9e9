package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// finding is one doctor line: ok, problem or skip, for a subject.
type finding struct{ status, subject, text string }

var findingLine = regexp.MustCompile(`^(ok|problem|skip) +(round trip|state dir|\S+) +(.*)$`)

func parseDoctor(out string) map[string]finding {
	got := map[string]finding{}
	for _, line := range strings.Split(out, "\n") {
		if m := findingLine.FindStringSubmatch(line); m != nil {
			got[m[2]] = finding{m[1], m[2], m[3]}
		}
	}
	return got
}

func wantFindings(t *testing.T, out string, want map[string]string) {
	t.Helper()
	got := parseDoctor(out)
	for subject, status := range want {
		if got[subject].status != status {
			t.Errorf("%s: got %q, want %s\n%s", subject, got[subject].status, status, out)
		}
	}
}

// TestDoctorHealthy runs doctor against a running daemon with a paired,
// polling extension that answers the round-trip script.
func TestDoctorHealthy(t *testing.T) {
	d := startTestDaemon(t)
	d.pairExtension(t)
	d.serveExtension(t, func(q apitype.PendingQuery) apitype.QueryResult {
		value, _ := json.Marshal(map[string]any{"value": "http://page.test/", "tab_id": 7, "url": "http://page.test/"})
		return apitype.QueryResult{CorrelationID: q.CorrelationID, Status: "complete", Result: value}
	})
	d.waitConnected(t)

	code, out, _ := runCLI(t, append([]string{"doctor"}, d.flags()...)...)
	wantFindings(t, out, map[string]string{
		"state dir": "ok", "token": "ok", "port": "ok", "daemon": "ok", "auth": "ok",
		"pairing": "ok", "extension": "ok", "round trip": "ok",
	})
	if f := parseDoctor(out)["round trip"]; !strings.Contains(f.text, "http://page.test/") {
		t.Errorf("round trip line %q does not name the tab's page", f.text)
	}
	// The test binary has no gasoline-mcp beside it, so the bridge line
	// is the one problem a healthy daemon leaves.
	if got := parseDoctor(out)["bridge"].status; (got == "problem") != (code == 1) {
		t.Errorf("exit code %d with bridge %s; want 1 exactly when a check found a problem\n%s", code, got, out)
	}
}

// TestDoctorExtensionFailures covers a paired extension that is gone and a
// script the page refuses (the chain still works).
func TestDoctorExtensionFailures(t *testing.T) {
	d := startTestDaemon(t)

	code, out, _ := runCLI(t, append([]string{"doctor"}, d.flags()...)...)
	wantFindings(t, out, map[string]string{"daemon": "ok", "pairing": "problem", "extension": "problem", "round trip": "skip"})
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if !strings.Contains(out, "gasoline pair") || !strings.Contains(out, fmt.Sprint(d.port)) {
		t.Errorf("the fixes should name 'gasoline pair' and the port %d:\n%s", d.port, out)
	}

	d.pairExtension(t)
	d.serveExtension(t, func(q apitype.PendingQuery) apitype.QueryResult {
		return apitype.QueryResult{CorrelationID: q.CorrelationID, Status: "error", Error: "Cannot access a chrome:// URL"}
	})
	d.waitConnected(t)
	_, out, _ = runCLI(t, append([]string{"doctor"}, d.flags()...)...)
	// The chain works, but an agent could not act in that tab: a problem.
	wantFindings(t, out, map[string]string{"pairing": "ok", "extension": "ok", "round trip": "problem"})
	if f := parseDoctor(out)["round trip"]; !strings.Contains(f.text, "chrome://") || !strings.Contains(out, "open a web page") {
		t.Errorf("round trip %q should say the page refused the script and what to open:\n%s", f.text, out)
	}
}

// TestDoctorAgentAwayFromBrowser: on the agent's side of a remote setup
// (no browser on this machine) a missing browser is no problem by itself,
// and an extension that does not reach the daemon is told how to forward
// the port from the browser's machine.
func TestDoctorAgentAwayFromBrowser(t *testing.T) {
	d := startTestDaemon(t)
	t.Setenv("PATH", t.TempDir())
	t.Setenv("HOME", t.TempDir()) // no ~/Applications browser on macOS
	_, out, _ := runCLI(t, append([]string{"doctor"}, d.flags()...)...)
	wantFindings(t, out, map[string]string{"browser": "skip", "daemon": "ok", "extension": "problem"})
	for _, s := range []string{"ssh -L " + fmt.Sprint(d.port) + ":127.0.0.1:" + fmt.Sprint(d.port), "no browser runs on this machine", "gasoline pair"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

// TestDoctorFirefox: the extension line names the browser the extension
// polls from, Firefox here, and an old add-on's fix is Firefox's reload.
func TestDoctorFirefox(t *testing.T) {
	d := startTestDaemon(t)
	d.browser = apitype.BrowserFirefox
	d.pairExtension(t)
	d.serveExtension(t, func(q apitype.PendingQuery) apitype.QueryResult {
		value, _ := json.Marshal(map[string]any{"value": "http://page.test/"})
		return apitype.QueryResult{CorrelationID: q.CorrelationID, Status: "complete", Result: value}
	})
	d.waitConnected(t)
	_, out, _ := runCLI(t, append([]string{"doctor"}, d.flags()...)...)
	wantFindings(t, out, map[string]string{"pairing": "ok", "extension": "ok", "round trip": "ok"})
	if f := parseDoctor(out)["extension"]; !strings.HasPrefix(f.text, "connected in Firefox, last poll") {
		t.Errorf("the extension line %q should say it is connected in Firefox:\n%s", f.text, out)
	}
}

// TestDoctorExtensionSkew: an extension Chrome kept running after
// gasoline was rebuilt (it sends no contract version) is a problem of the
// extension line, whose fix is the reload at chrome://extensions; the
// round trip still runs.
func TestDoctorExtensionSkew(t *testing.T) {
	d := startTestDaemon(t)
	d.pairExtension(t)
	d.serveExtensionBuilt(t, "", func(q apitype.PendingQuery) apitype.QueryResult {
		value, _ := json.Marshal(map[string]any{"value": "http://page.test/"})
		return apitype.QueryResult{CorrelationID: q.CorrelationID, Status: "complete", Result: value}
	})
	d.waitConnected(t)
	code, out, _ := runCLI(t, append([]string{"doctor"}, d.flags()...)...)
	wantFindings(t, out, map[string]string{"pairing": "ok", "extension": "problem", "round trip": "ok"})
	if f := parseDoctor(out)["extension"]; !strings.Contains(f.text, "older than this daemon") || !strings.Contains(out, "fix: reload the gasoline extension at chrome://extensions") {
		t.Errorf("the extension line should name the old extension and its fix:\n%s", out)
	}
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
}

// TestDoctorWrongStateDir runs doctor with a state dir whose token the
// running daemon does not know.
func TestDoctorWrongStateDir(t *testing.T) {
	d := startTestDaemon(t)
	other := filepath.Join(t.TempDir(), "other")
	os.MkdirAll(other, 0o700)
	os.WriteFile(filepath.Join(other, "token"), []byte(strings.Repeat("ab", 32)+"\n"), 0o600)

	code, out, _ := runCLI(t, "doctor", "--port", fmt.Sprint(d.port), "--state-dir", other)
	wantFindings(t, out, map[string]string{"port": "problem", "extension": "skip"})
	if code != 1 || !strings.Contains(out, "--state-dir") || !strings.Contains(out, "gasoline daemon (pid") {
		t.Errorf("exit %d; want 1 and a fix naming --state-dir:\n%s", code, out)
	}
}

// TestDoctorBrokenSetup: the state dir and token are open to others, the
// port is held by a program that is not gasoline, and no browser or
// gasoline-mcp is on PATH.
func TestDoctorBrokenSetup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("permission bits do not apply on Windows")
	}
	dir := filepath.Join(t.TempDir(), "state")
	os.MkdirAll(dir, 0o755)
	os.Chmod(dir, 0o755)
	tokenFile := filepath.Join(dir, "token")
	os.WriteFile(tokenFile, []byte(strings.Repeat("cd", 32)+"\n"), 0o644)
	os.Chmod(tokenFile, 0o644)
	t.Setenv("PATH", t.TempDir())

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	other := &http.Server{Handler: http.NotFoundHandler()}
	go other.Serve(ln)
	t.Cleanup(func() { other.Close() })
	port := ln.Addr().(*net.TCPAddr).Port

	code, out, errOut := runCLI(t, "doctor", "--port", fmt.Sprint(port), "--state-dir", dir)
	wantFindings(t, out, map[string]string{
		"bridge": "problem", "browser": "skip", "state dir": "problem", "token": "problem",
		"port": "problem", "extension": "skip", "round trip": "skip",
	})
	for _, fix := range []string{"chmod 700 " + dir, "rm " + tokenFile, "make build", "--port"} {
		if !strings.Contains(out, fix) {
			t.Errorf("output lacks the fix %q:\n%s", fix, out)
		}
	}
	if code != 1 || !strings.Contains(errOut, "problem") {
		t.Errorf("exit %d, stderr %q; want 1 and a summary of the problems", code, errOut)
	}

	// A port nobody holds: free, and the daemon is not running.
	ln2, _ := net.Listen("tcp", "127.0.0.1:0")
	free := ln2.Addr().(*net.TCPAddr).Port
	ln2.Close()
	_, out, _ = runCLI(t, "doctor", "--port", fmt.Sprint(free), "--state-dir", filepath.Join(t.TempDir(), "none"))
	wantFindings(t, out, map[string]string{"state dir": "problem", "port": "ok", "daemon": "problem"})
	if !strings.Contains(out, "gasoline daemon start") {
		t.Errorf("no fix to start the daemon:\n%s", out)
	}
}
