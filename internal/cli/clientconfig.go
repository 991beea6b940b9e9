package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// serverName is the name gasoline is registered under in every client.
const serverName = "gasoline"

// bridgeBinary is the file name of the stdio bridge agents launch.
func bridgeBinary() string {
	if runtime.GOOS == "windows" {
		return "gasoline-mcp.exe"
	}
	return "gasoline-mcp"
}

// launch is what every client must be told: the bridge to launch and the
// environment it needs (nil when the defaults apply).
type launch struct {
	Command string
	Args    []string
	Env     map[string]string
}

// commandLine is the command and its arguments as a shell would take them.
func (s launch) commandLine() string { return shellJoin(append([]string{s.Command}, s.Args...)) }

// agentClient is one MCP client gasoline can be configured in. Exactly one
// of jsonKey and toml is set.
type agentClient struct {
	name  string // the argument of 'gasoline config'
	title string
	// file is the config file --install writes, given the home and working
	// directories.
	file func(home, cwd string) string
	// jsonKey is the top-level object of a JSON config file that maps server
	// names to servers; entry is the server's value in it.
	jsonKey string
	entry   func(launch) any
	// toml marks Codex's config.toml and its [mcp_servers.<name>] table.
	toml bool
	// note is printed after the snippet: anything the user must still do.
	note string
	// fileNote replaces note when --file names the file; "" keeps note.
	fileNote string
}

// noteFor is the note printed for c when the config file is fileFlag.
func (c agentClient) noteFor(fileFlag string) string {
	if fileFlag != "" && c.fileNote != "" {
		return c.fileNote
	}
	return c.note
}

// stdioEntry is a server entry in the JSON config files.
type stdioEntry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

func plainEntry(s launch) any { return stdioEntry{Command: s.Command, Args: s.Args, Env: s.Env} }
func typedEntry(s launch) any {
	return stdioEntry{Type: "stdio", Command: s.Command, Args: s.Args, Env: s.Env}
}

// agentClients are the supported clients, in the order 'gasoline config'
// lists them. Their file locations and formats are those each client's own
// documentation gives.
var agentClients = []agentClient{
	{
		name: "claude", title: "Claude Code",
		file:    func(home, _ string) string { return filepath.Join(home, ".claude.json") },
		jsonKey: "mcpServers", entry: typedEntry,
		note: "Start a new Claude Code session; /mcp lists gasoline.",
	},
	{
		name: "cursor", title: "Cursor",
		file:    func(home, _ string) string { return filepath.Join(home, ".cursor", "mcp.json") },
		jsonKey: "mcpServers", entry: plainEntry,
		note: "Cursor lists it under Customize → MCPs (switch it on if it is off; restart Cursor if it does not appear).",
	},
	{
		name: "vscode", title: "VS Code",
		file:    func(_, cwd string) string { return filepath.Join(cwd, ".vscode", "mcp.json") },
		jsonKey: "servers", entry: typedEntry,
		note:     "This is the workspace file of the current directory; for every workspace, run 'MCP: Open User Configuration' in VS Code and add the same entry, or pass --file.",
		fileNote: "VS Code reads this file when it is a workspace's .vscode/mcp.json or its user configuration ('MCP: Open User Configuration').",
	},
	{
		name: "codex", title: "Codex",
		file: func(home, _ string) string { return filepath.Join(home, ".codex", "config.toml") },
		toml: true,
		note: "tool_timeout_sec leaves room for observe's longest wait (55 s) plus the bridge's margin.",
	},
	{
		name: "windsurf", title: "Windsurf",
		file:    func(home, _ string) string { return filepath.Join(home, ".codeium", "windsurf", "mcp_config.json") },
		jsonKey: "mcpServers", entry: plainEntry,
		note: "Press Refresh in Windsurf's MCP panel (Cascade → MCP servers).",
	},
	{
		name: "gemini", title: "Gemini CLI",
		file:    func(home, _ string) string { return filepath.Join(home, ".gemini", "settings.json") },
		jsonKey: "mcpServers", entry: plainEntry,
		note: "Start a new gemini session; /mcp lists gasoline.",
	},
}

