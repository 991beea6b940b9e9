package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeBridge makes an executable standing for gasoline-mcp and returns its
// absolute path.
func fakeBridge(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "bin dir", bridgeBinary()) // a space, to test quoting
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// isolate points HOME and the working directory at fresh directories and
// clears the gasoline environment, so nothing of the machine's leaks in.
func isolate(t *testing.T) (home, cwd string) {
	t.Helper()
	home, cwd = t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("GASOLINE_PORT", "")
	t.Setenv("GASOLINE_STATE_DIR", "")
	t.Setenv("PATH", t.TempDir()) // no claude CLI unless a test adds one
	t.Chdir(cwd)
	return home, cwd
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	return v
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func backups(t *testing.T, path string) []string {
	t.Helper()
	m, _ := filepath.Glob(path + ".backup-*")
	return m
}

// TestConfigPrintsSnippets checks every client's printed snippet names the
// absolute bridge path in that client's format and file.
func TestConfigPrintsSnippets(t *testing.T) {
	home, cwd := isolate(t)
	bridge := fakeBridge(t)
	tests := []struct {
		client string
		file   string
		want   []string
	}{
		{"claude", filepath.Join(home, ".claude.json"), []string{"claude mcp add --scope user gasoline -- '" + bridge + "'", `"mcpServers"`, `"type": "stdio"`}},
		{"cursor", filepath.Join(home, ".cursor", "mcp.json"), []string{`"mcpServers"`, `"command": "` + bridge + `"`}},
		{"vscode", filepath.Join(cwd, ".vscode", "mcp.json"), []string{`"servers"`, `"type": "stdio"`, `"command": "` + bridge + `"`}},
		{"codex", filepath.Join(home, ".codex", "config.toml"), []string{"[mcp_servers.gasoline]", `command = "` + bridge + `"`, "tool_timeout_sec = 70"}},
		{"windsurf", filepath.Join(home, ".codeium", "windsurf", "mcp_config.json"), []string{`"mcpServers"`, `"command": "` + bridge + `"`}},
		{"gemini", filepath.Join(home, ".gemini", "settings.json"), []string{`"mcpServers"`, `"command": "` + bridge + `"`}},
	}
	for _, tc := range tests {
		t.Run(tc.client, func(t *testing.T) {
			code, out, errOut := runCLI(t, "config", tc.client, "--bridge", bridge)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, w := range append(tc.want, tc.file, "--install") {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "GASOLINE_") {
				t.Errorf("default port and state dir need no environment:\n%s", out)
			}
			if _, err := os.Stat(tc.file); err == nil {
				t.Errorf("printing wrote %s", tc.file)
			}
		})
	}
	if len(agentClients) != len(tests) {
		t.Errorf("%d clients, %d tested", len(agentClients), len(tests))
	}
}

// TestConfigEnvironment: a non-default port and state dir reach the
// client as environment variables.
func TestConfigEnvironment(t *testing.T) {
	isolate(t)
	bridge := fakeBridge(t)
	dir := filepath.Join(t.TempDir(), "state")
	_, out, _ := runCLI(t, "config", "cursor", "--bridge", bridge, "--port", "7999", "--state-dir", dir)
	if !strings.Contains(out, `"GASOLINE_PORT": "7999"`) || !strings.Contains(out, `"GASOLINE_STATE_DIR": "`+dir+`"`) {
		t.Errorf("cursor snippet lacks the environment:\n%s", out)
	}
	if want := "--port 7999 --state-dir " + dir + " --install'"; !strings.Contains(out, want) {
		t.Errorf("the --install hint drops the flags: want %q in\n%s", want, out)
	}
	_, out, _ = runCLI(t, "config", "vscode", "--bridge", bridge, "--file", filepath.Join(dir, "x.json"))
	if strings.Contains(out, "workspace file of the current directory") {
		t.Errorf("with --file, the note still speaks of the current directory:\n%s", out)
	}
	_, out, _ = runCLI(t, "config", "codex", "--bridge", bridge, "--port", "7999")
	if !strings.Contains(out, `env = { GASOLINE_PORT = "7999" }`) {
		t.Errorf("codex snippet lacks the environment:\n%s", out)
	}
	_, out, _ = runCLI(t, "config", "claude", "--bridge", bridge, "--port", "7999")
	if !strings.Contains(out, "claude mcp add-json --scope user gasoline '{") || !strings.Contains(out, `"GASOLINE_PORT":"7999"`) {
		t.Errorf("claude command lacks the environment:\n%s", out)
	}
}

// TestConfigInstallJSON installs into existing JSON files of every JSON
// client: other keys and servers stay, in order; a backup holds the old
// content; a second install changes nothing.
func TestConfigInstallJSON(t *testing.T) {
	isolate(t)
	bridge := fakeBridge(t)
	for _, c := range agentClients {
		if c.toml {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "conf.json")
			old := "{\n    \"theme\": \"dark\",\n    \"" + c.jsonKey + "\": {\n        \"other\": {\"command\": \"/usr/bin/other\", \"args\": [\"-x\"]},\n        \"gasoline\": {\"command\": \"/old/gasoline-mcp\"}\n    },\n    \"zzz\": [1, 2]\n}\n"
			os.WriteFile(file, []byte(old), 0o600)

			code, out, errOut := runCLI(t, "config", c.name, "--install", "--file", file, "--bridge", bridge)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			got, _ := os.ReadFile(file)
			v := readJSON(t, file)
			if dig(v, "theme") != "dark" || dig(v, c.jsonKey, "other", "command") != "/usr/bin/other" || len(dig(v, "zzz").([]any)) != 2 {
				t.Errorf("other content lost:\n%s", got)
			}
			if dig(v, c.jsonKey, "gasoline", "command") != bridge {
				t.Errorf("gasoline entry not updated to %s:\n%s", bridge, got)
			}
			wantType := any(nil)
			if c.name == "claude" || c.name == "vscode" {
				wantType = "stdio"
			}
			if dig(v, c.jsonKey, "gasoline", "type") != wantType {
				t.Errorf("type = %v, want %v", dig(v, c.jsonKey, "gasoline", "type"), wantType)
			}
			s := string(got)
			if !(strings.Index(s, `"theme"`) < strings.Index(s, `"`+c.jsonKey+`"`) && strings.Index(s, `"`+c.jsonKey+`"`) < strings.Index(s, `"zzz"`)) ||
				!(strings.Index(s, `"other"`) < strings.Index(s, `"gasoline"`)) {
				t.Errorf("key order changed:\n%s", s)
			}
			if !strings.Contains(s, "\n    \"theme\"") {
				t.Errorf("the file's 4-space indentation was not kept:\n%s", s)
			}
			if fi, _ := os.Stat(file); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %o, want the file's 0600 kept", fi.Mode().Perm())
			}
			bs := backups(t, file)
			if len(bs) != 1 {
				t.Fatalf("backups %v, want one", bs)
			}
			if b, _ := os.ReadFile(bs[0]); string(b) != old {
				t.Errorf("backup holds %q, want the old content", b)
			}
			if !strings.Contains(out, bs[0]) {
				t.Errorf("output does not name the backup %s:\n%s", bs[0], out)
			}

			code, out, _ = runCLI(t, "config", c.name, "--install", "--file", file, "--bridge", bridge)
			if code != 0 || !strings.Contains(out, "nothing changed") || len(backups(t, file)) != 1 {
				t.Errorf("second install: exit %d, %d backups, output %q; want no change and no new backup", code, len(backups(t, file)), out)
			}
		})
	}
}

