package server

import (
	"regexp"
	"strings"
	"sync"
)

// mozOrigin matches the origin of an extension in Firefox: a random UUID
// that Firefox picks per profile (the add-on's "Internal UUID").
var mozOrigin = regexp.MustCompile(`^moz-extension://[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// firefoxPin is the extension's origin in the user's Firefox, which,
// unlike Chrome's, cannot be known in advance: it is set by
// --firefox-extension-uuid, or else pinned by the last successful pairing
// from a moz-extension:// origin.
//
// Security: the Origin guard is what keeps other browser extensions and
// web pages off the API (a web page cannot send a moz-extension:// Origin,
// another extension can). So only a pairing request that proves a valid
// one-time code may pin: the code is printed by 'gasoline pair' in the
// user's terminal and typed by the user into the popup of the extension
// they chose, so proving it shows that the user gave that extension the
// code. A later pairing from another moz-extension UUID with a valid code
// replaces the pin (the user re-paired, e.g. from a new profile or after
// reinstalling the add-on); the old origin's requests are then refused by
// the guard even though its token remains, until 'gasoline unpair'. A
// pairing with a wrong code pins nothing and counts against the code's
// guess budget like any other (internal/pairing). Every other request from
// an unpinned moz-extension origin is refused by the guard. An origin set
// by the flag is fixed: pairing from another UUID is then refused, as the
// user said which one to trust.
type firefoxPin struct {
	fixed bool                      // set by the flag: pairing does not replace it
	save  func(origin string) error // persists a new pin; nil keeps it in memory

	mu     sync.Mutex
	origin string // "moz-extension://<uuid>", or "" when none; guarded by mu
}

// is reports whether origin is the pinned one.
func (p *firefoxPin) is(origin string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.origin != "" && origin == p.origin
}

// mayPin reports whether a pairing from origin, if its code is valid,
// may pin it: an extension's origin in Firefox, and no origin fixed by the
// flag.
func (p *firefoxPin) mayPin(origin string) bool {
	return !p.fixed && mozOrigin.MatchString(origin)
}

// pin makes origin the extension's origin in Firefox and persists it. It
// is called only after the pairing's code was proven (see firefoxPin).
func (p *firefoxPin) pin(origin string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fixed || p.origin == origin {
		return nil
	}
	p.origin = origin
	if p.save == nil {
		return nil
	}
	return p.save(origin)
}

// newFirefoxPin is the pin cfg describes: the flag's UUID when set, else
// the origin a pairing pinned before (cfg.FirefoxPinned), if well-formed.
func newFirefoxPin(cfg Config) *firefoxPin {
	if cfg.FirefoxExtensionUUID != "" {
		return &firefoxPin{fixed: true, origin: "moz-extension://" + strings.ToLower(cfg.FirefoxExtensionUUID)}
	}
	p := &firefoxPin{save: cfg.SaveFirefoxPin}
	if mozOrigin.MatchString(cfg.FirefoxPinned) {
		p.origin = cfg.FirefoxPinned
	}
	return p
}