func findAgentClient(name string) (agentClient, bool) {
	for _, c := range agentClients {
		if c.name == name {
			return c, true
		}
	}
	return agentClient{}, false
}

func agentClientNames() []string {
	names := make([]string, len(agentClients))
	for i, c := range agentClients {
		names[i] = c.name
	}
	return names
}

type configFlags struct {
	install bool
	file    string
	bridge  string
}

func newConfigCmd(g *globals) *cobra.Command {
	f := &configFlags{}
	names := agentClientNames()
	cmd := &cobra.Command{
		Use:   "config [" + strings.Join(names, "|") + "]",
		Short: "Print (or --install) the configuration that connects an agent to gasoline",
		Long: "config prints the exact snippet that makes an MCP client launch gasoline-mcp, with the\n" +
			"absolute path of the gasoline-mcp next to this gasoline. With --install it writes the\n" +
			"snippet into the client's config file, keeping everything else in the file and saving\n" +
			"a backup of it first. Without a client it lists them.",
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: names,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				if f.install {
					return fmt.Errorf("--install needs a client: gasoline config <%s> --install", strings.Join(names, "|"))
				}
				return listAgentClients(cmd.OutOrStdout())
			}
			c, ok := findAgentClient(args[0])
			if !ok {
				return fmt.Errorf("unknown client %q; choose one of %s", args[0], strings.Join(names, ", "))
			}
			s, err := f.launch(g)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if !f.install {
				return printAgentConfig(out, c, s, f.file, installHint(cmd, c))
			}
			return installAgentConfig(out, c, s, f.file)
		},
	}
	cmd.Flags().BoolVar(&f.install, "install", false, "write the configuration into the client's config file (a backup of the file is kept)")
	cmd.Flags().StringVar(&f.file, "file", "", "config file to use instead of the client's usual one")
	cmd.Flags().StringVar(&f.bridge, "bridge", "", "gasoline-mcp to configure (default: the one next to this gasoline)")
	return cmd
}

func listAgentClients(out io.Writer) error {
	fmt.Fprintf(out, "Connect an agent to gasoline with one of:\n\n")
	self := invokedAs()
	for _, c := range agentClients {
		fmt.Fprintf(out, "  %s config %-9s # %s\n", self, c.name, c.title)
	}
	fmt.Fprintf(out, "\nEach prints the snippet for that client; add --install to write it into the client's config file.\n")
	return nil
}

// invokedAs is how the user ran gasoline when that was a relative path
// (bin/gasoline after 'make build'), so printed commands work as typed;
// otherwise plain "gasoline".
func invokedAs() string {
	if a := os.Args[0]; strings.ContainsRune(a, filepath.Separator) && !filepath.IsAbs(a) {
		return a
	}
	return "gasoline"
}

// launch resolves the bridge path and the environment the client must give
// it: the port and state dir, when they are not the defaults.
func (f *configFlags) launch(g *globals) (launch, error) {
	port, dir, err := g.resolve()
	if err != nil {
		return launch{}, err
	}
	s, err := f.command()
	if err != nil {
		return launch{}, err
	}
	if port != config.DefaultPort {
		s.Env = map[string]string{config.EnvPort: fmt.Sprint(port)}
	}
	if home, err := os.UserHomeDir(); err != nil || dir != filepath.Join(home, ".gasoline") {
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[config.EnvStateDir] = dir
	}
	return s, nil
}