// TestConfigInstallDefaultLocations creates each client's usual file when
// there is none (no backup then).
func TestConfigInstallDefaultLocations(t *testing.T) {
	home, cwd := isolate(t)
	bridge := fakeBridge(t)
	for _, tc := range []struct{ client, file, key string }{
		{"claude", filepath.Join(home, ".claude.json"), "mcpServers"},
		{"cursor", filepath.Join(home, ".cursor", "mcp.json"), "mcpServers"},
		{"vscode", filepath.Join(cwd, ".vscode", "mcp.json"), "servers"},
		{"windsurf", filepath.Join(home, ".codeium", "windsurf", "mcp_config.json"), "mcpServers"},
		{"gemini", filepath.Join(home, ".gemini", "settings.json"), "mcpServers"},
	} {
		code, _, errOut := runCLI(t, "config", tc.client, "--install", "--bridge", bridge)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.client, code, errOut)
		}
		if got := dig(readJSON(t, tc.file), tc.key, "gasoline", "command"); got != bridge {
			t.Errorf("%s: %s has command %v, want %s", tc.client, tc.file, got, bridge)
		}
		if b := backups(t, tc.file); len(b) != 0 {
			t.Errorf("%s: backups %v of a file that did not exist", tc.client, b)
		}
	}
	code, _, errOut := runCLI(t, "config", "codex", "--install", "--bridge", bridge)
	b, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	if code != 0 || !strings.HasPrefix(string(b), "[mcp_servers.gasoline]\n") {
		t.Errorf("codex: exit %d (%s), config.toml:\n%s", code, errOut, b)
	}
}

