// Command bundle writes the extension's content-script bundles
// (extension/dist/), the one place the extension is not plain, unbundled
// MV3 code: the content scripts the worker registers (capture/declared.json; those every frame of
// every page runs at document_start, and the DOM engine with the recorder, which the worker
// injects at DOMContentLoaded)
// are each entry's sources concatenated in order and minified with esbuild.
// A source written as an ES module (capture/main/full.js and lean.js, which
// import the MAIN-world capture's modules; capture/relay.js and record.js,
// the relay's and the recorder's; pristine.js and actions/dialogs.js) is
// bundled by esbuild with what it imports into one self-contained function
// first (bundleModule). The same makes the classic scripts the worker
// injects, or an extension page loads, from ES modules (Injected).
// Why: each of those bytes is parsed in every frame of every page the user
// visits, agent or no agent, and issue 18 budgets them (extension/test/
// budget.test.js), which the commented sources would exceed. Everything
// else (the worker, its modules, the classic scripts injected on an agent's
// first use) is loaded as written.
//
// The readable sources are the only code anyone edits (the node tests
// import them); the bundles are generated, committed, and checked by this
// package's test, which fails while they are stale. Regenerate them after
// changing a content script, from the repository root: make bundle (or, in
// scripts/bundle, its own module so that esbuild stays out of the product's
// dependencies: go run . or go test . -update).
//
// go run . -debug DIR writes a copy of the extension for profiling instead
// (pagebench -profile): see debugCopy.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// Bundle is one file capture/declared.json declares as a content script, made of
// Sources (paths under extension/, run in this order), in World (the
// declaration's "world": "MAIN" or "ISOLATED"). KeepNames lists the sources
// whose every function keeps its name (what .name says) as written (a
// module's with the modules it imports), at the cost of a call per function made: a MAIN-world source that hands the page a function (a
// wrapper of one of its built-ins) needs it unless it names that function
// as a method (capture/main/fetch.js writes {fetch(input, init) {...}}.fetch,
// whose name minifying keeps). Define replaces each of its names (a global
// name, or import.meta.NAME in a module) with its value (a JavaScript
// literal) in every source before minifying, which drops the branches the
// values make dead: under node, where the tests import the modules as
// written, import.meta.lean is undefined.
type Bundle struct {
	Out       string
	World     string
	KeepNames []string
	Define    map[string]string
	Sources   []string
}

// lean and full are the values of import.meta.lean in the bundles
// registered while no agent is at work (capture/declared.json "idle_js")
// and in the others (capture/main/lean.js and full.js). Both define it.
var (
	lean = map[string]string{"import.meta.lean": "true"}
	full = map[string]string{"import.meta.lean": "false"}
)

// Bundles are the content scripts capture/declared.json declares, in its order. A
// bundle holds one declared entry's files: the same world, run_at and
// frames, so running it is running them one after the other.
var Bundles = []Bundle{
	{Out: "dist/start-isolated.js", World: "ISOLATED", Sources: []string{"pristine-relay.js", "capture/relay.js", "actions/channel.js", "capture/tap.js"}},
	// One MAIN-world entry: each entry a frame runs costs it an injection
	// (about a millisecond per frame, measured by test/e2e/cmd/pagebench),
	// whatever it holds. dialogs.js needs no KeepNames: its wrappers are
	// methods ({alert(message) {...}}.alert), whose names minifying keeps
	// (the page reads alert.name), 241 bytes less than naming every function.
	{Out: "dist/start-main.js", World: "MAIN", Define: full, Sources: []string{"pristine.js", "capture/main/full.js", "actions/dialogs.js"}},
	{Out: "dist/end-isolated.js", World: "ISOLATED", Sources: []string{"dom/engine.js", "capture/record.js"}},
	// The idle registration's start bundles (every top document pays for
	// them while no agent works): without the agent-only parts. The
	// pristine built-ins, the dialog wrappers and their ISOLATED ends come
	// into such a document when an agent acts there (tabs/reach.js, from
	// declared.json's "agent_js"); the capture is lean (capture/main/lean.js).
	// capture/lean-dialogs.js and lean-tell.js tell the worker of a native
	// dialog such a page shows (kind and message) before it freezes it;
	// capture/ask.js asks for the recorder at the user's first input.
	{Out: "dist/start-isolated-idle.js", World: "ISOLATED", Sources: []string{"capture/relay.js", "capture/tap.js", "capture/ask.js", "capture/lean-tell.js"}},
	{Out: "dist/start-main-idle.js", World: "MAIN", Define: lean, Sources: []string{"capture/main/lean.js", "capture/lean-dialogs.js"}},
}

