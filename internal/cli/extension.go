package cli

import (
	"fmt"
	"io"

	"github.com/gasoline-mcp/gasoline/internal/extdir"
	"github.com/gasoline-mcp/gasoline/internal/version"
	"github.com/spf13/cobra"
)

func newExtensionCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "extension",
		Short: "Write the browser extension this gasoline carries to a folder Chrome can load",
		Args:  cobra.NoArgs,
	}
	install := &cobra.Command{
		Use:   "install",
		Short: "Write the extension to <state dir>/extension (again after an update) and say how to load it",
		Long: "install writes the extension this binary carries to the folder 'extension' of the state\n" +
			"directory, replacing what it held as a whole. The folder stays where it is across updates and\n" +
			"the manifest keeps its key, so Chrome keeps the same extension id and pairing: after an update,\n" +
			"run it again and press reload on gasoline's card in chrome://extensions.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, dir, err := g.resolve()
			if err != nil {
				return err
			}
			res, err := extdir.Install(dir, version.Version)
			if err != nil {
				return fmt.Errorf("installing the extension: %w", err)
			}
			printInstalled(cmd.OutOrStdout(), res)
			return nil
		},
	}
	path := &cobra.Command{
		Use:   "path",
		Short: "Print the extension folder ('gasoline extension install' writes it)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, dir, err := g.resolve()
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), extdir.Dir(dir))
			if _, ok := extdir.Installed(dir); !ok {
				fmt.Fprintln(cmd.ErrOrStderr(), "(not written yet: run 'gasoline extension install')")
			}
			return nil
		},
	}
	cmd.AddCommand(install, path)
	return cmd
}

func printInstalled(out io.Writer, res extdir.Result) {
	switch {
	case res.Previous == (extdir.Stamp{}):
		fmt.Fprintf(out, "Wrote the gasoline extension (%s) to %s\n\n", res.Now.Version, res.Dir)
		fmt.Fprint(out, loadSteps(res.Dir))
	case res.Changed:
		fmt.Fprintf(out, "Updated the gasoline extension in %s (%s, was %s).\n", res.Dir, res.Now.Version, res.Previous.Version)
		fmt.Fprintln(out, "Press the reload button on gasoline's card in chrome://extensions: Chrome keeps running the old one until then.")
		fmt.Fprintln(out, "If gasoline is not loaded in Chrome yet:")
		fmt.Fprint(out, loadSteps(res.Dir))
	default:
		fmt.Fprintf(out, "The extension in %s is already this gasoline's (%s): nothing to reload.\n", res.Dir, res.Now.Version)
		fmt.Fprintln(out, "If gasoline is not loaded in Chrome yet:")
		fmt.Fprint(out, loadSteps(res.Dir))
	}
}

// loadSteps are the three steps that load the extension from dir.
func loadSteps(dir string) string {
	return "  1. Open chrome://extensions and turn on Developer mode.\n" +
		"  2. Click Load unpacked and choose " + dir + "\n" +
		"  3. Run 'gasoline pair' and type the code into the extension's popup (its icon may hide under the puzzle piece).\n"
}

// loadHint is the one-line form of the load steps, for doctor's fixes: the
// folder when this state dir has one, else the command that writes it.
func loadHint(stateDir string) string {
	if _, ok := extdir.Installed(stateDir); ok {
		return "load the extension (chrome://extensions → Developer mode → Load unpacked → " + extdir.Dir(stateDir) + ")"
	}
	return "run 'gasoline extension install' and load the folder it prints (chrome://extensions → Developer mode → Load unpacked)"
}