// TestConfigInstallRefusesJSONC leaves a file with comments alone and says
// what to add by hand.
func TestConfigInstallRefusesJSONC(t *testing.T) {
	isolate(t)
	bridge := fakeBridge(t)
	file := filepath.Join(t.TempDir(), "mcp.json")
	old := "{\n  // my servers\n  \"servers\": {}\n}\n"
	os.WriteFile(file, []byte(old), 0o644)
	code, _, errOut := runCLI(t, "config", "vscode", "--install", "--file", file, "--bridge", bridge)
	if code == 0 || !strings.Contains(errOut, "not plain JSON") || !strings.Contains(errOut, bridge) {
		t.Errorf("exit %d, stderr %q; want a refusal naming the problem and the snippet", code, errOut)
	}
	if b, _ := os.ReadFile(file); string(b) != old || len(backups(t, file)) != 0 {
		t.Errorf("the file was touched: %q, backups %v", b, backups(t, file))
	}
}

// TestConfigInstallCodex replaces gasoline's table and its sub-table in a
// config.toml, keeping comments, settings and other servers.
func TestConfigInstallCodex(t *testing.T) {
	isolate(t)
	bridge := fakeBridge(t)
	file := filepath.Join(t.TempDir(), "config.toml")
	old := `# my codex settings
model = "o4"

[mcp_servers.other]
command = "other"   # keep me

[mcp_servers.gasoline]
command = "/old/gasoline-mcp"

[mcp_servers.gasoline.env]
GASOLINE_PORT = "1234"

[profiles.fast]
model = "o4-mini"
`
	os.WriteFile(file, []byte(old), 0o644)
	code, _, errOut := runCLI(t, "config", "codex", "--install", "--file", file, "--bridge", bridge)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(file)
	want := `# my codex settings
model = "o4"

[mcp_servers.other]
command = "other"   # keep me

[mcp_servers.gasoline]
command = "` + bridge + `"
tool_timeout_sec = 70

[profiles.fast]
model = "o4-mini"
`
	if string(b) != want {
		t.Errorf("config.toml:\n%s\nwant:\n%s", b, want)
	}
	if bs := backups(t, file); len(bs) != 1 {
		t.Errorf("backups %v, want one", bs)
	}
	code, out, _ := runCLI(t, "config", "codex", "--install", "--file", file, "--bridge", bridge)
	if code != 0 || !strings.Contains(out, "nothing changed") {
		t.Errorf("second install: exit %d, %q", code, out)
	}

	// Appended to a file without gasoline; a dotted-key definition is
	// refused rather than duplicated.
	os.WriteFile(file, []byte("model = \"o4\""), 0o644)
	runCLI(t, "config", "codex", "--install", "--file", file, "--bridge", bridge)
	if b, _ := os.ReadFile(file); !strings.HasPrefix(string(b), "model = \"o4\"\n\n[mcp_servers.gasoline]\n") {
		t.Errorf("appended:\n%s", b)
	}
	os.WriteFile(file, []byte("mcp_servers.gasoline.command = \"x\"\n"), 0o644)
	if code, _, errOut := runCLI(t, "config", "codex", "--install", "--file", file, "--bridge", bridge); code == 0 || !strings.Contains(errOut, "by hand") {
		t.Errorf("dotted keys: exit %d, %q; want a refusal", code, errOut)
	}
}