// Injected are the bundles no declaration registers: the worker injects
// them with chrome.scripting on an agent's first use of a document
// (actions/inject.js), or an extension page loads them. dist/runtime.js is
// the DOM runtime's ES modules (actions/runtime.js and runtime/) with what
// they import (the DOM engine, dom/engine.js and engine/; actions/core.js,
// changed.js, combobox.js and their folders), one file so that a document
// pays one script for all of them (it paid five before they were modules).
// The others are the classic scripts written as ES modules that are
// shipped alone: pristine.js and dialogs.js (the agent's MAIN-world parts a
// document loaded idle gets, capture/declared.json "agent_js"; execute_js
// also brings pristine.js, actions/execute.js and userscripts/execute.js),
// the draw-mode overlay (overlay/worker.js) and its note frame
// (overlay/note.html), and the performance collector (perf/worker.js).
var Injected = []Bundle{
	{Out: "dist/runtime.js", World: "ISOLATED", Sources: []string{"actions/runtime.js"}},
	{Out: "dist/pristine.js", World: "MAIN", Sources: []string{"pristine.js"}},
	{Out: "dist/dialogs.js", World: "MAIN", Sources: []string{"actions/dialogs.js"}},
	{Out: "dist/overlay.js", World: "ISOLATED", Sources: []string{"overlay/overlay.js"}},
	{Out: "dist/note.js", World: "ISOLATED", Sources: []string{"overlay/note.js"}},
	{Out: "dist/perf.js", World: "ISOLATED", Sources: []string{"perf/collect.js"}},
}

// sourceURL is a source's "//# sourceURL=name" comment, which names the
// script in stack traces (capture/main/full.js: it keeps Chrome from
// capturing a stack for every hooked console call).
var sourceURL = regexp.MustCompile(`(?m)^//# sourceURL=(\S+)\s*$`)

// minify returns src (a classic script) minified: white space and
// identifiers, and with all, syntax too (dropping the branches define
// makes dead); keepNames keeps every function's
// and class's name (what .name says) as written. esbuild renames only
// names local to a function, never a script's top-level names.
func minify(name, src string, all, keepNames bool, define map[string]string) (string, error) {
	res := api.Transform(src, api.TransformOptions{
		Define:            define,
		Sourcefile:        name,
		Loader:            api.LoaderJS,
		Engines:           []api.Engine{{Name: api.EngineChrome, Version: "120"}},
		MinifyWhitespace:  true,
		MinifySyntax:      all,
		MinifyIdentifiers: true,
		KeepNames:         keepNames,
		LegalComments:     api.LegalCommentsNone,
	})
	if len(res.Errors) > 0 {
		msgs := api.FormatMessages(res.Errors, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return "", fmt.Errorf("minifying %s: %s", name, strings.Join(msgs, "\n"))
	}
	return string(res.Code), nil
}

// topLevelNames reports whether the script src declares a name at its top
// level. Wrapped in a function, such a name becomes local and esbuild
// renames it, so the wrapped script's minified form is then not the
// script's own in the wrapper. (A one-letter top-level name that the
// renamer happens to give itself again goes unseen.)
func topLevelNames(name, src string) (bool, error) {
	bare, err := minify(name, src, false, false, nil)
	if err != nil {
		return false, err
	}
	wrapped, err := minify(name, "(()=>{"+src+"\n})();", false, false, nil)
	if err != nil {
		return false, err
	}
	return wrapped != "(()=>{"+strings.TrimSuffix(strings.TrimSuffix(bare, "\n"), ";")+"})();\n", nil
}

// Render returns the bundle b built from the sources under ext. Each
// source is minified on its own and runs in a try block of its own whose
// error is rethrown in a microtask: as with separate scripts, one source's
// failure is reported and the next source still runs. The last source
// needs no such block (nothing follows it, and its error is reported as
// it is thrown): it runs bare, which every page pays about 60 bytes less
// for. A source must declare nothing at its top level (the
// classic scripts here are each one IIFE that leaves only globalThis
// properties); Render refuses one that does, since the block would hide
// its names from the other scripts (or a var in it leak into them). At most one source may name the script
// with a sourceURL comment, which ends the bundle.
func Render(ext string, b Bundle) ([]byte, error) {
	var out strings.Builder
	fmt.Fprintf(&out, "// Code generated by make bundle from %s; DO NOT EDIT.\n", strings.Join(b.Sources, ", "))
	url := ""
	for i, s := range b.Sources {
		src, err := os.ReadFile(filepath.Join(ext, s))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", s, err)
		}
		if m := sourceURL.FindSubmatch(src); m != nil {
			if url != "" {
				return nil, fmt.Errorf("%s: %s and another source both name the script (sourceURL): keep one", b.Out, s)
			}
			url = string(m[1])
		}
		code, module, err := bundleModule(ext, s, b.Define, true, slices.Contains(b.KeepNames, s))
		if err != nil {
			return nil, err
		}
		if module {
			if i == len(b.Sources)-1 {
				fmt.Fprintf(&out, "%s\n", code)
			} else {
				fmt.Fprintf(&out, "try{%s}catch(e){queueMicrotask(()=>{throw e})}\n", code)
			}
			continue
		}
		code, err = minify(s, string(src), true, slices.Contains(b.KeepNames, s), b.Define)
		if err != nil {
			return nil, err
		}
		named, err := topLevelNames(s, string(src))
		if err != nil {
			return nil, err
		}
		if named {
			return nil, fmt.Errorf("%s declares a name at its top level: wrap the file in one (() => { ... })() and share through globalThis, so it can join %s", s, b.Out)
		}
		// Minifying may add names of its own at the top (KeepNames' helper,
		// var n=Object.defineProperty): such a source keeps a function of
		// its own, or the names would become the page's globals (a page
		// script's let n then fails to parse).
		helpers, err := topLevelNames(s, code)
		if err != nil {
			return nil, err
		}
		code = strings.TrimSuffix(strings.TrimSuffix(code, "\n"), ";")
		if helpers {
			code = "(()=>{" + code + "})()"
		}
		if i == len(b.Sources)-1 {
			fmt.Fprintf(&out, "%s\n", code)
		} else {
			fmt.Fprintf(&out, "try{%s}catch(e){queueMicrotask(()=>{throw e})}\n", code)
		}
	}
	if url != "" {
		fmt.Fprintf(&out, "//# sourceURL=%s\n", url)
	}
	return []byte(out.String()), nil
}

