// Command dist builds a release of gasoline into dist/ ('make dist'): both
// binaries for every platform (no cgo), an archive of them per platform, the
// npm packages (a launcher and one package per platform carrying its
// binaries), a store-ready zip of the extension, and SHA256SUMS over the
// archives and the zip. With -pack it also runs 'npm pack' on each npm
// package. Nothing is downloaded.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/extension"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

// npmName is the npm package agents start with npx; each platform package
// is npmName-<os>-<cpu>, as npm names them.
const npmName = "gasoline-browser-mcp"

// platform is one target of the release.
type platform struct{ goos, goarch string }

func (p platform) npmOS() string {
	if p.goos == "windows" {
		return "win32"
	}
	return p.goos
}

func (p platform) npmCPU() string {
	if p.goarch == "amd64" {
		return "x64"
	}
	return p.goarch
}

func (p platform) exe(name string) string {
	if p.goos == "windows" {
		return name + ".exe"
	}
	return name
}

func (p platform) npmPackage() string { return npmName + "-" + p.npmOS() + "-" + p.npmCPU() }

// platforms are every platform a release carries.
var platforms = []platform{
	{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"},
}

// modTime stamps every archived file, so that a release's archives depend
// only on their content.
var modTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func main() {
	out := flag.String("out", "dist", "folder to write the release into (emptied first)")
	only := flag.String("platforms", "", "comma-separated GOOS/GOARCH to build (default: all of "+platformList(platforms)+")")
	pack := flag.Bool("pack", false, "also run 'npm pack' on each npm package, into <out>/npm")
	flag.Parse()
	if err := run(*out, *only, *pack); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(out, only string, pack bool) error {
	targets, err := choose(only)
	if err != nil {
		return err
	}
	ver := version.Release
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	npmDir := filepath.Join(out, "npm")
	if err := os.MkdirAll(npmDir, 0o755); err != nil {
		return err
	}
	var sums []string
	for _, p := range targets {
		fmt.Printf("building %s/%s\n", p.goos, p.goarch)
		pkgDir := filepath.Join(npmDir, p.npmPackage())
		bin := filepath.Join(pkgDir, "bin")
		for _, b := range []struct{ name, pkg string }{{"gasoline", "./cmd/daemon"}, {"gasoline-mcp", "./cmd/bridge"}} {
			if err := build(p, ver, filepath.Join(bin, p.exe(b.name)), b.pkg); err != nil {
				return err
			}
		}
		if err := writePlatformPackage(pkgDir, p, ver); err != nil {
			return err
		}
		archive, err := writeArchive(out, bin, p, ver)
		if err != nil {
			return err
		}
		sums = append(sums, archive)
	}
	if err := writeLauncher(filepath.Join(npmDir, npmName), ver, targets); err != nil {
		return err
	}
	zipName := fmt.Sprintf("gasoline-extension-%s.zip", ver)
	if err := writeExtensionZip(filepath.Join(out, zipName)); err != nil {
		return err
	}
	sums = append(sums, zipName)
	if err := writeSums(out, sums); err != nil {
		return err
	}
	if pack {
		entries, err := os.ReadDir(npmDir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", "..")
			cmd.Dir = filepath.Join(npmDir, e.Name())
			cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("npm pack %s: %w", e.Name(), err)
			}
		}
	}
	fmt.Printf("wrote %s: %d platform(s), npm packages in %s, %s, SHA256SUMS\n", out, len(targets), npmDir, zipName)
	return nil
}

func choose(only string) ([]platform, error) {
	if only == "" {
		return platforms, nil
	}
	var chosen []platform
	for _, s := range strings.Split(only, ",") {
		found := false
		for _, p := range platforms {
			if p.goos+"/"+p.goarch == strings.TrimSpace(s) {
				chosen, found = append(chosen, p), true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown platform %q; choose among %s", s, platformList(platforms))
		}
	}
	return chosen, nil
}

func platformList(ps []platform) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.goos + "/" + p.goarch
	}
	return strings.Join(names, ",")
}

func build(p platform, ver, dst, pkg string) error {
	ldflags := "-s -w -X github.com/gasoline-mcp/gasoline/internal/version.Version=" + ver
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", dst, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.goos, "GOARCH="+p.goarch)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s for %s/%s: %w", pkg, p.goos, p.goarch, err)
	}
	return nil
}

