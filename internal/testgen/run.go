package testgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Environment variables of Verify.
const (
	// EnvPlaywright names a project directory whose node_modules holds
	// @playwright/test (or that package's cli.js).
	EnvPlaywright = "GASOLINE_PLAYWRIGHT"
	// EnvBrowser is the Chromium the test launches (executablePath);
	// default /usr/bin/chromium when it exists, else Playwright's own.
	EnvBrowser = "GASOLINE_PLAYWRIGHT_BROWSER"
)

// ErrNoRunner is returned by Verify when no Playwright is found; the
// error wrapping it names the folders searched and what to do.
var ErrNoRunner = errors.New("no Playwright to run the test")

// Verdict is what running a generated test showed.
type Verdict struct {
	Passed bool `json:"passed"`
	// FailedStep is the first step or assertion line that failed, with the
	// error Playwright reported.
	FailedLine int    `json:"failed_line,omitempty"`
	FailedCode string `json:"failed_code,omitempty"`
	Error      string `json:"error,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// Runner runs generated tests with Playwright. Its zero value reads the
// environment.
type Runner struct {
	Project string // GASOLINE_PLAYWRIGHT when "", else the project From is in
	// From is where the project with @playwright/test is looked for when
	// neither Project nor GASOLINE_PLAYWRIGHT names one: the first folder
	// of From, in order, then of the daemon's working directory, that is or
	// is under a folder whose node_modules holds @playwright/test. The
	// agent's project folders (mcp.Projects) belong here.
	From    []string
	Browser string // GASOLINE_PLAYWRIGHT_BROWSER when ""
	// Dir is where the run's temporary directory is made ("" for the system's).
	Dir string
}

// cli returns the path of @playwright/test's cli.js and its node_modules.
func (r Runner) cli() (cli, modules string, err error) {
	p := r.Project
	if p == "" {
		p = os.Getenv(EnvPlaywright)
	}
	if p == "" {
		wd, _ := os.Getwd()
		var searched []string
		for _, from := range append(slices.Clip(r.From), wd) {
			if from == "" || slices.Contains(searched, from) {
				continue
			}
			searched = append(searched, from)
			if p = projectWithPlaywright(from); p != "" {
				break
			}
		}
		if p == "" {
			return "", "", fmt.Errorf("%w: no node_modules/@playwright/test in %s or a parent folder; "+
				"install it in the project (npm i -D @playwright/test) and retry, or set %s to a folder that has it and restart the daemon",
				ErrNoRunner, strings.Join(searched, ", "), EnvPlaywright)
		}
	}
	if strings.HasSuffix(p, ".js") {
		// …/node_modules/@playwright/test/cli.js
		return p, filepath.Dir(filepath.Dir(filepath.Dir(p))), nil
	}
	modules = filepath.Join(p, "node_modules")
	cli = filepath.Join(modules, "@playwright", "test", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		return "", "", fmt.Errorf("%w: %s has no %s; install it there (npm i -D @playwright/test) or fix %s", ErrNoRunner, p, cli, EnvPlaywright)
	}
	return cli, modules, nil
}

// projectWithPlaywright is from, or its nearest parent, whose
// node_modules holds @playwright/test; "" for none.
func projectWithPlaywright(from string) string {
	for dir := from; dir != ""; {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@playwright", "test", "cli.js")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return ""
}

func (r Runner) browser() string {
	if r.Browser != "" {
		return r.Browser
	}
	if b := os.Getenv(EnvBrowser); b != "" {
		return b
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	return ""
}

// Verify runs res's file once, headless, within ctx (the caller bounds
// it), with env added to the test's environment (the secrets). It returns
// ErrNoRunner when no Playwright is set up.
func (r Runner) Verify(ctx context.Context, res Result, env []string) (Verdict, error) {
	cli, modules, err := r.cli()
	if err != nil {
		return Verdict{}, err
	}
	if _, err := exec.LookPath("node"); err != nil {
		return Verdict{}, fmt.Errorf("%w: node is not on the daemon's PATH", ErrNoRunner)
	}
	dir, err := os.MkdirTemp(r.Dir, "gasoline-test-")
	if err != nil {
		return Verdict{}, fmt.Errorf("making the test's directory: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		return Verdict{}, fmt.Errorf("linking node_modules: %w", err)
	}
	launch := launchOptions(r.browser(), os.Geteuid() == 0)
	config := "import { defineConfig } from '@playwright/test';\n" +
		"export default defineConfig({ testDir: '.', retries: 0, workers: 1, timeout: 30000, " +
		"expect: { timeout: 5000 }, use: { headless: true, " + launch + "actionTimeout: 5000, navigationTimeout: 10000 } });\n"
	for name, body := range map[string]string{"playwright.config.ts": config, "recorded.spec.ts": res.File} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			return Verdict{}, fmt.Errorf("writing %s: %w", name, err)
		}
	}
	cmd := exec.CommandContext(ctx, "node", cli, "test", "--config", filepath.Join(dir, "playwright.config.ts"), "--reporter=json")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1", "FORCE_COLOR=0"), env...)
	cmd.WaitDelay = 2 * time.Second
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	start := time.Now()
	runErr := cmd.Run()
	v := Verdict{DurationMS: time.Since(start).Milliseconds()}
	if ctx.Err() != nil {
		return v, fmt.Errorf("the test ran past its time limit (%d ms): %w", v.DurationMS, ctx.Err())
	}
	failed, ok := parseReport(out.Bytes())
	if !ok {
		return v, fmt.Errorf("playwright gave no report (%v): %s", runErr, clip(strings.TrimSpace(stderr.String()+" "+out.String()), 600))
	}
	if failed == nil {
		v.Passed = true
		return v, nil
	}
	v.Error = clip(ansi.ReplaceAllString(failed.msg, ""), 600)
	v.FailedLine = failed.line
	if lines := strings.Split(res.File, "\n"); failed.line > 0 && failed.line <= len(lines) {
		v.FailedCode = strings.TrimSpace(lines[failed.line-1])
	}
	return v, nil
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

type failure struct {
	msg  string
	line int
}

// report is the part of Playwright's JSON reporter output Verify reads.
type report struct {
	Suites []suite `json:"suites"`
	Errors []struct {
		Message string `json:"message"`
	} `json:"errors"`
}

type suite struct {
	Suites []suite `json:"suites"`
	Specs  []struct {
		OK    bool `json:"ok"`
		Tests []struct {
			Results []struct {
				Status string `json:"status"`
				Errors []struct {
					Message  string `json:"message"`
					Location *struct {
						File string `json:"file"`
						Line int    `json:"line"`
					} `json:"location"`
				} `json:"errors"`
			} `json:"results"`
		} `json:"tests"`
	} `json:"specs"`
}

// parseReport finds the first failure in a JSON report: nil when every
// test passed; ok false when b is no report or holds no test.
func parseReport(b []byte) (f *failure, ok bool) {
	var r report
	if i := bytes.IndexByte(b, '{'); i < 0 || json.Unmarshal(b[i:], &r) != nil {
		return nil, false
	}
	if len(r.Errors) > 0 {
		return &failure{msg: r.Errors[0].Message}, true
	}
	ran := false
	var walk func(ss []suite) *failure
	walk = func(ss []suite) *failure {
		for _, s := range ss {
			for _, sp := range s.Specs {
				for _, t := range sp.Tests {
					for _, res := range t.Results {
						ran = true
						if res.Status == "passed" {
							continue
						}
						out := &failure{msg: "test " + res.Status}
						for _, e := range res.Errors {
							if e.Location != nil && strings.HasSuffix(e.Location.File, "recorded.spec.ts") {
								return &failure{msg: e.Message, line: e.Location.Line}
							}
							out.msg = e.Message
						}
						return out
					}
				}
			}
			if f := walk(s.Suites); f != nil {
				return f
			}
		}
		return nil
	}
	f = walk(r.Suites)
	return f, ran
}

// launchOptions is the config's launchOptions for browser (none for
// Playwright's own). Chromium refuses to start as root with its sandbox,
// so only then does it get --no-sandbox; as any other user the test runs
// sandboxed, as a browser should.
func launchOptions(browser string, root bool) string {
	if browser == "" {
		return ""
	}
	args := ""
	if root {
		args = ", args: ['--no-sandbox']"
	}
	return fmt.Sprintf("launchOptions: { executablePath: %s%s }, ", q(browser), args)
}
