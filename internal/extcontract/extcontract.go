// Package extcontract tells whether the extension polling this daemon was
// built with the contract this daemon speaks (the actions, params and URL
// rule of extension/contract.js), and names a mismatch with its fix.
//
// Chrome keeps running an unpacked extension's old code after the user
// rebuilt gasoline until the extension is reloaded, so a daemon may face an
// extension older (or newer) than itself: it then refuses actions or
// ignores arguments the daemon sends. The extension sends Version
// (CONTRACT_VERSION in contract.js) as the contract parameter of each
// GET /pending-queries; one that sends none predates this check.
package extcontract

import (
	"fmt"
	"sync"
)

// Fix is the one step that ends a mismatch.
const Fix = "reload the gasoline extension at chrome://extensions (its reload button), then retry; " +
	"Chrome keeps running the old extension after gasoline is rebuilt or updated"

// maxInstances bounds the instances Seen remembers.
const maxInstances = 16

// Seen remembers the contract version each extension instance last sent.
// Its zero value is ready to use; it is safe for concurrent use.
type Seen struct {
	mu   sync.Mutex
	sent map[string]string // instance → the version it sent ("" for none); guarded by mu
	// browsers maps an instance to the browser it said it runs in, for
	// 'gasoline doctor'; guarded by mu.
	browsers map[string]string
}

// Note records that instance polled with version v ("" when it sent none)
// from browser (apitype.BrowserChrome or BrowserFirefox; "" when unknown).
func (s *Seen) Note(instance, v, browser string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sent[instance]; !ok && len(s.sent) >= maxInstances {
		s.sent, s.browsers = nil, nil // instances come and go with the worker; the live ones poll again at once
	}
	if s.sent == nil {
		s.sent, s.browsers = map[string]string{}, map[string]string{}
	}
	s.sent[instance] = v
	s.browsers[instance] = browser
}

// Browser returns the browser instance said it runs in ("" when unknown).
func (s *Seen) Browser(instance string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.browsers[instance]
}

// Sent returns the version instance last sent and whether it polled at all.
func (s *Seen) Sent(instance string) (v string, polled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, polled = s.sent[instance]
	return v, polled
}

// Skew returns, for the version an extension sent, "" when it speaks this
// daemon's contract, else what is wrong (Fix says what to do).
func Skew(sent string) string {
	switch sent {
	case Version:
		return ""
	case "":
		return "the gasoline extension running in Chrome is older than this daemon (it sends no contract version; this daemon's is " + Version +
			"): it may refuse actions or ignore arguments"
	}
	return fmt.Sprintf("the gasoline extension running in Chrome was built for another gasoline version (contract %s, this daemon's %s): "+
		"it may refuse actions or ignore arguments", sent, Version)
}

// Message is Skew(sent) with its Fix, "" when there is no skew.
func Message(sent string) string {
	if s := Skew(sent); s != "" {
		return s + "; " + Fix
	}
	return ""
}
