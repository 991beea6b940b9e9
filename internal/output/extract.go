package output

import (
	"cmp"
	"container/list"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Reduce tuning.
const (
	// mergeGap is the largest gap, in characters, between two snippets that
	// are merged into one span; whitespace-only gaps up to mergeSpaceGap are
	// merged too (indentation between two lines of HTML).
	mergeGap      = 3
	mergeSpaceGap = 16
	// maxMergedChars bounds the spans built by merging adjacent (not
	// overlapping) snippets, and only snippets of similar scores (the lower
	// at least mergeScoreRatio of the higher) are merged that way, so that a
	// weak match never rides on a strong neighbour.
	maxMergedChars  = 800
	mergeScoreRatio = 0.75
	// scoreFloor drops snippets scoring below this fraction of the best one.
	scoreFloor = 0.3
	// snippetBudgetShare is the share of the inline threshold the snippets'
	// text may use; the rest is left for provenance fields and encoding.
	snippetBudgetShare = 0.75
	// relocateLimit bounds the occurrences examined when relocating a snippet.
	relocateLimit = 1000
)

// Extractor finds the passages of one chunk that answer a query. It returns
// snippets whose Start and End are character offsets relative to the chunk;
// the Store verifies each one against the source, relocates it when only its
// offsets are wrong, and drops it when its text is not verbatim in the chunk.
// ExtractChunk is called concurrently for different chunks.
type Extractor interface {
	// ID names the extractor and its version, e.g. "local@1"; it is part of
	// the result cache key, so it must change when results would.
	ID() string
	ExtractChunk(ctx context.Context, query string, chunk Chunk) ([]Snippet, error)
}

// ChunkSizer is implemented by extractors that want their own chunk size in
// characters, such as one backed by a model with a large context window.
type ChunkSizer interface {
	ChunkChars() int
}

// Chunk is a piece of a stored output handed to an Extractor.
type Chunk struct {
	Index int    // position among the chunks, from 0
	Start int    // character offset of Text in the source
	Text  string // the chunk's content, verbatim
}

// Snippet is a verbatim passage of a stored output: Text equals the source's
// characters [Start, End).
type Snippet struct {
	Text       string  `json:"text"`
	Start      int     `json:"start"`
	End        int     `json:"end"`
	ChunkIndex int     `json:"chunk_index"`
	Score      float64 `json:"score"`
	// Repeats counts other places where the same text matched; they are not
	// returned separately (slice with the text as anchor and a match_index
	// to see them).
	Repeats int `json:"repeats,omitempty"`
}

// ExtractRequest asks for the passages of an output that answer Query.
type ExtractRequest struct {
	Query string `json:"query"`
	// MaxSnippets bounds the snippets returned (20, at most 100).
	MaxSnippets int `json:"max_snippets,omitempty"`
}

// ExtractResult is the answer to an ExtractRequest, with provenance: every
// snippet equals the source's characters [Start, End), and SourceSHA256 is
// the hash of that source.
type ExtractResult struct {
	ID       string    `json:"id"`
	Query    string    `json:"query"`
	Snippets []Snippet `json:"snippets"` // in source order
	// SourceSHA256 and SourceChars describe the stored output searched.
	SourceSHA256 string `json:"source_sha256"`
	SourceChars  int    `json:"source_chars"`
	// ChunksSearched of ChunksTotal chunks were searched.
	ChunksSearched int `json:"chunks_searched"`
	ChunksTotal    int `json:"chunks_total"`
	// Confidence in [0, 1] derives from the snippets' scores (0 when none).
	Confidence float64 `json:"confidence"`
	// NoMatchReason says what was searched when nothing matched.
	NoMatchReason string `json:"no_match_reason,omitempty"`
	// Extractor is the id@version of the extractor that answered.
	Extractor string `json:"extractor"`
	// Fallback says why the local extractor answered when the configured
	// one failed.
	Fallback string `json:"fallback,omitempty"`
	// Dropped counts snippets the extractor returned that were not verbatim
	// in the source.
	Dropped int `json:"dropped"`
	// Cached is true when the result came from the cache.
	Cached bool `json:"cached"`
}

// Extract searches the output stored under id for passages answering
// req.Query: the output is cut in chunks with 5 % overlap, the configured
// extractor maps over them in parallel (at most Options.Parallelism at once),
// and a deterministic reduce removes duplicates and contained snippets,
// merges overlapping and adjacent ones, keeps the best under the inline
// budget and returns them in source order. If the configured extractor fails,
// the local extractor answers the whole request and ExtractResult.Fallback
// says why. Results are cached by (source SHA-256, query, extractor id,
// MaxSnippets). Extract blocks until done or ctx ends.
func (s *Store) Extract(ctx context.Context, id string, req ExtractRequest) (ExtractResult, error) {
	query := strings.TrimSpace(req.Query)
	if query == "" {
		return ExtractResult{}, fmt.Errorf(`%w: mode "extract" needs a query saying what to look for, e.g. query:"error messages shown to the user"`, ErrBadRequest)
	}
	if n := utf8.RuneCountInString(query); n > MaxQueryChars {
		return ExtractResult{}, fmt.Errorf("%w: query is %d chars, the limit is %d", ErrBadRequest, n, MaxQueryChars)
	}
	maxSnippets := req.MaxSnippets
	if maxSnippets < 0 {
		return ExtractResult{}, fmt.Errorf("%w: max_snippets %d is negative", ErrBadRequest, maxSnippets)
	}
	if maxSnippets == 0 {
		maxSnippets = DefaultMaxSnippets
	}
	maxSnippets = min(maxSnippets, MaxSnippetsLimit)

	e, err := s.get(id)
	if err != nil {
		return ExtractResult{}, err
	}
	ex := s.opts.Extractor
	key := cacheKey{sha: e.handle.SHA256, query: query, extractor: ex.ID(), maxSnippets: maxSnippets}
	if r, ok := s.cache.get(key); ok {
		r.ID, r.Cached = id, true
		return r, nil
	}

	res, err := s.extract(ctx, e, ex, query, maxSnippets)
	if err != nil {
		if ctx.Err() != nil || ex.ID() == s.local.ID() {
			return ExtractResult{}, fmt.Errorf("extracting from output %q: %w", id, err)
		}
		fb, ferr := s.extract(ctx, e, s.local, query, maxSnippets)
		if ferr != nil {
			return ExtractResult{}, fmt.Errorf("extracting from output %q with the local extractor after %v: %w", id, err, ferr)
		}
		// Not cached: the configured extractor may work next time.
		fb.Fallback = fmt.Sprintf("the %s extractor failed (%v); the local extractor answered instead", ex.ID(), err)
		fb.ID = id
		return fb, nil
	}
	s.cache.put(key, res)
	res.ID = id
	return res, nil
}

// extract runs the map-reduce of Extract with ex, without the cache.
func (s *Store) extract(ctx context.Context, e *entry, ex Extractor, query string, maxSnippets int) (ExtractResult, error) {
	size := s.opts.ChunkChars
	if cs, ok := ex.(ChunkSizer); ok && cs.ChunkChars() > 0 {
		size = max(cs.ChunkChars(), minChunkChars)
	}
	spans := chunkSpans(e.idx.n, size)
	perChunk, dropped, err := s.mapChunks(ctx, e, ex, query, spans)
	if err != nil {
		return ExtractResult{}, err
	}
	var all []Snippet
	for _, sn := range perChunk {
		all = append(all, sn...)
	}
	verified := len(all)
	best := 0.0
	for _, sn := range all {
		best = max(best, sn.Score)
	}
	all = slices.DeleteFunc(all, func(sn Snippet) bool { return sn.Score < best*scoreFloor })
	merged := reduceSnippets(e, all)
	budget := int(float64(s.opts.InlineTokens) * snippetBudgetShare)
	kept := s.selectSnippets(e, merged, maxSnippets, budget)

	res := ExtractResult{
		Query:          query,
		Snippets:       kept,
		SourceSHA256:   e.handle.SHA256,
		SourceChars:    e.idx.n,
		ChunksSearched: len(spans),
		ChunksTotal:    len(spans),
		Confidence:     confidence(kept, verified, dropped),
		Extractor:      ex.ID(),
		Dropped:        dropped,
	}
	if len(kept) == 0 {
		what := fmt.Sprintf("the query %q", query)
		if qd, ok := ex.(interface{ describeQuery(string) string }); ok {
			what = qd.describeQuery(query)
		}
		res.NoMatchReason = fmt.Sprintf("nothing in the %d chars (%d chunks) matched %s; try other words, or mode \"slice\" with an anchor", e.idx.n, len(spans), what)
		if dropped > 0 {
			res.NoMatchReason += fmt.Sprintf("; %d snippets returned by %s were not verbatim in the source and were dropped", dropped, ex.ID())
		}
	}
	return res, nil
}

// span is a half-open range [start, end) of characters or bytes.
type span struct{ start, end int }

// chunkSpans cuts n characters into chunks of size characters, each
// overlapping the previous one by 5 % of size, covering [0, n). Empty
// content still has one (empty) chunk.
func chunkSpans(n, size int) []span {
	overlap := size * 5 / 100
	var out []span
	for start := 0; ; start = out[len(out)-1].end - overlap {
		end := min(start+size, n)
		out = append(out, span{start, end})
		if end >= n {
			return out
		}
	}
}

// mapChunks runs ex over every chunk, at most Options.Parallelism at once,
// and returns the verified snippets of each chunk (absolute offsets) and the
// number dropped. The first error cancels the remaining chunks.
func (s *Store) mapChunks(ctx context.Context, e *entry, ex Extractor, query string, spans []span) ([][]Snippet, int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([][]Snippet, len(spans))
	drops := make([]int, len(spans))
	var (
		next     atomic.Int64
		errOnce  sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		cancel()
	}
	for range min(s.opts.Parallelism, len(spans)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(spans) || ctx.Err() != nil {
					return
				}
				c := Chunk{
					Index: i,
					Start: spans[i].start,
					Text:  e.content[e.idx.byteAt(e.content, spans[i].start):e.idx.byteAt(e.content, spans[i].end)],
				}
				snips, err := callExtractor(ctx, ex, query, c)
				if err != nil {
					fail(fmt.Errorf("chunk %d: %w", i, err))
					return
				}
				results[i], drops[i] = verify(e, c, spans[i].end-spans[i].start, snips)
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, 0, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	dropped := 0
	for _, d := range drops {
		dropped += d
	}
	return results, dropped, nil
}

// callExtractor calls ex, turning a panic into an error: a buggy extractor
// must not take the daemon down.
func callExtractor(ctx context.Context, ex Extractor, query string, c Chunk) (snips []Snippet, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("extractor %s panicked: %v", ex.ID(), p)
		}
	}()
	return ex.ExtractChunk(ctx, query, c)
}

