package output

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Local extractor tuning.
const (
	localExtractorID   = "local@1"
	maxSpanChars       = 400 // longest candidate span
	maxChunkCandidates = 64  // snippets returned per chunk at most
	maxQueryTerms      = 16
	maxWordBytes       = 64 // longer "words" (base64, hashes) are skipped
	synonymWeight      = 0.6
	maxJoinedUnits     = 8 // units joined to a lone opening tag at most
)

// localExtractor ranks the lines, sentences and HTML elements of a chunk
// lexically against the query. It needs no model, works offline and is
// deterministic: the same chunk and query always give the same snippets.
type localExtractor struct {
	mu      sync.Mutex
	queries map[string]*query // compiled queries, reset when full; guarded by mu
}

// maxCompiledQueries bounds the local extractor's cache of compiled queries.
const maxCompiledQueries = 64

// compiled returns the compiled form of q, compiling it once for all the
// chunks of an extraction.
func (l *localExtractor) compiled(q string) *query {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c, ok := l.queries[q]; ok {
		return c
	}
	if len(l.queries) >= maxCompiledQueries {
		clear(l.queries)
	}
	c := compileQuery(q)
	l.queries[q] = c
	return c
}

// NewLocalExtractor returns the local extractor, "local@1": lexical ranking
// of short spans (lines, or sentence- and tag-delimited pieces of long
// lines) by the query words they contain (after dropping stop words and
// with light stemming and a few synonyms), their frequency and proximity.
// It is safe for concurrent use.
func NewLocalExtractor() Extractor {
	return &localExtractor{queries: make(map[string]*query)}
}

func (*localExtractor) ID() string { return localExtractorID }

// describeQuery says, for a no-match message, what was searched.
func (l *localExtractor) describeQuery(query string) string {
	q := l.compiled(query)
	if len(q.words) == 0 {
		return fmt.Sprintf("the query %q (it has no searchable words)", query)
	}
	quoted := make([]string, len(q.words))
	for i, w := range q.words {
		quoted[i] = fmt.Sprintf("%q", w)
	}
	return fmt.Sprintf("the words %s of the query (with their plural, -ing and -ed forms and close synonyms)", strings.Join(quoted, ", "))
}

// ExtractChunk returns the best spans of c for query, offsets relative to c.
func (l *localExtractor) ExtractChunk(ctx context.Context, query string, c Chunk) ([]Snippet, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q := l.compiled(query)
	if q.nterms == 0 {
		return nil, nil
	}
	units := segment(c.Text)
	sc, err := scanUnits(ctx, q, c.Text, units)
	if err != nil || len(sc.cands) == 0 {
		return nil, err
	}
	sc.score(len(units))
	return snippets(c, sc.best()), nil
}

// candidate is a span of a chunk that holds query terms.
type candidate struct {
	start, end int // bytes in the chunk's text
	best       int // offset of this candidate's per-term weights in scan.bests
	tf         int
	prox       float64
	density    float64
	score      float64
}

// scan is what scanUnits found in a chunk's spans.
type scan struct {
	nterms int
	cands  []candidate
	bests  []float64 // nterms weights per candidate: each term's best match in it
	df     []int     // per term, the candidates that hold it
}

// scanUnits finds the units of text (its spans, from segment) that hold
// terms of q, checking ctx every 512 units.
func scanUnits(ctx context.Context, q *query, text string, units []span) (scan, error) {
	sc := scan{nterms: q.nterms, df: make([]int, q.nterms)}
	var (
		matches []match
		buf     []byte
	)
	for i, u := range units {
		if i%512 == 511 {
			if err := ctx.Err(); err != nil {
				return scan{}, err
			}
		}
		matches = matches[:0]
		tokens := 0
		buf = scanWords(text[u.start:u.end], buf, func(w []byte) {
			if q.mayMatch(w) {
				for _, h := range q.dict[string(stem(w))] {
					matches = append(matches, match{pos: tokens, term: h.term, weight: h.weight})
				}
			}
			tokens++
		})
		if len(matches) > 0 {
			sc.add(u, matches, tokens)
		}
	}
	return sc, nil
}

