// Package extension carries the browser extension's files inside the
// gasoline binary, so that 'gasoline extension install' can write the
// extension to a stable folder for Chrome's "Load unpacked" without a clone
// of the repository.
package extension

import "embed"

// dist/ holds the content-script bundles, generated from their sources by
// scripts/bundle (a module of its own, so esbuild is no dependency of the
// product): go generate ./... or make generate rewrites them with the
// repository's other generated files, last (internal/tools/generate.go),
// since some of their sources are generated too; the Firefox build
// (firefox.go) is written after them, from the fresh bundles, into
// build/firefox/ (not committed).

// Files is the extension as Chrome loads it: the manifest and everything it
// and its pages reach. The tests, README.md and this Go file are left out.
// A test fails when a top-level entry of this folder is neither listed here
// nor left out on purpose (embed_test.go).
//
//go:embed manifest.json *.js *.html *.css actions audit capture dist dom har icons origins overlay perf pristine tabs userscripts
var Files embed.FS
