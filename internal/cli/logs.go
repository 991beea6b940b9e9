package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
)

// correlationField is the log field naming the command a line is about.
const correlationField = "correlation_id"

// followPoll is how often 'logs -f' looks for new lines.
const followPoll = 200 * time.Millisecond

type logsFlags struct {
	follow bool
	lines  int
	id     string
	raw    bool
}

func newLogsCmd(g *globals) *cobra.Command {
	f := &logsFlags{}
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "Show the daemon log, one readable line per event, correlation id first (-f follows it)",
		Long: "logs prints the end of the daemon's log (daemon.log in the state dir) one line per event:\n" +
			"time, level, the command's correlation id when the event is about one, the message and\n" +
			"its fields. -f keeps printing new lines until interrupted; --id shows one command's lines.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, dir, err := g.resolve()
			if err != nil {
				return err
			}
			path := state.Dir{Path: dir}.File(state.LogFile)
			out := cmd.OutOrStdout()
			p := newLogPrinter(out, f)
			return showLog(cmd.Context(), path, p, f)
		},
	}
	cmd.Flags().BoolVarP(&f.follow, "follow", "f", false, "keep printing lines as the daemon writes them")
	cmd.Flags().IntVarP(&f.lines, "lines", "n", 50, "print this many lines from the end first (0: the whole log)")
	cmd.Flags().StringVar(&f.id, "id", "", "only lines about this correlation id")
	cmd.Flags().BoolVar(&f.raw, "json", false, "print the JSON lines as they are")
	return cmd
}

// logPrinter renders daemon.log lines.
type logPrinter struct {
	out     io.Writer
	pretty  zerolog.ConsoleWriter
	raw     bool
	idMatch string // `"correlation_id":"<id>"`, or "" for every line
}

func newLogPrinter(out io.Writer, f *logsFlags) *logPrinter {
	noColor := true
	if file, ok := out.(*os.File); ok {
		noColor = !isTerminal(file)
	}
	p := &logPrinter{out: out, raw: f.raw}
	if f.id != "" {
		p.idMatch = `"` + correlationField + `":"` + f.id + `"`
	}
	p.pretty = zerolog.ConsoleWriter{
		Out:           out,
		NoColor:       noColor,
		TimeFormat:    time.DateTime,
		PartsOrder:    []string{zerolog.TimestampFieldName, zerolog.LevelFieldName, correlationField, zerolog.MessageFieldName},
		FieldsExclude: []string{correlationField},
		FormatPartValueByName: func(v any, name string) string {
			s, _ := v.(string)
			if s == "" || noColor || os.Getenv("NO_COLOR") != "" {
				return s
			}
			return "\x1b[36m" + s + "\x1b[0m" // cyan, to spot one command's lines
		},
	}
	return p
}

// wants reports whether line passes the --id filter.
func (p *logPrinter) wants(line string) bool {
	return p.idMatch == "" || strings.Contains(line, p.idMatch)
}

// print writes one log line. Lines that are not zerolog JSON (a panic, an
// early error the daemon printed before its logger existed) pass as they
// are.
func (p *logPrinter) print(line string) {
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return
	}
	if !p.raw && strings.HasPrefix(line, "{") {
		if _, err := p.pretty.Write([]byte(line)); err == nil {
			return
		}
	}
	fmt.Fprintln(p.out, line)
}

// showLog prints the last f.lines wanted lines of path, then, with
// f.follow, every new line until ctx ends. A log that is truncated or
// replaced while followed is read again from its start.
func showLog(ctx context.Context, path string, p *logPrinter, f *logsFlags) error {
	file, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) && f.follow {
		fmt.Fprintf(p.out, "(waiting for %s: the daemon creates it when it starts)\n", path)
		if file, err = waitForFile(ctx, path); err != nil {
			return nil // interrupted: not an error for a follower
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no daemon log at %s yet: the daemon writes it once started ('gasoline daemon start'); check --state-dir", path)
	} else if err != nil {
		return fmt.Errorf("opening the daemon log: %w", err)
	}
	defer func() { file.Close() }()

	r := bufio.NewReader(file)
	tail := newRing(f.lines)
	var partial string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			partial = line // an unfinished last line: wait for its end
			break
		}
		if p.wants(line) {
			tail.add(line)
		}
	}
	for _, line := range tail.lines() {
		p.print(line)
	}
	if f.id != "" && len(tail.lines()) == 0 && (partial == "" || !p.wants(partial)) {
		if !f.follow {
			return fmt.Errorf("no line of %s mentions %s; check the id (interact returns it as correlation_id), or the daemon may have been restarted with another state dir (--state-dir)", path, f.id)
		}
		fmt.Fprintf(p.out, "(no line about %s yet; waiting for one)\n", f.id)
	}
	if !f.follow {
		if partial != "" && p.wants(partial) {
			p.print(partial)
		}
		return nil
	}

	offset, _ := file.Seek(0, io.SeekCurrent)
	offset -= int64(r.Buffered())
	ticker := time.NewTicker(followPoll)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
		for {
			line, err := r.ReadString('\n')
			partial += line
			offset += int64(len(line))
			if err != nil {
				break
			}
			if p.wants(partial) {
				p.print(partial)
			}
			partial = ""
		}
		if restarted(file, path, offset) {
			file.Close()
			nf, err := os.Open(path)
			if err != nil {
				continue // between a rename and the new file: try again
			}
			fmt.Fprintf(p.out, "(%s was truncated or replaced; reading it from the start)\n", path)
			file, r, offset, partial = nf, bufio.NewReader(nf), 0, ""
		}
	}
}

// restarted reports whether the file at path is no longer the one open
// (replaced) or is shorter than what was read (truncated).
func restarted(open *os.File, path string, read int64) bool {
	now, err := os.Stat(path)
	if err != nil {
		return false
	}
	was, err := open.Stat()
	if err != nil {
		return true
	}
	return !os.SameFile(now, was) || now.Size() < read
}

func waitForFile(ctx context.Context, path string) (*os.File, error) {
	ticker := time.NewTicker(followPoll)
	defer ticker.Stop()
	for {
		if f, err := os.Open(path); err == nil {
			return f, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ticker.C:
		}
	}
}

// ring keeps the last n lines added (every line when n is 0).
type ring struct {
	n   int
	buf []string
}

func newRing(n int) *ring { return &ring{n: n} }

func (r *ring) add(s string) {
	r.buf = append(r.buf, s)
	if r.n > 0 && len(r.buf) > 2*r.n {
		r.buf = append(r.buf[:0], r.buf[len(r.buf)-r.n:]...)
	}
}

func (r *ring) lines() []string {
	if r.n > 0 && len(r.buf) > r.n {
		return r.buf[len(r.buf)-r.n:]
	}
	return r.buf
}