// command is how the client starts the bridge: --bridge, else npx when this
// gasoline runs from the npm package (so an update of the package reaches
// the client without a new config), else the gasoline-mcp beside it.
func (f *configFlags) command() (launch, error) {
	if pkg, ok := npmPackage(); ok && f.bridge == "" {
		if runtime.GOOS == "windows" {
			// Clients start commands without a shell, and npx is a .cmd.
			return launch{Command: "cmd", Args: []string{"/c", "npx", "-y", pkg}}, nil
		}
		return launch{Command: "npx", Args: []string{"-y", pkg}}, nil
	}
	bridge := f.bridge
	if bridge == "" {
		var err error
		if bridge, err = bridgeNextToSelf(); err != nil {
			return launch{}, err
		}
	}
	bridge, err := filepath.Abs(bridge)
	if err != nil {
		return launch{}, err
	}
	if fi, err := os.Stat(bridge); err != nil || fi.IsDir() {
		return launch{}, fmt.Errorf("%s is not the gasoline-mcp executable (build it with 'make build', or pass --bridge)", bridge)
	}
	return launch{Command: bridge}, nil
}

// EnvNPMPackage names the npm package whose launcher started this gasoline;
// the launcher sets it.
const EnvNPMPackage = "GASOLINE_NPM_PACKAGE"

// npmPackage is the npm package this gasoline runs from, if any.
func npmPackage() (string, bool) {
	pkg := os.Getenv(EnvNPMPackage)
	if pkg == "" || len(pkg) > 214 {
		return "", false
	}
	for _, r := range pkg {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("@/._-", r)) {
			return "", false
		}
	}
	return pkg, true
}

// bridgeNextToSelf finds gasoline-mcp beside the running gasoline, also
// when gasoline was started through a symlink.
func bridgeNextToSelf() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding this gasoline executable: %w", err)
	}
	dirs := []string{filepath.Dir(exe)}
	if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != dirs[0] {
		dirs = append(dirs, filepath.Dir(real))
	}
	for _, dir := range dirs {
		p := filepath.Join(dir, bridgeBinary())
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not next to %s; build both with 'make build' (they land in bin/), or pass --bridge /path/to/%s",
		bridgeBinary(), exe, bridgeBinary())
}

// configFile is where --install writes for c, --file winning.
func configFile(c agentClient, override string) (string, error) {
	if override != "" {
		return filepath.Abs(override)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the home directory (pass --file): %w", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the working directory (pass --file): %w", err)
	}
	return c.file(home, cwd), nil
}

// snippet is the text to add to c's config file.
func snippet(c agentClient, s launch) (string, error) {
	if c.toml {
		return codexTable(s), nil
	}
	entry, err := marshalEntry(c.entry(s))
	if err != nil {
		return "", err
	}
	doc := newObject()
	servers := newObject()
	servers.set(serverName, entry)
	sb, err := servers.marshal()
	if err != nil {
		return "", err
	}
	doc.set(c.jsonKey, sb)
	return doc.indent("  ")
}

// claudeCommand is the claude CLI invocation that registers s for every
// project (user scope). With an environment it uses add-json: the -e flag
// of 'claude mcp add' takes several values and would swallow the name.
func claudeCommand(s launch) ([]string, error) {
	if len(s.Env) == 0 {
		return append([]string{"claude", "mcp", "add", "--scope", "user", serverName, "--", s.Command}, s.Args...), nil
	}
	entry, err := marshalEntry(typedEntry(s))
	if err != nil {
		return nil, err
	}
	return []string{"claude", "mcp", "add-json", "--scope", "user", serverName, string(entry)}, nil
}

// installHint is the command that installs what config printed: the same
// command line with --install, so that --port, --state-dir, --file and
// --bridge carry over.
func installHint(cmd *cobra.Command, c agentClient) string {
	argv := []string{invokedAs(), "config", c.name}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		argv = append(argv, "--"+f.Name, f.Value.String())
	})
	cmd.InheritedFlags().Visit(func(f *pflag.Flag) {
		argv = append(argv, "--"+f.Name, f.Value.String())
	})
	return shellJoin(append(argv, "--install"))
}

