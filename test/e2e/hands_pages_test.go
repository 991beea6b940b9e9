//go:build unix

package e2e

import (
	"fmt"
	"net/http"
	"strings"
)

// handsPages serves the fixture pages of the hands tests from testdata:
// /hands/ (plain pages) and /react/ (a React 18 app; its node_modules come
// from "npm ci" there, which make e2e runs).
func handsPages() http.Handler {
	files := http.FileServer(http.Dir("testdata"))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Path == "/hands/big.html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte(bigPage(600)))
			return
		}
		files.ServeHTTP(w, r)
	})
}

// bigPage is a page of n links in a list, each in a paragraph of text: an
// outline far over the default budget.
func bigPage(n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Big</title></head><body><h1>Big</h1><ul id="list">`)
	for i := range n {
		fmt.Fprintf(&b, `<li><a href="/hands/item/%d">Item %d</a> <span>some words about item %d</span></li>`, i, i, i)
	}
	b.WriteString(`</ul></body></html>`)
	return b.String()
}