// add records the unit u, whose tokens hold matches, as a candidate.
func (sc *scan) add(u span, matches []match, tokens int) {
	off := len(sc.bests)
	for range sc.nterms {
		sc.bests = append(sc.bests, 0)
	}
	positions, last := 0, -1
	for _, m := range matches {
		sc.bests[off+m.term] = max(sc.bests[off+m.term], m.weight)
		if m.pos != last {
			positions, last = positions+1, m.pos
		}
	}
	for t := range sc.nterms {
		if sc.bests[off+t] > 0 {
			sc.df[t]++
		}
	}
	sc.cands = append(sc.cands, candidate{
		start:   u.start,
		end:     u.end,
		best:    off,
		tf:      positions,
		prox:    proximity(matches, sc.nterms),
		density: float64(positions) / float64(tokens),
	})
}

// score scores every candidate from its coverage of the query's terms
// (rarer terms, over the chunk's nunits spans, weigh more: inverse document
// frequency), their proximity, frequency and density.
func (sc *scan) score(nunits int) {
	weights := make([]float64, sc.nterms)
	total := 0.0
	n := float64(nunits)
	for t := range weights {
		weights[t] = math.Log(1 + (n+1)/(float64(sc.df[t])+1))
		total += weights[t]
	}
	for i := range sc.cands {
		cd := &sc.cands[i]
		coverage := 0.0
		for t, w := range weights {
			coverage += w / total * sc.bests[cd.best+t]
		}
		tf := float64(cd.tf)
		score := 0.6*coverage + 0.15*cd.prox + 0.1*tf/(tf+2) + 0.15*cd.density
		cd.score = math.Round(min(score, 1)*10000) / 10000
	}
}

// best returns the maxChunkCandidates best-scored candidates (the earlier
// first among equals), in text order.
func (sc *scan) best() []candidate {
	cands := sc.cands
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.start, b.start))
	})
	cands = cands[:min(len(cands), maxChunkCandidates)]
	slices.SortFunc(cands, func(a, b candidate) int { return cmp.Compare(a.start, b.start) })
	return cands
}

// snippets turns candidates of c, in text order, into snippets whose
// offsets count characters from c's start.
func snippets(c Chunk, cands []candidate) []Snippet {
	out := make([]Snippet, len(cands))
	ascii := isASCII(c.Text)
	pb, pr := 0, 0 // byte and character offset of the last conversion
	toRune := func(b int) int {
		if ascii {
			return b
		}
		if b < pb {
			pb, pr = 0, 0
		}
		pr += utf8.RuneCountInString(c.Text[pb:b])
		pb = b
		return pr
	}
	for i, cd := range cands {
		start := toRune(cd.start)
		out[i] = Snippet{
			Text:       c.Text[cd.start:cd.end],
			Start:      start,
			End:        toRune(cd.end),
			ChunkIndex: c.Index,
			Score:      cd.score,
		}
	}
	return out
}

// match is one query term found at a token position of a span.
type match struct {
	pos    int
	term   int
	weight float64
}

// proximity is the number of distinct terms matched divided by the length,
// in tokens, of the shortest run of tokens holding all of them: 1 when they
// are adjacent. A single-term query is always 1; a span matching only one
// term of a longer query is 0.
func proximity(matches []match, nterms int) float64 {
	if nterms == 1 {
		return 1
	}
	var seen [maxQueryTerms]bool
	distinct := 0
	for _, m := range matches {
		if !seen[m.term] {
			seen[m.term] = true
			distinct++
		}
	}
	if distinct < 2 {
		return 0
	}
	var count [maxQueryTerms]int
	best, have, l := math.MaxInt, 0, 0
	for _, m := range matches {
		if count[m.term] == 0 {
			have++
		}
		count[m.term]++
		for have == distinct {
			best = min(best, m.pos-matches[l].pos+1)
			count[matches[l].term]--
			if count[matches[l].term] == 0 {
				have--
			}
			l++
		}
	}
	return float64(distinct) / float64(best)
}

// query is a compiled extraction query. It is immutable once compiled.
type query struct {
	words  []string             // the words searched for, lower-cased, one per term
	nterms int                  // number of terms
	dict   map[string][]termHit // stem → the terms it matches and how well
	// prefixes has a bit set for the first two bytes of every stem in dict:
	// stemming keeps a word's first two bytes, so a word whose pair is not
	// set cannot match and is neither stemmed nor looked up.
	prefixes [1 << 16 / 64]uint64
}

func prefixKey(w []byte) uint16 {
	k := uint16(w[0]) << 8
	if len(w) > 1 {
		k |= uint16(w[1])
	}
	return k
}

