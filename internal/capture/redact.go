package capture

import (
	"regexp"
	"slices"
	"strings"
)

// SecretHeaders are the header names whose value is a credential, redacted
// when the redaction switch is on: lower case, a leading or trailing "*"
// matching any run of characters. It is the one list; the extension's copy
// (extension/capture/secrets.js) is generated from it by
// go generate ./internal/capture (SecretsJS), and the daemon applies it again to
// whatever the extension sends. Names are added with Options.RedactHeaders.
var SecretHeaders = []string{
	"authorization", "proxy-authorization", "cookie", "set-cookie",
	"x-auth*", "*-api-key", "*-apikey", "api-key", "apikey", "*-token", "token",
	"*-secret", "secret", "*-password", "password", "*-session", "*-session-id", "*-signature",
	"x-csrf*", "x-xsrf*",
}

// SecretValue is the pattern (RE2 and JavaScript alike, matched without
// case) of a header value that is a credential whatever the header's name:
// an Authorization-style scheme and token, a JWT, a live or test API key.
const SecretValue = `^\s*(bearer|basic|digest|negotiate|token)\s+\S|eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.|\b(sk|pk|rk)[-_](live|test)[-_]|\bgh[pousr]_[A-Za-z0-9]{20,}`

var secretValue = regexp.MustCompile(`(?i)` + SecretValue)

// Secrets decides which headers are redacted: SecretHeaders plus the names
// a daemon was configured with. Its zero value uses SecretHeaders only;
// it is immutable and safe for concurrent use.
type Secrets struct {
	extra []string // lower-case patterns added to SecretHeaders
}

// NewSecrets returns the rules of SecretHeaders plus extra, patterns like
// SecretHeaders' (case does not matter; blanks are dropped).
func NewSecrets(extra []string) *Secrets {
	s := &Secrets{}
	for _, p := range extra {
		if p = strings.ToLower(strings.TrimSpace(p)); p != "" && p != "*" && !slices.Contains(s.extra, p) {
			s.extra = append(s.extra, p)
		}
	}
	return s
}

// Extra returns the patterns added to SecretHeaders, as the extension is told.
func (s *Secrets) Extra() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.extra)
}

// Redact reports whether the header name: value holds a credential.
func (s *Secrets) Redact(name, value string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	if matchAny(SecretHeaders, n) || (s != nil && matchAny(s.extra, n)) {
		return true
	}
	return secretValue.MatchString(value)
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if matchName(p, name) {
			return true
		}
	}
	return false
}

// matchName matches name against a pattern with an optional "*" at either end.
func matchName(p, name string) bool {
	pre, suf := strings.HasPrefix(p, "*"), strings.HasSuffix(p, "*") && len(p) > 1
	core := strings.TrimSuffix(strings.TrimPrefix(p, "*"), "*")
	switch {
	case pre && suf:
		return strings.Contains(name, core)
	case pre:
		return strings.HasSuffix(name, core)
	case suf:
		return strings.HasPrefix(name, core)
	}
	return name == core
}
