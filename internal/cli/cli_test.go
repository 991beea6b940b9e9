package cli

import (
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/version"
)

func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, errOut := runCLI(t, args...)
		if code != 0 || out != "gasoline "+version.Version+"\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want \"gasoline %s\"", args, code, out, errOut, version.Version)
		}
	}
}

// TestCompletion checks cobra's completion scripts for each shell and that
// they complete the client names of 'gasoline config'.
func TestCompletion(t *testing.T) {
	for shell, marker := range map[string]string{
		"bash":       "complete -o default -F __start_gasoline gasoline",
		"zsh":        "#compdef gasoline",
		"fish":       "complete -c gasoline",
		"powershell": "Register-ArgumentCompleter",
	} {
		code, out, errOut := runCLI(t, "completion", shell)
		if code != 0 || !strings.Contains(out, marker) {
			t.Errorf("completion %s: exit %d, stderr %q; output lacks %q", shell, code, errOut, marker)
		}
	}
	_, out, _ := runCLI(t, "__complete", "config", "")
	for _, name := range agentClientNames() {
		if !strings.Contains(out, name+"\n") {
			t.Errorf("completing 'gasoline config' does not offer %s:\n%s", name, out)
		}
	}
}