// mayMatch reports whether the word w (not yet stemmed) may match.
func (q *query) mayMatch(w []byte) bool {
	k := prefixKey(w)
	return q.prefixes[k/64]&(1<<(k%64)) != 0
}

type termHit struct {
	term   int
	weight float64
}

// compileQuery splits q into lower-case words, drops stop words (unless
// nothing else is left), stems them and adds their synonyms.
func compileQuery(q string) *query {
	var all, kept []string
	scanWords(q, nil, func(w []byte) { all = append(all, string(w)) })
	for _, w := range all {
		if !stopWords[w] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		kept = all
	}
	out := &query{dict: make(map[string][]termHit)}
	var stems []string
	for _, w := range kept {
		st := string(stem([]byte(w)))
		if slices.Contains(stems, st) {
			continue
		}
		if len(stems) == maxQueryTerms {
			break
		}
		stems = append(stems, st)
		out.words = append(out.words, w)
	}
	for t, st := range stems {
		out.dict[st] = append(out.dict[st], termHit{term: t, weight: 1})
	}
	for t, st := range stems {
		for _, syn := range synonyms[st] {
			if !slices.ContainsFunc(out.dict[syn], func(h termHit) bool { return h.term == t }) {
				out.dict[syn] = append(out.dict[syn], termHit{term: t, weight: synonymWeight})
			}
		}
	}
	out.nterms = len(stems)
	for k := range out.dict {
		pk := prefixKey([]byte(k))
		out.prefixes[pk/64] |= 1 << (pk % 64)
	}
	return out
}

// scanWords calls fn with each word of s, lower-cased: runs of letters and
// digits, split at camelCase humps; each ideograph (Han, kana, Hangul) is a
// word of its own. Words longer than maxWordBytes are skipped. fn must not
// keep the slice. scanWords returns buf (grown) for reuse.
func scanWords(s string, buf []byte, fn func(word []byte)) []byte {
	emit := func() {
		if len(buf) > 0 && len(buf) <= maxWordBytes {
			fn(buf)
		}
		buf = buf[:0]
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiClass[c] == classNone {
				i++
				continue
			}
		} else {
			r, w := utf8.DecodeRuneInString(s[i:])
			if !isWordRune(r) {
				i += w
				continue
			}
			if isIdeograph(r) {
				buf = utf8.AppendRune(buf[:0], unicode.ToLower(r))
				emit()
				i += w
				continue
			}
		}
		buf = buf[:0]
		prevLower := false
		for i < len(s) {
			if c := s[i]; c < utf8.RuneSelf {
				cl := asciiClass[c]
				if cl == classNone {
					break
				}
				if cl == classUpper {
					if prevLower {
						emit()
					}
					c += 'a' - 'A'
				}
				prevLower = cl == classLower
				buf = append(buf, c)
				i++
				continue
			}
			r, w := utf8.DecodeRuneInString(s[i:])
			if !isWordRune(r) || isIdeograph(r) {
				break
			}
			upper := unicode.IsUpper(r)
			if upper && prevLower {
				emit()
			}
			prevLower = unicode.IsLower(r)
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
			i += w
		}
		emit()
	}
	return buf
}

// Classes of ASCII bytes for scanWords.
const (
	classNone uint8 = iota
	classLower
	classUpper
	classDigit
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = classLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = classUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = classDigit
	}
	return t
}()

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isIdeograph(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// stem strips English inflections from a lower-case ASCII word in place
// (plural -s/-es/-ies, -ing, -ed, a final -e), so that "messages" and
// "message", "required" and "require", "errors" and "error" meet. Words with
// digits or non-ASCII letters are returned unchanged.
func stem(w []byte) []byte {
	for _, c := range w {
		if c >= utf8.RuneSelf || '0' <= c && c <= '9' {
			return w
		}
	}
	n := len(w)
	switch {
	case n > 4 && hasSuffix(w, "ies"):
		w[n-3] = 'y'
		w = w[:n-2]
	case n > 4 && hasSuffix(w, "sses"):
		w = w[:n-2]
	case n > 3 && w[n-1] == 's' && !strings.ContainsRune("siu", rune(w[n-2])):
		w = w[:n-1]
	}
	n = len(w)
	stripped := false
	switch {
	case n > 5 && hasSuffix(w, "ing") && hasVowel(w[:n-3]):
		w, stripped = w[:n-3], true
	case n > 4 && hasSuffix(w, "ed") && w[n-3] != 'e' && hasVowel(w[:n-2]):
		w, stripped = w[:n-2], true
	}
	n = len(w)
	if stripped && n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouslz", rune(w[n-1])) {
		w = w[:n-1]
	}
	if n = len(w); n > 4 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
}

