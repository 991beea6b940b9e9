package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gasoline-mcp/gasoline/extension"
	"github.com/gasoline-mcp/gasoline/internal/version"
)

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestVersionsInStep: the release version is stated in one Go constant and
// repeated where JSON files need it; they must agree.
func TestVersionsInStep(t *testing.T) {
	root := filepath.Join("..", "..")
	var manifest struct{ Version string }
	readJSON(t, filepath.Join(root, "extension", "manifest.json"), &manifest)
	var pkg struct {
		Name                 string
		Version              string
		MCPName              string            `json:"mcpName"`
		Bin                  map[string]string `json:"bin"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
	}
	readJSON(t, filepath.Join(root, "npm", npmName, "package.json"), &pkg)
	var server struct {
		Schema   string `json:"$schema"`
		Name     string
		Version  string
		Packages []struct {
			RegistryType string `json:"registryType"`
			Identifier   string
			Version      string
			Transport    struct{ Type string }
		}
	}
	readJSON(t, filepath.Join(root, "server.json"), &server)

	for what, got := range map[string]string{
		"extension/manifest.json version":          manifest.Version,
		"npm/" + npmName + "/package.json version": pkg.Version,
		"server.json version":                      server.Version,
	} {
		if got != version.Release {
			t.Errorf("%s is %q, want version.Release %q", what, got, version.Release)
		}
	}
	if pkg.Name != npmName || pkg.Bin[npmName] != "bin/launch.js" {
		t.Errorf("npm package %q with bin %v, want %s running bin/launch.js", pkg.Name, pkg.Bin, npmName)
	}
	if len(pkg.OptionalDependencies) != len(platforms) {
		t.Errorf("optionalDependencies %v, want one per platform (%d)", pkg.OptionalDependencies, len(platforms))
	}
	for _, p := range platforms {
		if v := pkg.OptionalDependencies[p.npmPackage()]; v != version.Release {
			t.Errorf("optionalDependencies[%s] = %q, want %q", p.npmPackage(), v, version.Release)
		}
	}

	// server.json as the MCP registry's schema has it: a reverse-DNS name
	// the npm package claims with mcpName, one npm package over stdio at an
	// exact version.
	if !regexp.MustCompile(`^https://static\.modelcontextprotocol\.io/schemas/\d{4}-\d{2}-\d{2}/server\.schema\.json$`).MatchString(server.Schema) {
		t.Errorf("server.json $schema %q is not a published schema", server.Schema)
	}
	if !regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`).MatchString(server.Name) || server.Name != pkg.MCPName {
		t.Errorf("server.json name %q, package.json mcpName %q: want the same reverse-DNS name", server.Name, pkg.MCPName)
	}
	if len(server.Packages) != 1 {
		t.Fatalf("server.json has %d packages, want the npm one", len(server.Packages))
	}
	sp := server.Packages[0]
	if sp.RegistryType != "npm" || sp.Identifier != npmName || sp.Version != version.Release || sp.Transport.Type != "stdio" {
		t.Errorf("server.json package %+v, want npm %s %s over stdio", sp, npmName, version.Release)
	}
}

func TestStoreManifestDropsOnlyTheKey(t *testing.T) {
	raw, err := fs.ReadFile(extension.Files, "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var before, after map[string]json.RawMessage
	json.Unmarshal(raw, &before)
	stripped, err := storeManifest(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(stripped, &after); err != nil {
		t.Fatal(err)
	}
	if _, ok := after["key"]; ok {
		t.Error("the store manifest keeps its key")
	}
	delete(before, "key")
	if len(after) != len(before) {
		t.Errorf("store manifest has %d fields, want %d", len(after), len(before))
	}
	for k, v := range before {
		if string(after[k]) != string(v) {
			t.Errorf("field %s changed", k)
		}
	}
}

func TestChoose(t *testing.T) {
	if ps, err := choose("linux/amd64,windows/amd64"); err != nil || len(ps) != 2 || ps[1].exe("gasoline") != "gasoline.exe" || ps[1].npmPackage() != npmName+"-win32-x64" {
		t.Errorf("choose: %v %v", ps, err)
	}
	if _, err := choose("plan9/386"); err == nil {
		t.Error("an unknown platform was accepted")
	}
}