func printAgentConfig(out io.Writer, c agentClient, s launch, fileFlag, hint string) error {
	path, err := configFile(c, fileFlag)
	if err != nil {
		return err
	}
	text, err := snippet(c, s)
	if err != nil {
		return err
	}
	if c.name == "claude" && fileFlag == "" {
		argv, err := claudeCommand(s)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "Claude Code: run\n\n  %s\n\nor add this to %s (user scope, every project):\n\n%s\n", shellJoin(argv), path, text)
	} else {
		fmt.Fprintf(out, "%s: add this to %s\n\n%s\n", c.title, path, text)
	}
	fmt.Fprintf(out, "%s\n'%s' does it for you and keeps a backup of the file.\n", c.noteFor(fileFlag), hint)
	return nil
}

func installAgentConfig(out io.Writer, c agentClient, s launch, fileFlag string) error {
	if c.name == "claude" && fileFlag == "" {
		if claude, err := exec.LookPath("claude"); err == nil {
			return installWithClaudeCLI(out, claude, s)
		}
	}
	path, err := configFile(c, fileFlag)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	var updated []byte
	var changed bool
	if c.toml {
		var text string
		text, changed, err = mergeCodexTable(string(old), codexTable(s))
		updated = []byte(text)
	} else {
		var entry []byte
		if entry, err = marshalEntry(c.entry(s)); err == nil {
			updated, changed, err = mergeJSONServer(old, c.jsonKey, entry)
		}
	}
	if err != nil {
		text, _ := snippet(c, s)
		return fmt.Errorf("%s: %w\nnothing was written; add this by hand:\n\n%s", path, err, text)
	}
	if !changed {
		fmt.Fprintf(out, "%s already launches %s with %s; nothing changed.\n", path, serverName, s.commandLine())
		return nil
	}
	if existed {
		backup, err := backupFile(path, old)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "Saved the previous %s as %s\n", path, backup)
	}
	if err := writeFileAtomic(path, updated); err != nil {
		return err
	}
	fmt.Fprintf(out, "Wrote %s to %s: it launches %s\n%s\n", serverName, path, s.commandLine(), c.noteFor(fileFlag))
	return nil
}

// installWithClaudeCLI registers s through the claude CLI, which owns
// ~/.claude.json: writing that file while Claude Code runs could lose
// either side's change. An existing user-scope entry is replaced.
func installWithClaudeCLI(out io.Writer, claude string, s launch) error {
	argv, err := claudeCommand(s)
	if err != nil {
		return err
	}
	// Absent is fine: remove only clears the way for add.
	_ = exec.Command(claude, "mcp", "remove", "--scope", "user", serverName).Run()
	cmd := exec.Command(claude, argv[1:]...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("running %s: %w\n%s", shellJoin(argv), err, strings.TrimSpace(buf.String()))
	}
	fmt.Fprintf(out, "Ran: %s\n%s", shellJoin(argv), buf.String())
	return nil
}

// backupFile copies the previous content of path beside it, named with the
// time, and returns the copy's path.
func backupFile(path string, old []byte) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("backing up %s: %w", path, err)
	}
	backup := path + ".backup-" + time.Now().Format("20060102-150405")
	for i := 2; ; i++ {
		if _, err := os.Lstat(backup); errors.Is(err, fs.ErrNotExist) {
			break
		}
		backup = fmt.Sprintf("%s.backup-%s-%d", path, time.Now().Format("20060102-150405"), i)
	}
	if err := os.WriteFile(backup, old, fi.Mode().Perm()); err != nil {
		return "", fmt.Errorf("backing up %s: %w", path, err)
	}
	return backup, nil
}

// writeFileAtomic replaces path with data through a temporary file in the
// same directory, keeping the old file's permissions (0644 for a new one):
// a reader never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// shellJoin quotes argv for a POSIX shell, leaving plain words bare.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// sortedKeys returns m's keys in order, so generated files are stable.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
