//go:build unix

package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// docPages are the python3-doc pages of the issue 18 measurement, relative
// to the docs' html directory.
var docPages = []string{"index.html", "library/stdtypes.html", "library/json.html", "glossary.html"}

// maxFrames bounds the iframe page the site generates.
const maxFrames = 200

// findDocs returns dir if set, else the first /usr/share/doc/python3*/html
// directory that holds every page of pages.
func findDocs(dir string, pages []string) (string, error) {
	var dirs []string
	if dir != "" {
		dirs = []string{dir}
	} else {
		// python3's and python3-doc's html are symlinks to the versioned one.
		dirs = []string{"/usr/share/doc/python3/html", "/usr/share/doc/python3-doc/html"}
		more, _ := filepath.Glob("/usr/share/doc/python3*/html")
		dirs = append(dirs, more...)
	}
	var missing string
	for _, d := range dirs {
		ok := true
		for _, p := range pages {
			if _, err := os.Stat(filepath.Join(d, filepath.FromSlash(p))); err != nil {
				ok, missing = false, filepath.Join(d, filepath.FromSlash(p))
				break
			}
		}
		if ok {
			return d, nil
		}
	}
	if dir != "" {
		return "", fmt.Errorf("-docs %s lacks %s: pass the html directory of Python's docs "+
			"('apt-get install -y python3-doc' puts it in /usr/share/doc/python3/html)", dir, missing)
	}
	return "", errors.New("no /usr/share/doc/python3*/html holds " + strings.Join(pages, ", ") +
		": install Debian's Python docs with 'apt-get install -y python3-doc', or pass -docs DIR and -pages")
}

// site serves the docs under /docs/ and the generated iframe pages:
// /frames?n=N is a page with N same-origin iframes (0 ≤ N ≤ maxFrames),
// each loading /frames/child?i=K, a small document of its own.
func site(docs string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/docs/", http.StripPrefix("/docs/", http.FileServer(http.Dir(docs))))
	mux.HandleFunc("/frames", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("n"))
		if err != nil || n < 0 || n > maxFrames {
			http.Error(w, fmt.Sprintf("n must be 0 to %d", maxFrames), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html lang=en><title>%d frames</title>\n", n)
		fmt.Fprint(w, "<style>iframe{width:300px;height:120px;border:1px solid #ccc;margin:4px}</style>\n")
		fmt.Fprintf(w, "<h1>A page with %d iframes</h1><p>Each frame is a same-origin document with a heading, a paragraph, a link and a button.</p>\n", n)
		for i := range n {
			fmt.Fprintf(w, "<iframe src=\"/frames/child?i=%d\" title=\"frame %d\"></iframe>\n", i, i)
		}
	})
	mux.HandleFunc("/frames/child", func(w http.ResponseWriter, r *http.Request) {
		i, _ := strconv.Atoi(r.URL.Query().Get("i"))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html lang=en><title>Frame %d</title><h2>Frame %d</h2>"+
			"<p>Some text in frame %d, as an embedded widget has.</p><a href=\"#top\">A link</a> <button>A button</button>", i, i, i)
	})
	return mux
}
