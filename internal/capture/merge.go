package capture

import (
	"container/list"
	"strings"
	"time"
)

// The extension reports a request twice when both its page hook (fetch/XHR:
// bodies) and chrome.webRequest (every request: status, network errors,
// timing) see it. A "page" and a "browser" event of the same tab, method and
// URL arriving within Options.MergeWindow of each other become one entry:
// the first one stored keeps its id, and its record is replaced by the
// merged one. Several requests to the same URL pair up in arrival order.
// The page half's URL may have a secret field's value cut out as
// "[redacted]" (the browser half never knows the secrets): such a URL pairs
// with the browser URL it is a scrubbed copy of, and the entry keeps the
// scrubbed URL.

type mergeKey struct {
	tab    int64
	method string
	url    string
}

// waiting is a stored network entry with only one of its halves.
type waiting struct {
	e      *entry
	key    mergeKey
	source string
	at     time.Time
}

// mergeIndex holds the network entries waiting for their other half. Every
// entry in it is in the network ring (eviction and Clear remove it), so it
// is bounded by the ring. Guarded by Store.mu.
type mergeIndex struct {
	byKey    map[mergeKey][]*list.Element // per key, in arrival order
	order    *list.List                   // of *waiting, in arrival order
	redacted int                          // how many waiting URLs hold redactedMark
}

// redactedMark is what the page's capture puts in place of a secret.
const redactedMark = "[redacted]"

// scrubbedOf says whether scrubbed (holding redactedMark) is raw with
// secrets cut out: the same text around each mark, each mark standing for
// at least one character.
func scrubbedOf(scrubbed, raw string) bool {
	parts := strings.Split(scrubbed, redactedMark)
	if len(parts) < 2 || !strings.HasPrefix(raw, parts[0]) {
		return false
	}
	rest := raw[len(parts[0]):]
	for i, p := range parts[1:] {
		if len(rest) < 1 {
			return false
		}
		rest = rest[1:] // a secret is never empty
		if i == len(parts)-2 {
			return strings.HasSuffix(rest, p)
		}
		k := strings.Index(rest, p)
		if k < 0 {
			return false
		}
		rest = rest[k+len(p):]
	}
	return false
}

func (m *mergeIndex) add(e *entry, rec *netRec, at time.Time) {
	w := &waiting{e: e, key: mergeKey{e.tab, rec.method, rec.url.s}, source: rec.source, at: at}
	el := m.order.PushBack(w)
	e.pend = el
	m.byKey[w.key] = append(m.byKey[w.key], el)
	if strings.Contains(w.key.url, redactedMark) {
		m.redacted++
	}
}

// prune forgets the entries that arrived before cutoff.
func (m *mergeIndex) prune(cutoff time.Time) {
	for el := m.order.Front(); el != nil; el = m.order.Front() {
		if !el.Value.(*waiting).at.Before(cutoff) {
			return
		}
		m.remove(el.Value.(*waiting).e)
	}
}

// take removes and returns the oldest waiting entry of key whose half is not
// source, or nil.
// A URL with a secret cut out pairs with the URL it was cut from (and
// the other way round).
func (m *mergeIndex) take(key mergeKey, source string) *entry {
	for _, el := range m.byKey[key] {
		if w := el.Value.(*waiting); w.source != source {
			m.remove(w.e)
			return w.e
		}
	}
	mine := strings.Contains(key.url, redactedMark)
	if !mine && m.redacted == 0 {
		return nil
	}
	for el := m.order.Front(); el != nil; el = el.Next() {
		w := el.Value.(*waiting)
		if w.source == source || w.key.tab != key.tab || w.key.method != key.method {
			continue
		}
		if (mine && scrubbedOf(key.url, w.key.url)) || (!mine && scrubbedOf(w.key.url, key.url)) {
			m.remove(w.e)
			return w.e
		}
	}
	return nil
}

// remove forgets e if it is waiting.
func (m *mergeIndex) remove(e *entry) {
	el := e.pend
	if el == nil {
		return
	}
	e.pend = nil
	w := m.order.Remove(el).(*waiting)
	if strings.Contains(w.key.url, redactedMark) {
		m.redacted--
	}
	els := m.byKey[w.key]
	for i, x := range els {
		if x == el {
			els = append(els[:i], els[i+1:]...)
			break
		}
	}
	if len(els) == 0 {
		delete(m.byKey, w.key)
	} else {
		m.byKey[w.key] = els
	}
}

// mergeNet combines the two halves of one request: bodies, request id,
// resource type and request headers from the page; status, error, timing and
// response headers from the browser (each falling back to the other half
// when empty).
func mergeNet(a, b *netRec) *netRec {
	page, browser := a, b
	if a.source == "browser" {
		page, browser = b, a
	}
	m := *page
	m.source = "page+browser"
	m.lean = page.lean || browser.lean
	if browser.status != 0 || browser.err != "" {
		m.status, m.err = browser.status, browser.err
	}
	if browser.durationMS > 0 {
		m.durationMS = browser.durationMS
	}
	if m.mimeType == "" {
		m.mimeType = browser.mimeType
	}
	if len(m.reqHeaders) == 0 {
		m.reqHeaders = browser.reqHeaders
	}
	if len(browser.respHeaders) > 0 {
		m.respHeaders = browser.respHeaders
	}
	m.reqSize = max(page.reqSize, browser.reqSize)
	m.respSize = max(page.respSize, browser.respSize)
	return &m
}