// verify checks each snippet of chunk c against the source: its text must
// equal the source at its offsets; when it does not but the text occurs
// verbatim in the chunk, the snippet is moved to the occurrence nearest its
// claimed start; otherwise it is dropped. It returns the verified snippets
// with absolute offsets and the number dropped.
func verify(e *entry, c Chunk, chunkChars int, snips []Snippet) ([]Snippet, int) {
	out := make([]Snippet, 0, len(snips))
	dropped := 0
	for _, sn := range snips {
		if sn.Text == "" {
			dropped++
			continue
		}
		start, ok := -1, false
		if sn.Start >= 0 && sn.Start < sn.End && sn.End <= chunkChars {
			bs := e.idx.byteAt(e.content, c.Start+sn.Start)
			be := e.idx.byteAt(e.content, c.Start+sn.End)
			if e.content[bs:be] == sn.Text {
				start, ok = sn.Start, true
			}
		}
		if !ok {
			start, ok = relocate(c.Text, sn.Text, sn.Start)
		}
		if !ok {
			dropped++
			continue
		}
		n := utf8.RuneCountInString(sn.Text)
		bs := e.idx.byteAt(e.content, c.Start+start)
		score := sn.Score
		if math.IsNaN(score) {
			score = 0
		}
		out = append(out, Snippet{
			Text:       e.content[bs : bs+len(sn.Text)],
			Start:      c.Start + start,
			End:        c.Start + start + n,
			ChunkIndex: c.Index,
			Score:      min(max(score, 0), 1),
		})
	}
	return out, dropped
}

