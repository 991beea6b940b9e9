package capture

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSecretsFile fails while the extension's copy of the rules is stale.
func TestSecretsFile(t *testing.T) {
	got, err := os.ReadFile(SecretsFile)
	if err != nil {
		t.Fatalf("reading %s: %v (run go generate ./internal/capture)", SecretsFile, err)
	}
	if !bytes.Equal(got, SecretsJS()) {
		t.Errorf("%s is stale: run go generate ./internal/capture (or make generate) and commit it", filepath.Join("internal", "capture", SecretsFile))
	}
}

func TestSecretsRedact(t *testing.T) {
	s := NewSecrets([]string{" X-Tenant-Key ", "x-corp-*", ""})
	for _, c := range []struct {
		name, value string
		want        bool
	}{
		{"Authorization", "Basic abc", true},
		{"Proxy-Authorization", "x", true},
		{"Cookie", "a=b", true},
		{"X-Api-Key", "sk-live-123", true},
		{"x-goog-api-key", "k", true},
		{"X-Auth-Token", "k", true},
		{"X-Access-Token", "k", true},
		{"Private-Token", "k", true},
		{"X-CSRF-Token", "k", true},
		{"x-amz-security-token", "k", true},
		{"x-tenant-key", "k", true},
		{"X-Corp-Anything", "k", true},
		{"X-Custom", "Bearer abc.def", true},
		{"X-Forwarded-Jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", true},
		{"X-Custom", "sk_live_abcdef", true},
		{"Content-Type", "application/json", false},
		{"Accept", "*/*", false},
		{"X-Request-Id", "42", false},
		{"User-Agent", "Mozilla/5.0", false},
	} {
		if got := s.Redact(c.name, c.value); got != c.want {
			t.Errorf("Redact(%q, %q) = %v, want %v", c.name, c.value, got, c.want)
		}
	}
	var zero *Secrets
	if !zero.Redact("x-api-key", "v") || zero.Redact("x-tenant-key", "v") {
		t.Error("a nil Secrets should apply SecretHeaders only")
	}
}