func hasSuffix(w []byte, suffix string) bool {
	return len(w) >= len(suffix) && string(w[len(w)-len(suffix):]) == suffix
}

func hasVowel(w []byte) bool {
	for _, c := range w {
		if strings.IndexByte("aeiouy", c) >= 0 {
			return true
		}
	}
	return false
}

// stopWords are query words too common to search for.
var stopWords = toSet(`a about above after again all also am an and any are as at be because been
before being below between both but by can could did do does doing done each else etc every
few find for from get gets give given had has have having he her here hers him his how i if in
into is it its just let list me more most my no nor not of off on once only or other our out over
own please return returned same shall she should show showed showing shown shows so some such
than that the their them then there these they this those through to too under until up upon us
very was we were what when where which while who whom whose why will with would you your`)

// synonymGroups are small sets of words that mean nearly the same in web
// pages, logs and APIs; a query word also matches the others of its groups,
// at synonymWeight.
var synonymGroups = []string{
	"error err alert warning warn invalid fail failed failure exception danger fatal",
	"message msg notice notification toast banner feedback",
	"user username account customer",
	"button btn",
	"link href anchor url",
	"image img picture photo",
	"price cost amount",
	"login signin logon",
	"password passwd pwd",
	"email mail",
	"title heading headline",
	"form input field",
	"delete remove",
	"required mandatory",
	"success successful succeeded",
	"hidden invisible",
	"timestamp date time",
	"navigation nav menu",
	"cookie consent",
}

// synonyms maps a stem to the stems of its synonyms.
var synonyms = buildSynonyms(synonymGroups)

func buildSynonyms(groups []string) map[string][]string {
	m := make(map[string][]string)
	for _, g := range groups {
		var stems []string
		for _, w := range strings.Fields(g) {
			if st := string(stem([]byte(w))); !slices.Contains(stems, st) {
				stems = append(stems, st)
			}
		}
		for _, a := range stems {
			for _, b := range stems {
				if a != b && !slices.Contains(m[a], b) {
					m[a] = append(m[a], b)
				}
			}
		}
	}
	return m
}

func toSet(words string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// segment cuts text into candidate spans (byte offsets, trimmed of
// surrounding whitespace): its lines; a line longer than maxSpanChars is cut
// between HTML tags, then after sentences and statements, then packed from
// comma- and space-separated pieces, then cut hard. A line holding only an
// opening tag is joined with the following lines up to the first closing tag,
// so a multi-line element is one span.
func segment(text string) []span {
	units := make([]span, 0, len(text)/48+1)
	for ls := 0; ls < len(text); {
		le, next := len(text), len(text)
		if i := strings.IndexByte(text[ls:], '\n'); i >= 0 {
			le, next = ls+i, ls+i+1
		}
		units = appendPiece(units, text, ls, le, 0)
		ls = next
	}
	return joinOpenTags(text, units)
}

// appendPiece appends [s, e) of text, trimmed, as one span if it fits, or
// cut at the given level and beyond if it does not.
func appendPiece(units []span, text string, s, e, level int) []span {
	s, e = trimSpan(text, s, e)
	if s >= e {
		return units
	}
	if fits(text[s:e]) {
		return append(units, span{s, e})
	}
	return splitLong(units, text, s, e, level)
}

func splitLong(units []span, text string, s, e, level int) []span {
	switch level {
	case 0, 1:
		cuts := cutPoints(text, s, e, level)
		if len(cuts) == 0 {
			return splitLong(units, text, s, e, level+1)
		}
		prev := s
		for _, c := range append(cuts, e) {
			units = appendPiece(units, text, prev, c, level+1)
			prev = c
		}
		return units
	case 2:
		cuts := cutPoints(text, s, e, level)
		if len(cuts) == 0 {
			return hardSplit(units, text, s, e)
		}
		cuts = append(cuts, e)
		// Character offset of each cut, relative to s.
		chars := make([]int, len(cuts))
		prev, r := s, 0
		for i, c := range cuts {
			r += utf8.RuneCountInString(text[prev:c])
			chars[i], prev = r, c
		}
		start, startChars, lastFit := s, 0, -1
		for i := 0; i < len(cuts); i++ {
			if chars[i]-startChars <= maxSpanChars {
				lastFit = i
				continue
			}
			if lastFit >= 0 && cuts[lastFit] > start {
				units = appendPiece(units, text, start, cuts[lastFit], 3)
				start, startChars = cuts[lastFit], chars[lastFit]
				lastFit = -1
				i-- // reconsider this cut from the new start
				continue
			}
			units = hardSplit(units, text, start, cuts[i])
			start, startChars, lastFit = cuts[i], chars[i], -1
		}
		if start < e {
			units = appendPiece(units, text, start, e, 3)
		}
		return units
	default:
		return hardSplit(units, text, s, e)
	}
}

// cutPoints returns the byte offsets in (s, e) where a long line may be cut
// at a level: 0 between HTML tags; 1 after a sentence or statement; 2 after
// a comma and before a space.
func cutPoints(text string, s, e, level int) []int {
	var cuts []int
	for i := s; i < e-1; i++ {
		c := text[i]
		switch level {
		case 0:
			if c == '>' {
				j := i + 1
				for j < e && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r') {
					j++
				}
				if j < e && text[j] == '<' {
					cuts = append(cuts, i+1)
				}
			}
		case 1:
			switch c {
			case ';', '}':
				cuts = append(cuts, i+1)
			case '.', '!', '?':
				if n := text[i+1]; n == ' ' || n == '\t' || n == '\r' {
					cuts = append(cuts, i+1)
				}
			}
		case 2:
			switch c {
			case ',':
				cuts = append(cuts, i+1)
			case ' ', '\t':
				if i > s {
					cuts = append(cuts, i)
				}
			}
		}
	}
	return cuts
}