// relocate returns the character offset in text of the occurrence of needle
// nearest to the character offset near.
func relocate(text, needle string, near int) (int, bool) {
	best, found := 0, false
	b, r := 0, 0 // byte and character offset of the scan position
	for range relocateLimit {
		i := strings.Index(text[b:], needle)
		if i < 0 {
			break
		}
		r += utf8.RuneCountInString(text[b : b+i])
		b += i
		if !found || abs(r-near) < abs(best-near) {
			best, found = r, true
		}
		if r > near {
			break // later occurrences are farther still
		}
		_, w := utf8.DecodeRuneInString(text[b:])
		b += w
		r++
	}
	return best, found
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// reduceSnippets removes duplicate and contained snippets and merges
// overlapping and adjacent ones into single verbatim spans. The result is in
// source order.
func reduceSnippets(e *entry, snips []Snippet) []Snippet {
	if len(snips) == 0 {
		return nil
	}
	sorted := slices.Clone(snips)
	slices.SortStableFunc(sorted, func(a, b Snippet) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(b.End, a.End), cmp.Compare(b.Score, a.Score))
	})
	out := []Snippet{sorted[0]}
	for _, sn := range sorted[1:] {
		cur := &out[len(out)-1]
		switch {
		case sn.End <= cur.End: // duplicate or contained
			cur.Score = max(cur.Score, sn.Score)
		case sn.Start < cur.End || mergeable(e, *cur, sn):
			cur.End = sn.End
			cur.Score = max(cur.Score, sn.Score)
			cur.Text = "" // rebuilt below
		default:
			out = append(out, sn)
		}
	}
	for i := range out {
		if out[i].Text == "" {
			out[i].Text = e.content[e.idx.byteAt(e.content, out[i].Start):e.idx.byteAt(e.content, out[i].End)]
		}
	}
	return out
}