// bundleModule returns the source s under ext bundled with the modules it
// imports into one self-contained, strict function (an IIFE; minified with
// all), and true, when s is an ES module (it imports or exports); else "",
// false, and s is a classic script that Render minifies as it is. The
// function declares nothing outside itself (esbuild's IIFE format without
// a global name) and, written with named imports only, holds no helper of
// esbuild's but, with keepNames, the one that names functions (inside the
// function, where the page cannot see it). Modules are strict; so is the
// function, which says so (esbuild leaves the directive out).
func bundleModule(ext, s string, define map[string]string, all, keepNames bool) (string, bool, error) {
	entry, err := filepath.Abs(filepath.Join(ext, s))
	if err != nil {
		return "", false, err
	}
	res := api.Build(api.BuildOptions{
		EntryPoints:       []string{entry},
		Bundle:            true,
		Format:            api.FormatIIFE,
		Metafile:          true,
		Write:             false,
		Define:            define,
		Engines:           []api.Engine{{Name: api.EngineChrome, Version: "120"}},
		MinifyWhitespace:  all,
		MinifySyntax:      all,
		MinifyIdentifiers: all,
		KeepNames:         keepNames,
		LegalComments:     api.LegalCommentsNone,
		LogLevel:          api.LogLevelSilent,
	})
	if msgs := append(res.Errors, res.Warnings...); len(msgs) > 0 {
		text := api.FormatMessages(msgs, api.FormatMessagesOptions{Kind: api.ErrorMessage})
		return "", false, fmt.Errorf("bundling %s: %s", s, strings.Join(text, "\n"))
	}
	var meta struct {
		Inputs map[string]struct {
			Format string `json:"format"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(res.Metafile), &meta); err != nil {
		return "", false, fmt.Errorf("bundling %s: reading esbuild's metafile: %w", s, err)
	}
	esm := false
	for _, in := range meta.Inputs {
		esm = esm || in.Format == "esm"
	}
	if !esm {
		return "", false, nil
	}
	if len(res.OutputFiles) != 1 {
		return "", false, fmt.Errorf("bundling %s: esbuild wrote %d files, want 1", s, len(res.OutputFiles))
	}
	code := strings.TrimSuffix(strings.TrimSuffix(string(res.OutputFiles[0].Contents), "\n"), ";")
	open, strict := "(()=>{", `"use strict";`
	if !all {
		open, strict = "(() => {\n", "  \"use strict\";\n"
	}
	if !strings.HasPrefix(code, open) {
		return "", false, fmt.Errorf("bundling %s: esbuild's output does not start with %q", s, open)
	}
	return open + strict + code[len(open):], true, nil
}

// write renders every bundle (Bundles and Injected) into ext.
func write(ext string) error {
	for _, b := range append(slices.Clone(Bundles), Injected...) {
		got, err := Render(ext, b)
		if err != nil {
			return err
		}
		path := filepath.Join(ext, b.Out)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return nil
}

func main() {
	ext := flag.String("ext", filepath.Join("..", "..", "extension"), "the extension's directory (the default is the repository's, seen from scripts/bundle, where make bundle runs this)")
	debug := flag.String("debug", "", "instead of writing the bundles, copy the extension into this new directory with a capture/declared.json that declares each bundle's sources, unminified, each its own script (for profiling: pagebench -profile)")
	flag.Parse()
	var err error
	if *debug != "" {
		err = debugCopy(*ext, *debug, Bundles)
	} else {
		err = write(*ext)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bundle:", err)
		os.Exit(1)
	}
}
