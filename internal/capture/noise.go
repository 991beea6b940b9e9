package capture

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Noise rule limits.
const (
	MaxNoiseRules   = 100
	MaxRulePattern  = 512 // bytes of a message regular expression
	MaxRuleURL      = 1024
	maxFilterString = 1024
)

// NoiseRule hides the entries it matches from every read (Query, Wait,
// ErrorGroups); it deletes nothing, so removing the rule shows them again.
// An entry matches when every criterion given matches:
//   - Kind: the entry's kind;
//   - Level: a log entry's level, exactly (a rule with a level matches logs only);
//   - URL: a substring of the entry's URL (see Filter.URL), ignoring ASCII case;
//   - Message: an RE2 regular expression found in the entry's text (see
//     Filter.Text).
//
// At least one criterion is required.
type NoiseRule struct {
	ID      string `json:"id"` // assigned by AddNoiseRule
	Kind    Kind   `json:"kind,omitempty"`
	Level   string `json:"level,omitempty"`
	URL     string `json:"url,omitempty"`
	Message string `json:"message,omitempty"`
}

type noiseRule struct {
	NoiseRule
	url string // lower case
	re  *regexp.Regexp
}

// AddNoiseRule validates r and adds it with a new ID ("noise_N"), returning
// the stored rule. Adding a rule equal to an existing one (ignoring ID)
// returns the existing one. It fails with ErrBadRule (wrapped with the
// reason) or ErrTooManyRules.
func (s *Store) AddNoiseRule(r NoiseRule) (NoiseRule, error) {
	nr := &noiseRule{NoiseRule: r}
	nr.ID = ""
	switch {
	case r.Kind == "" && r.Level == "" && r.URL == "" && r.Message == "":
		return NoiseRule{}, fmt.Errorf("%w: give at least one of kind, level, url, message", ErrBadRule)
	case r.Kind != "" && r.Kind.index() < 0:
		return NoiseRule{}, fmt.Errorf("%w: unknown kind %q: use log, error, network, action, nav or vital", ErrBadRule, r.Kind)
	case r.Level != "" && !slices.Contains(logLevels, r.Level):
		return NoiseRule{}, fmt.Errorf("%w: level %q is not one of %s", ErrBadRule, clipReason(r.Level), strings.Join(logLevels, ", "))
	case r.Level != "" && r.Kind != "" && r.Kind != KindLog:
		return NoiseRule{}, fmt.Errorf("%w: level applies to log entries only; drop it or use kind \"log\"", ErrBadRule)
	case len(r.URL) > MaxRuleURL:
		return NoiseRule{}, fmt.Errorf("%w: url is %d bytes, over the limit of %d", ErrBadRule, len(r.URL), MaxRuleURL)
	case len(r.Message) > MaxRulePattern:
		return NoiseRule{}, fmt.Errorf("%w: message pattern is %d bytes, over the limit of %d", ErrBadRule, len(r.Message), MaxRulePattern)
	}
	nr.url = strings.ToLower(r.URL)
	if r.Message != "" {
		re, err := regexp.Compile(r.Message)
		if err != nil {
			return NoiseRule{}, fmt.Errorf("%w: message is not a valid RE2 regular expression: %v", ErrBadRule, err)
		}
		nr.re = re
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.rules {
		if o.Kind == r.Kind && o.Level == r.Level && o.URL == r.URL && o.Message == r.Message {
			return o.NoiseRule, nil
		}
	}
	if len(s.rules) >= MaxNoiseRules {
		return NoiseRule{}, fmt.Errorf("%w (the limit is %d)", ErrTooManyRules, MaxNoiseRules)
	}
	s.ruleID++
	nr.ID = "noise_" + strconv.Itoa(s.ruleID)
	s.rules = append(s.rules, nr)
	return nr.NoiseRule, nil
}

// NoiseRules returns the rules in the order they were added.
func (s *Store) NoiseRules() []NoiseRule {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]NoiseRule, 0, len(s.rules))
	for _, r := range s.rules {
		out = append(out, r.NoiseRule)
	}
	return out
}

// RemoveNoiseRule removes the rule with id, or fails with ErrUnknownRule.
func (s *Store) RemoveNoiseRule(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.rules {
		if r.ID == id {
			s.rules = slices.Delete(s.rules, i, i+1)
			return nil
		}
	}
	return fmt.Errorf("%w: %q", ErrUnknownRule, clipReason(id))
}

func (r *noiseRule) matches(e *entry) bool {
	if r.Kind != "" && r.Kind != e.kind {
		return false
	}
	if r.Level != "" {
		l, ok := e.rec.(*logRec)
		if !ok || l.level != r.Level {
			return false
		}
	}
	if r.url != "" && !anyURL(e, func(s string) bool { return containsFold(s, r.url) }) {
		return false
	}
	if r.re != nil && !anyText(e, r.re.MatchString) {
		return false
	}
	return true
}

// noisyLocked reports whether a noise rule hides e. s.mu must be held.
func (s *Store) noisyLocked(e *entry) bool {
	for _, r := range s.rules {
		if r.matches(e) {
			return true
		}
	}
	return false
}

// anyText reports whether f holds for one of e's text fields: a log's message
// and source; an error's message, source and resource URL; a request's URL
// and network error; an action's selector, name, text and value; a
// navigation's from and to; a vital's name.
func anyText(e *entry, f func(string) bool) bool {
	switch r := e.rec.(type) {
	case *logRec:
		return f(r.message.s) || f(r.source.s)
	case *errorRec:
		return f(r.message.s) || f(r.source.s) || f(r.resourceURL.s)
	case *netRec:
		return f(r.url.s) || f(r.err)
	case *actionRec:
		return f(r.selector.s) || f(r.name.s) || f(r.text.s) || f(r.value.s)
	case *navRec:
		return f(r.from.s) || f(r.to.s)
	case *vitalRec:
		return f(r.name)
	case *wsRec:
		return f(r.text.s) || f(r.url.s) || f(r.reason)
	}
	return false
}

// anyURL reports whether f holds for one of e's URLs: a request's URL, a
// navigation's from and to, an error's resource URL and page URL, else the
// page URL.
func anyURL(e *entry, f func(string) bool) bool {
	switch r := e.rec.(type) {
	case *netRec:
		return f(r.url.s)
	case *navRec:
		return f(r.to.s) || f(r.from.s)
	case *errorRec:
		return f(r.resourceURL.s) || f(e.pageURL.s)
	case *wsRec:
		return f(r.url.s) || f(e.pageURL.s)
	}
	return f(e.pageURL.s)
}

// containsFold reports whether s contains sub, ignoring ASCII case; sub must
// be lower case.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	c0, up := sub[0], sub[0]
	if 'a' <= c0 && c0 <= 'z' {
		up = c0 - 'a' + 'A'
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		if b := s[i]; (b == c0 || b == up) && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}