// mergeable reports whether b, which starts at or after a's end, is close
// enough to a to be merged into one span of reasonable length.
func mergeable(e *entry, a, b Snippet) bool {
	gap := b.Start - a.End
	if gap > mergeSpaceGap || b.End-a.Start > maxMergedChars || min(a.Score, b.Score) < mergeScoreRatio*max(a.Score, b.Score) {
		return false
	}
	if gap <= mergeGap {
		return true
	}
	between := e.content[e.idx.byteAt(e.content, a.End):e.idx.byteAt(e.content, b.Start)]
	return strings.TrimSpace(between) == ""
}

// selectSnippets keeps the best-scoring snippets, at most maxSnippets and
// budget estimated tokens of text, and returns them in source order with
// their text copied out of the source. A text already kept is not kept again:
// the kept snippet counts it in Repeats.
func (s *Store) selectSnippets(e *entry, snips []Snippet, maxSnippets, budget int) []Snippet {
	kept := make([]Snippet, 0, min(len(snips), maxSnippets))
	if len(snips) == 0 {
		return kept
	}
	ranked := slices.Clone(snips)
	slices.SortStableFunc(ranked, func(a, b Snippet) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Start, b.Start))
	})
	floor := ranked[0].Score * scoreFloor
	used := 0
	byText := make(map[string]int) // text → index in kept
	for _, sn := range ranked {
		if sn.Score < floor {
			break
		}
		if i, ok := byText[sn.Text]; ok {
			kept[i].Repeats++
			continue
		}
		if len(kept) == maxSnippets {
			continue // still counting repeats of the kept texts
		}
		t := s.tokens(sn.Text, sn.End-sn.Start)
		if used+t > budget {
			if len(kept) > 0 {
				continue
			}
			// The best snippet alone is over budget: keep its head.
			n := max((sn.End-sn.Start)*budget/max(t, 1)*9/10, 1)
			sn.End = sn.Start + n
			sn.Text = e.content[e.idx.byteAt(e.content, sn.Start):e.idx.byteAt(e.content, sn.End)]
			t = s.tokens(sn.Text, n)
		}
		used += t
		byText[sn.Text] = len(kept)
		kept = append(kept, sn)
	}
	slices.SortFunc(kept, func(a, b Snippet) int { return cmp.Compare(a.Start, b.Start) })
	for i := range kept {
		kept[i].Text = strings.Clone(kept[i].Text) // never pin the source
	}
	return kept
}

// confidence derives a value in [0, 1] from the kept snippets' scores,
// discounted by the share of snippets that failed verification.
func confidence(kept []Snippet, verified, dropped int) float64 {
	if len(kept) == 0 {
		return 0
	}
	best, sum := 0.0, 0.0
	for _, sn := range kept {
		best = max(best, sn.Score)
		sum += sn.Score
	}
	c := 0.7*best + 0.3*sum/float64(len(kept))
	if dropped > 0 {
		c *= float64(verified) / float64(verified+dropped)
	}
	return math.Round(min(max(c, 0), 1)*1000) / 1000
}

// cacheKey identifies an extraction result.
type cacheKey struct {
	sha         string
	query       string
	extractor   string
	maxSnippets int
}

// resultCache is a bounded LRU cache of extraction results, safe for
// concurrent use. Cached results own their snippet texts (copies), so they
// never pin stored outputs.
type resultCache struct {
	mu    sync.Mutex
	max   int
	items map[cacheKey]*list.Element // of *cacheItem; guarded by mu
	lru   *list.List                 // guarded by mu
	hits  int64                      // guarded by mu
}

type cacheItem struct {
	key cacheKey
	res ExtractResult
}

func newResultCache(n int) *resultCache {
	return &resultCache{max: n, items: make(map[cacheKey]*list.Element), lru: list.New()}
}

func (c *resultCache) get(k cacheKey) (ExtractResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return ExtractResult{}, false
	}
	c.lru.MoveToFront(el)
	c.hits++
	r := el.Value.(*cacheItem).res
	r.Snippets = slices.Clone(r.Snippets)
	return r, true
}

func (c *resultCache) put(k cacheKey, r ExtractResult) {
	r.Snippets = slices.Clone(r.Snippets)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		el.Value.(*cacheItem).res = r
		c.lru.MoveToFront(el)
		return
	}
	c.items[k] = c.lru.PushFront(&cacheItem{key: k, res: r})
	for c.lru.Len() > c.max {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.items, old.Value.(*cacheItem).key)
	}
}

func (c *resultCache) stats() (entries int, hits int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.hits
}

// clear empties the cache (benchmarks use it to measure uncached work).
func (c *resultCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.items)
	c.lru.Init()
}
