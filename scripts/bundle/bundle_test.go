package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite extension/dist/ from the sources")

const ext = "../../extension"

// TestBundles keeps extension/dist/ generated from the sources: run
// make bundle (or go test . -update here) after changing a content script,
// and commit the result.
func TestBundles(t *testing.T) {
	if *update {
		if err := write(ext); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, b := range append(slices.Clone(Bundles), Injected...) {
		got, err := Render(ext, b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(ext, b.Out))
		if err != nil {
			t.Fatalf("reading %s: %v (run make bundle to create it)", b.Out, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("extension/%s is stale: its sources (%s) changed; run make bundle and commit it", b.Out, strings.Join(b.Sources, ", "))
		}
	}
}

// TestDeclaredBundles checks the worker registers the bundles
// (capture/declared.json), each entry one bundle of its world in each mode
// (js at work, idle_js idle), every bundle registered, and no source on its
// own: Chrome loads what is registered, so a source added there directly
// would run twice or unminified. The files an entry brings late (agent_js,
// tabs/reach.js) are sources of its at-work bundle that its idle bundle
// lacks: a document loaded idle gets them when an agent acts there, and
// nothing in it runs twice.
func TestDeclaredBundles(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(ext, Declared))
	if err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		ID      string   `json:"id"`
		JS      []string `json:"js"`
		IdleJS  []string `json:"idle_js"`
		AgentJS []string `json:"agent_js"`
		World   string   `json:"world"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatal(err)
	}
	bundles := map[string]Bundle{}
	for _, b := range Bundles {
		bundles[b.Out] = b
	}
	injected := map[string]Bundle{}
	for _, b := range Injected {
		injected[b.Out] = b
	}
	registered := map[string]bool{}
	for _, e := range entries {
		world := e.World
		if world == "" {
			world = "ISOLATED"
		}
		idle := e.IdleJS
		if idle == nil {
			idle = e.JS
		}
		for _, js := range [][]string{e.JS, idle} {
			b, ok := bundles[firstOf(js)]
			if len(js) != 1 || !ok || b.World != world {
				t.Errorf("%s %s declares %v in %s, want one bundle of scripts/bundle's Bundles made for %s", Declared, e.ID, js, world, world)
				continue
			}
			registered[b.Out] = true
		}
		if len(e.AgentJS) > 0 {
			full, lean := bundles[firstOf(e.JS)], bundles[firstOf(idle)]
			for _, f := range e.AgentJS {
				// A source written as ES modules comes late as its own
				// bundle (Injected), made of the same source.
				sources, keep := []string{f}, []string(nil)
				if b, ok := injected[f]; ok {
					if b.World != world {
						t.Errorf("%s %s brings %s late in %s, made for %s", Declared, e.ID, f, world, b.World)
					}
					sources, keep = b.Sources, b.KeepNames
				}
				for _, s := range sources {
					if !slices.Contains(full.Sources, s) || slices.Contains(lean.Sources, s) {
						t.Errorf("%s %s brings %s late (agent_js): want a source of %s that %s lacks", Declared, e.ID, s, full.Out, lean.Out)
					}
					if slices.Contains(keep, s) != slices.Contains(full.KeepNames, s) {
						t.Errorf("%s %s brings %s late (agent_js): it keeps its names in %s but not in %s, or the other way", Declared, e.ID, s, f, full.Out)
					}
				}
			}
		}
	}
	for _, b := range Bundles {
		if !registered[b.Out] {
			t.Errorf("%s is made but %s registers it in no mode", b.Out, Declared)
		}
	}
}

// firstOf is js's first file, or "".
func firstOf(js []string) string {
	if len(js) == 0 {
		return ""
	}
	return js[0]
}

// TestLeanBundle checks what the idle start-main bundle leaves out, and
// that the at-work one keeps it; and that both read bodies (the idle one
// those of failed requests only: capture/main/network.js).
func TestLeanBundle(t *testing.T) {
	read := func(out string) string {
		b, err := os.ReadFile(filepath.Join(ext, out))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	idle, work := read("dist/start-main-idle.js"), read("dist/start-main.js")
	for _, part := range []string{".WebSocket", "PerformanceObserver", "layout-shift", "import.meta"} {
		if strings.Contains(idle, part) {
			t.Errorf("dist/start-main-idle.js holds %q: the lean capture leaves it out", part)
		}
	}
	for _, part := range []string{"WebSocket", "getReader", "layout-shift"} {
		if !strings.Contains(work, part) {
			t.Errorf("dist/start-main.js lacks %q", part)
		}
	}
	for _, part := range []string{"getReader", "status>=400"} {
		if !strings.Contains(idle, part) {
			t.Errorf("dist/start-main-idle.js lacks %q: a lean page keeps the bodies of failed requests", part)
		}
	}
	for out, b := range map[string]string{"dist/start-main-idle.js": idle, "dist/start-main.js": work} {
		if !strings.Contains(b, `(()=>{"use strict";`) {
			t.Errorf("%s: the capture's modules are not bundled into one strict function (capture/main/*.js are strict as modules)", out)
		}
		// esbuild's helpers (__defProp, __export: a namespace import or
		// export * needs them) call the page's built-ins, possibly replaced.
		for _, helper := range []string{"__defProp", "__export", "__esm", "__commonJS", "__toESM", "__publicField"} {
			if strings.Contains(b, helper) {
				t.Errorf("%s holds esbuild's helper %s: import the capture's modules by name only", out, helper)
			}
		}
	}
	if !strings.Contains(idle, "lean=!0") || strings.Contains(work, "lean=!0") {
		t.Errorf("only the lean bundle marks its records lean: true")
	}
}

func TestRender(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.js":       "// a\n(() => {\n  const longName = 1;\n  globalThis.a = longName;\n})();\n",
		"b.js":       "(function named(g) {\n  g.b = 2;\n})(globalThis);\n//# sourceURL=b-script.js\n",
		"top.js":     "const shared = 1;\n",
		"fn.js":      "function shared() {}\n",
		"other.js":   "(() => {})();\n//# sourceURL=other.js\n",
		"bad.js":     "(() => {\n",
		"alert.js":   "(() => {\n  window.alert = function alert(message) { return message; };\n})();\n",
		"m/dep.js":   "export const twice = (x) => x * 2;\nexport function unused() { return import.meta.flag; }\n",
		"m/entry.js": "import { twice } from './dep.js';\nglobalThis.m = import.meta.flag ? twice(1) : 0;\n//# sourceURL=m.js\n",
		"m/alert.js": "export function install() {\n  window.alert = function alert(message) { return message; };\n}\n",
		"m/named.js": "import { install } from './alert.js';\ninstall();\n",
	}
	for name, src := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mod, err := Render(dir, Bundle{Out: "x.js", Define: map[string]string{"import.meta.flag": "true"}, Sources: []string{"a.js", "m/entry.js"}})
	if err != nil {
		t.Fatal(err)
	}
	wantMod := `// Code generated by make bundle from a.js, m/entry.js; DO NOT EDIT.
try{globalThis.a=1}catch(e){queueMicrotask(()=>{throw e})}
(()=>{"use strict";var t=o=>o*2;globalThis.m=t(1);})()
//# sourceURL=m.js
`
	named, err := Render(dir, Bundle{Out: "x.js", KeepNames: []string{"m/named.js"}, Sources: []string{"a.js", "m/named.js"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(named), `"alert"`) || !strings.Contains(string(named), "\n(()=>{\"use strict\";") {
		t.Errorf("a module in KeepNames keeps its functions' names, with esbuild's helper inside its own function:\n%s", named)
	}
	if _, err := Render(dir, Bundle{Out: "x.js", Sources: []string{"m/entry.js"}}); err == nil || !strings.Contains(err.Error(), "import.meta") {
		t.Errorf("Render of a module reading import.meta.flag without its Define: error = %v, want a refusal (esbuild leaves import.meta empty in an IIFE)", err)
	}
	if string(mod) != wantMod {
		t.Errorf("Render(a.js, the module m/entry.js) =\n%s\nwant its imports bundled in, what it does not use left out, strict:\n%s", mod, wantMod)
	}
	got, err := Render(dir, Bundle{Out: "x.js", Sources: []string{"a.js", "b.js"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `// Code generated by make bundle from a.js, b.js; DO NOT EDIT.
try{globalThis.a=1}catch(e){queueMicrotask(()=>{throw e})}
(function(n){n.b=2})(globalThis)
//# sourceURL=b-script.js
`
	if string(got) != want {
		t.Errorf("Render(a.js, b.js) =\n%s\nwant\n%s", got, want)
	}
	for _, c := range []struct {
		sources []string
		want    string
	}{
		{[]string{"a.js", "top.js"}, "top.js declares a name at its top level"},
		{[]string{"fn.js"}, "fn.js declares a name at its top level"},
		{[]string{"b.js", "other.js"}, "both name the script"},
		{[]string{"bad.js"}, "bundling bad.js"},
		{[]string{"missing.js"}, "reading missing.js"},
	} {
		_, err := Render(dir, Bundle{Out: "x.js", Sources: c.sources})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Render(%v) error = %v, want it to say %q", c.sources, err, c.want)
		}
	}
	kept, err := Render(dir, Bundle{Out: "x.js", KeepNames: []string{"alert.js"}, Sources: []string{"alert.js"}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(kept, []byte(`"alert"`)) {
		t.Errorf("with KeepNames the wrapper keeps its name alert:\n%s", kept)
	}
	if !bytes.Contains(kept, []byte("\n(()=>{")) {
		t.Errorf("with KeepNames the source (its last, else bare) keeps a function of its own for esbuild's name helper, which would be the page's global:\n%s", kept)
	}
}

// declared lists the files each entry of the extension in dir declares
// (capture/declared.json): its js, then its idle_js when it has one.
func declared(t *testing.T, dir string) [][]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, Declared))
	if err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		JS     []string `json:"js"`
		IdleJS []string `json:"idle_js"`
	}
	if err := json.Unmarshal(raw, &entries); err != nil {
		t.Fatalf("%s/%s: %v", dir, Declared, err)
	}
	var out [][]string
	for _, e := range entries {
		out = append(out, e.JS)
		if e.IdleJS != nil {
			out = append(out, e.IdleJS)
		}
	}
	return out
}

func TestDebugCopy(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{
		Declared:    `[{"id": "x", "matches": ["<all_urls>"], "js": ["dist/x.js", "keep.js"], "world": "MAIN"}, {"id": "y", "js": ["dist/y.js"]}]`,
		"a.js":      "(() => {})();\n",
		"sub/b.js":  "(() => {})();\n",
		"keep.js":   "(() => {})();\n",
		"dist/x.js": "minified",
	}
	for name, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bundles := []Bundle{{Out: "dist/x.js", Sources: []string{"a.js", "sub/b.js"}}, {Out: "dist/y.js", Sources: []string{"keep.js"}}}
	dir := filepath.Join(t.TempDir(), "copy")
	if err := debugCopy(src, dir, bundles); err != nil {
		t.Fatal(err)
	}
	got := declared(t, dir)
	want := [][]string{{"a.js", "sub/b.js", "keep.js"}, {"keep.js"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("the copy declares %v, want %v", got, want)
	}
	raw, err := os.ReadFile(filepath.Join(dir, Declared))
	if err != nil {
		t.Fatal(err)
	}
	for _, kept := range []string{`"<all_urls>"`, `"world": "MAIN"`, `"id": "x"`} {
		if !bytes.Contains(raw, []byte(kept)) {
			t.Errorf("the copy's %s lost %s:\n%s", Declared, kept, raw)
		}
	}
	for name, body := range files {
		if name == Declared {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != body {
			t.Errorf("the copy's %s = %q, %v; want %q", name, b, err, body)
		}
	}
	if err := debugCopy(src, dir, bundles); err == nil || !strings.Contains(err.Error(), "does not exist yet") {
		t.Errorf("debugCopy into an existing directory: error = %v, want a refusal", err)
	}
	other := filepath.Join(t.TempDir(), "copy")
	if err := debugCopy(src, other, []Bundle{{Out: "dist/z.js"}}); err == nil || !strings.Contains(err.Error(), "declares none of the bundles") {
		t.Errorf("debugCopy with bundles the declaration lacks: error = %v, want a refusal", err)
	}
}

// TestDebugCopyOfExtension checks the real extension's debug copy declares
// readable sources only, and that each is there.
func TestDebugCopyOfExtension(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "extension")
	if err := debugCopy(ext, dir, Bundles); err != nil {
		t.Fatal(err)
	}
	leanMain := 0
	for i, js := range declared(t, dir) {
		for _, f := range js {
			if strings.HasPrefix(f, "dist/") {
				t.Errorf("the debug copy's declared[%d] still declares the bundle %s", i, f)
			}
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Errorf("the debug copy's declared[%d] declares %s: %v", i, f, err)
			}
			if strings.HasSuffix(f, "capture/main/lean.js") && bytes.Contains(b, []byte("rec.lean = true;")) && !bytes.Contains(b, []byte("import.meta")) {
				leanMain++
				if !bytes.HasSuffix(b, []byte("//# sourceURL=gasoline-capture.js\n")) {
					t.Errorf("the debug copy's lean %s lost its sourceURL", f)
				}
			}
		}
	}
	if leanMain != 1 {
		t.Errorf("the debug copy declares capture/main/lean.js bundled and lean %d times, want once (idle_js)", leanMain)
	}
}
