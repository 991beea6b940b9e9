package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/test/e2e/internal/gasoline"
)

var (
	changedOnly = flag.Bool("changed-only", false, "measure only what effects.changed costs (issue 28 item 6): its size and the actions' time on a TodoMVC page, a list that grows by 200 rows and Python's docs")
	pyDocs      = flag.String("pydocs", "/usr/share/doc/python3-dev/html", "Python's HTML documentation (Debian's python3-dev-doc or python3-doc); the docs rows are left out when it is missing")
)

// changedStep is one action of a changed round: its name and arguments.
type changedStep struct {
	name string
	args map[string]any
}

// changedRows runs the TodoMVC round (add an item, complete it, delete it),
// the list round (200 rows appended, a table added at once, a disclosure)
// and the Python docs round (open the menu, type in the quick search,
// hide an example's prompts) *n times each after *warmup, and returns per action its
// time and, as the figure's text, the size of effects.changed (p50 and
// max characters, estimated tokens at 4 characters a token) and a sample.
func changedRows(ctx context.Context, mc *gasoline.Client) ([]truthRow, error) {
	root, err := gasoline.RepoRoot()
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /todo", func(w http.ResponseWriter, r *http.Request) {
		// TodoMVC's vanilla app, as test/e2e's TestEffectsChanged serves it.
		http.ServeFile(w, r, filepath.Join(root, "test", "e2e", "testdata", "changed", "todo.html"))
	})
	mux.HandleFunc("GET /rows", func(w http.ResponseWriter, r *http.Request) {
		// A list that grows by 200 rows, as test/e2e's TestEffectsChangedRest serves it.
		http.ServeFile(w, r, filepath.Join(root, "test", "e2e", "testdata", "changed", "rows.html"))
	})
	docs := false
	if st, err := os.Stat(*pyDocs); err == nil && st.IsDir() {
		docs = true
		mux.Handle("GET /py/", http.StripPrefix("/py/", http.FileServer(http.Dir(*pyDocs))))
	}
	site := httptest.NewServer(mux)
	defer site.Close()

	rounds := []struct {
		page  string
		steps []changedStep
	}{{"/todo", []changedStep{
		{"TodoMVC fill the new todo", map[string]any{"action": "fill", "role": "textbox", "name": "What needs to be done?", "text": "Buy milk"}},
		{"TodoMVC key_press Enter (adds the item)", map[string]any{"action": "key_press", "key": "Enter", "role": "textbox", "name": "What needs to be done?"}},
		{"TodoMVC check the item", map[string]any{"action": "check", "role": "checkbox", "name": "Toggle"}},
		{"TodoMVC click Delete", map[string]any{"action": "click", "role": "button", "name": "Delete"}},
	}}, {"/rows", []changedStep{
		{"a list: click Load 200 rows (200 rows appended, Export enabled; the rest by handle)", map[string]any{"action": "click", "role": "button", "name": "Load 200 rows"}},
		{"a list: click Show report (a table of 100 rows added at once)", map[string]any{"action": "click", "role": "button", "name": "Show report"}},
		{"a list: click Filters (a disclosure button expands, its panel shows)", map[string]any{"action": "click", "role": "button", "name": "Filters"}},
	}}}
	if docs {
		rounds = append(rounds, struct {
			page  string
			steps []changedStep
		}{"/py/library/functions.html", []changedStep{
			{"Python docs (library/functions.html, 290 KB) click the menu button (headless's narrow window shows the mobile layout)", map[string]any{"action": "click", "selector": "label.toggler__label"}},
			{"Python docs fill the quick search", map[string]any{"action": "fill", "role": "textbox", "name": "Quick search", "text": "zip"}},
			{"Python docs click enumerate's example's >>> (hides the prompts)", map[string]any{"action": "click", "selector": "dt#enumerate + dd .copybutton"}},
		}})
	} else {
		logf("no Python docs at %s: their rows are left out", *pyDocs)
	}
	var rows []truthRow
	for _, round := range rounds {
		times := make([][]time.Duration, len(round.steps))
		sizes := make([][]time.Duration, len(round.steps)) // characters, kept as Durations for pct
		sample := make([]string, len(round.steps))
		for i := range *warmup + *n {
			if r, err := mc.Call(ctx, "interact", map[string]any{"action": "navigate", "url": site.URL + round.page, "wait_ms": 20000}); err != nil || r.Status != "complete" {
				return nil, fmt.Errorf("navigate to %s: %s %v", round.page, r, err)
			}
			for j, st := range round.steps {
				args := map[string]any{"wait_ms": 10000}
				for k, v := range st.args {
					args[k] = v
				}
				start := time.Now()
				r, err := mc.Call(ctx, "interact", args)
				took := time.Since(start)
				if err != nil || r.Status != "complete" {
					return nil, fmt.Errorf("%s: %s %v", st.name, r, err)
				}
				var v struct {
					Effects struct {
						Changed json.RawMessage `json:"changed"`
					} `json:"effects"`
				}
				json.Unmarshal(r.Value, &v)
				if i >= *warmup {
					times[j] = append(times[j], took)
					sizes[j] = append(sizes[j], time.Duration(len(v.Effects.Changed)))
					sample[j] = string(v.Effects.Changed)
				}
			}
		}
		for j, st := range round.steps {
			p50, top := int(pct(sizes[j], 50)), int(pct(sizes[j], 100))
			fig := fmt.Sprintf("real headless Chromium: %s; effects.changed %d chars p50 (about %d tokens), %d max, e.g. `%s` (n=%d)",
				st.name, p50, (p50+3)/4, top, strings.ReplaceAll(sample[j], "|", "\\|"), *n)
			rows = append(rows, truthRow{fig, "changed ≤ 60 tokens", times[j]})
		}
	}
	return rows, nil
}