// writePlatformPackage writes the package.json of p's npm package, whose
// os and cpu fields make npm install it only there.
func writePlatformPackage(dir string, p platform, ver string) error {
	pkg := map[string]any{
		"name":            p.npmPackage(),
		"version":         ver,
		"description":     fmt.Sprintf("gasoline's binaries for %s %s; install %s, which picks this one", p.npmOS(), p.npmCPU(), npmName),
		"license":         "UNLICENSED",
		"os":              []string{p.npmOS()},
		"cpu":             []string{p.npmCPU()},
		"files":           []string{"bin/"},
		"preferUnplugged": true,
	}
	return writeJSON(filepath.Join(dir, "package.json"), pkg)
}

// writeLauncher copies npm/<npmName> with its version and its platform
// packages' versions set to ver.
func writeLauncher(dst, ver string, targets []platform) error {
	src := filepath.Join("npm", npmName)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	var pkg map[string]any
	raw, err := os.ReadFile(filepath.Join(dst, "package.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		return fmt.Errorf("%s/package.json: %w", src, err)
	}
	pkg["version"] = ver
	deps := map[string]string{}
	for _, p := range platforms {
		deps[p.npmPackage()] = ver
	}
	pkg["optionalDependencies"] = deps
	if err := os.Chmod(filepath.Join(dst, "bin", "launch.js"), 0o755); err != nil {
		return err
	}
	return writeJSON(filepath.Join(dst, "package.json"), pkg)
}

// writeArchive packs p's binaries as gasoline-<ver>-<os>-<arch>.tar.gz (a
// .zip for Windows) in out and returns its name.
func writeArchive(out, bin string, p platform, ver string) (string, error) {
	names := []string{p.exe("gasoline"), p.exe("gasoline-mcp")}
	base := fmt.Sprintf("gasoline-%s-%s-%s", ver, p.goos, p.goarch)
	var buf bytes.Buffer
	if p.goos == "windows" {
		zw := zip.NewWriter(&buf)
		for _, n := range names {
			data, err := os.ReadFile(filepath.Join(bin, n))
			if err != nil {
				return "", err
			}
			if err := addZip(zw, base+"/"+n, data, 0o755); err != nil {
				return "", err
			}
		}
		if err := zw.Close(); err != nil {
			return "", err
		}
		return base + ".zip", os.WriteFile(filepath.Join(out, base+".zip"), buf.Bytes(), 0o644)
	}
	gz := gzip.NewWriter(&buf)
	gz.ModTime = modTime
	tw := tar.NewWriter(gz)
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(bin, n))
		if err != nil {
			return "", err
		}
		hdr := &tar.Header{Name: base + "/" + n, Mode: 0o755, Size: int64(len(data)), ModTime: modTime, Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return "", err
		}
		if _, err := tw.Write(data); err != nil {
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	if err := gz.Close(); err != nil {
		return "", err
	}
	return base + ".tar.gz", os.WriteFile(filepath.Join(out, base+".tar.gz"), buf.Bytes(), 0o644)
}

// writeExtensionZip writes the extension as the Chrome Web Store takes it:
// the manifest without its "key", which the store assigns itself.
func writeExtensionZip(dst string) error {
	var paths []string
	err := fs.WalkDir(extension.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	sort.Strings(paths)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range paths {
		data, err := fs.ReadFile(extension.Files, p)
		if err != nil {
			return err
		}
		if p == "manifest.json" {
			if data, err = storeManifest(data); err != nil {
				return err
			}
		}
		if err := addZip(zw, p, data, 0o644); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}

// storeManifest is the manifest without its "key", keeping the order of
// everything else.
func storeManifest(raw []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("manifest.json: %w", err)
	}
	if _, ok := m["key"]; !ok {
		return nil, errors.New("manifest.json has no key: the unpacked extension would get another id")
	}
	var out []string
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), `"key":`) {
			out = append(out, line)
		}
	}
	stripped := []byte(strings.Join(out, "\n"))
	var check map[string]json.RawMessage
	if err := json.Unmarshal(stripped, &check); err != nil || len(check) != len(m)-1 {
		return nil, fmt.Errorf("removing the key from manifest.json left it broken (%v): keep \"key\" on a line of its own", err)
	}
	return stripped, nil
}

func addZip(zw *zip.Writer, name string, data []byte, mode fs.FileMode) error {
	hdr := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: modTime}
	hdr.SetMode(mode)
	w, err := zw.CreateHeader(hdr)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func writeSums(out string, names []string) error {
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(out, n))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), n)
	}
	return os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(b.String()), 0o644)
}

func writeJSON(path string, v any) error {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}