// hardSplit appends [s, e) cut every maxSpanChars characters.
func hardSplit(units []span, text string, s, e int) []span {
	start, n := s, 0
	for i := range text[s:e] {
		if n == maxSpanChars {
			units = appendTrimmed(units, text, start, s+i)
			start, n = s+i, 0
		}
		n++
	}
	return appendTrimmed(units, text, start, e)
}

func appendTrimmed(units []span, text string, s, e int) []span {
	if s, e = trimSpan(text, s, e); s < e {
		units = append(units, span{s, e})
	}
	return units
}

func trimSpan(text string, s, e int) (int, int) {
	for s < e && isSpace(text[s]) {
		s++
	}
	for e > s && isSpace(text[e-1]) {
		e--
	}
	return s, e
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'
}

func fits(t string) bool {
	return len(t) <= maxSpanChars || utf8.RuneCountInString(t) <= maxSpanChars
}

// joinOpenTags joins each span that holds a lone opening tag with the spans
// after it, up to and including the first that holds a closing tag, as long
// as the result fits; units is rewritten in place.
func joinOpenTags(text string, units []span) []span {
	out := units[:0]
	for i := 0; i < len(units); i++ {
		u := units[i]
		if loneOpenTag(text[u.start:u.end]) {
			end, j, closed := u.end, i+1, false
			for j < len(units) && j-i <= maxJoinedUnits && fits(text[u.start:units[j].end]) {
				end = units[j].end
				j++
				if strings.Contains(text[units[j-1].start:units[j-1].end], "</") {
					closed = true
					break
				}
			}
			if closed {
				out = append(out, span{u.start, end})
				i = j - 1
				continue
			}
		}
		out = append(out, u)
	}
	return out
}

// voidElements never have a closing tag.
var voidElements = toSet("area base br col embed hr img input link meta param source track wbr")

// loneOpenTag reports whether t is exactly one opening tag of an element
// that has content, like `<div class="error">`.
func loneOpenTag(t string) bool {
	if len(t) < 3 || t[0] != '<' || t[len(t)-1] != '>' || t[len(t)-2] == '/' || strings.IndexByte(t[1:], '<') >= 0 {
		return false
	}
	end := 1
	for end < len(t) && (t[end] >= 'a' && t[end] <= 'z' || t[end] >= 'A' && t[end] <= 'Z' || t[end] >= '0' && t[end] <= '9' || t[end] == '-') {
		end++
	}
	if end == 1 {
		return false // "</x>", "<!-- -->", "<!doctype>"
	}
	return !voidElements[strings.ToLower(t[1:end])]
}