// TestConfigInstallClaudeCLI uses the claude CLI when it is on PATH: the
// old user-scope entry removed, the new one added.
func TestConfigInstallClaudeCLI(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake claude is a shell script")
	}
	home, _ := isolate(t)
	bridge := fakeBridge(t)
	bin := t.TempDir()
	record := filepath.Join(t.TempDir(), "calls")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s|' \"$a\" >> '" + record + "'; done\necho >> '" + record + "'\n"
	os.WriteFile(filepath.Join(bin, "claude"), []byte(script), 0o755)
	t.Setenv("PATH", bin)

	code, out, errOut := runCLI(t, "config", "claude", "--install", "--bridge", bridge)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	calls, _ := os.ReadFile(record)
	want := "mcp|remove|--scope|user|gasoline|\nmcp|add|--scope|user|gasoline|--|" + bridge + "|\n"
	if string(calls) != want {
		t.Errorf("claude calls:\n%s\nwant:\n%s", calls, want)
	}
	if !strings.Contains(out, "Ran: claude mcp add") {
		t.Errorf("output does not say what ran: %q", out)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); err == nil {
		t.Error("~/.claude.json was written although the claude CLI did it")
	}
}

func TestConfigErrors(t *testing.T) {
	isolate(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "notepad"}, "choose one of claude, cursor"},
		{[]string{"config", "--install"}, "needs a client"},
		{[]string{"config", "cursor", "--bridge", "/nonexistent/gasoline-mcp"}, "make build"},
		{[]string{"config", "cursor"}, "is not next to"}, // the test binary has no gasoline-mcp beside it
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error containing %q", tc.args, code, errOut, tc.want)
		}
	}
	code, out, _ := runCLI(t, "config")
	if code != 0 || !strings.Contains(out, "gasoline config windsurf") {
		t.Errorf("config without a client: exit %d, %q; want the list", code, out)
	}
}

// TestConfigFromNPM: a gasoline started by the npm package's launcher
// configures clients to start the bridge through npx, so that updating the
// package needs no new config.
func TestConfigFromNPM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("on Windows the command is cmd /c npx, as clients start no shell")
	}
	t.Setenv(EnvNPMPackage, "gasoline-browser-mcp")
	dir := filepath.Join(t.TempDir(), "state")
	for _, tc := range []struct{ client, want string }{
		{"cursor", `"command": "npx",` + "\n" + `      "args": [` + "\n" + `        "-y",` + "\n" + `        "gasoline-browser-mcp"`},
		{"codex", `command = "npx"` + "\n" + `args = ["-y", "gasoline-browser-mcp"]`},
		{"claude", `claude mcp add-json --scope user gasoline '{"type":"stdio","command":"npx","args":["-y","gasoline-browser-mcp"]`},
	} {
		t.Run(tc.client, func(t *testing.T) {
			code, out, errOut := runCLI(t, "config", tc.client, "--state-dir", dir)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(out, tc.want) {
				t.Errorf("got:\n%s\nwant it to contain:\n%s", out, tc.want)
			}
		})
	}
	t.Run("--bridge wins", func(t *testing.T) {
		bridge := filepath.Join(t.TempDir(), bridgeBinary())
		os.WriteFile(bridge, []byte("x"), 0o755)
		_, out, _ := runCLI(t, "config", "cursor", "--state-dir", dir, "--bridge", bridge)
		if strings.Contains(out, "npx") || !strings.Contains(out, bridge) {
			t.Errorf("got:\n%s\nwant the --bridge path, no npx", out)
		}
	})
	t.Run("a hostile package name is ignored", func(t *testing.T) {
		t.Setenv(EnvNPMPackage, "x; rm -rf ~")
		if _, ok := npmPackage(); ok {
			t.Error("accepted a package name with a shell command")
		}
	})
}
