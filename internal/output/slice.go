package output

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SliceRequest selects characters of a stored output: either Start+Length,
// or the MatchIndex-th occurrence of Anchor with Window characters around it.
// Neither Start nor Anchor means Start 0.
type SliceRequest struct {
	// Start is the first character (0-based); nil when Anchor is used.
	Start *int `json:"start,omitempty"`
	// Length is the number of characters from Start (2000).
	Length int `json:"length,omitempty"`
	// Anchor is a plain, case-sensitive string to find.
	Anchor string `json:"anchor,omitempty"`
	// Window is the number of characters returned around the anchor (2000):
	// a quarter of the room left by the anchor before it, the rest after it.
	Window int `json:"window,omitempty"`
	// MatchIndex picks among the anchor's occurrences: 0 is the first, and
	// negative values count from the end (-1 is the last).
	MatchIndex int `json:"match_index,omitempty"`
}

// SliceResult is a verbatim slice of a stored output with its provenance:
// Text equals the source's characters [Start, End).
type SliceResult struct {
	ID         string `json:"id"`
	Text       string `json:"text"`
	Start      int    `json:"start"`
	End        int    `json:"end"`
	TotalChars int    `json:"total_chars"`
	// Matches is the anchor's number of (non-overlapping) occurrences and
	// MatchIndex the one returned; both are 0 for Start+Length slices.
	Matches    int `json:"matches"`
	MatchIndex int `json:"match_index"`
	// Clamped is true when Length or Window was reduced to keep the slice
	// under the inline threshold.
	Clamped      bool   `json:"clamped,omitempty"`
	SourceSHA256 string `json:"source_sha256"`
}

// Slice returns characters of the output stored under id, as req selects.
// Lengths and windows are clamped so the slice stays under the inline
// threshold (SliceResult.Clamped says so); a slice running past the end stops
// at the end. An absent anchor, or a MatchIndex beyond its occurrences, gives
// an error wrapping ErrAnchorNotFound that states how many there are.
func (s *Store) Slice(id string, req SliceRequest) (SliceResult, error) {
	e, err := s.get(id)
	if err != nil {
		return SliceResult{}, err
	}
	res := SliceResult{ID: id, TotalChars: e.idx.n, SourceSHA256: e.handle.SHA256}
	limit := s.opts.InlineTokens * 4
	// Stored content is valid UTF-8 (invalid bytes became U+FFFD), so the
	// anchor is matched the same way: a stray byte must not match the middle
	// of a character and yield offsets that split it.
	req.Anchor = strings.ToValidUTF8(req.Anchor, "\uFFFD")

	var start, end int
	switch {
	case req.Start != nil && req.Anchor != "":
		return SliceResult{}, fmt.Errorf("%w: give either start+length or anchor+window, not both", ErrBadRequest)
	case req.Anchor != "":
		start, end, err = s.anchorSpan(e, req, limit, &res)
		if err != nil {
			return SliceResult{}, err
		}
	default:
		start = 0
		if req.Start != nil {
			start = *req.Start
		}
		if start < 0 {
			return SliceResult{}, fmt.Errorf("%w: start %d is negative; offsets count characters from 0", ErrBadRequest, start)
		}
		if start > e.idx.n {
			return SliceResult{}, fmt.Errorf("%w: start %d is past the end of output %q (%d chars); use a start below %d", ErrBadRequest, start, id, e.idx.n, e.idx.n)
		}
		length := req.Length
		if length < 0 {
			return SliceResult{}, fmt.Errorf("%w: length %d is negative", ErrBadRequest, length)
		}
		if length == 0 {
			length = DefaultSliceChars
		}
		if length > limit {
			length, res.Clamped = limit, true
		}
		end = min(start+length, e.idx.n)
	}

	bs, be := e.idx.byteAt(e.content, start), e.idx.byteAt(e.content, end)
	if s.opts.Tokenizer != nil {
		// A configured tokenizer may count more than chars/4: shrink until
		// the slice fits.
		for i := 0; i < 16 && end > start; i++ {
			t := s.opts.Tokenizer(e.content[bs:be])
			if t <= s.opts.InlineTokens {
				break
			}
			end = start + max((end-start)*s.opts.InlineTokens/t*9/10, 1)
			if i == 15 {
				end = start
			}
			be = e.idx.byteAt(e.content, end)
			res.Clamped = true
		}
	}
	res.Start, res.End = start, end
	res.Text = strings.Clone(e.content[bs:be])
	return res, nil
}

// anchorSpan locates the requested occurrence of req.Anchor and returns the
// window around it, filling res.Matches, res.MatchIndex and res.Clamped.
func (s *Store) anchorSpan(e *entry, req SliceRequest, limit int, res *SliceResult) (start, end int, err error) {
	anchorChars := utf8.RuneCountInString(req.Anchor)
	if anchorChars > limit {
		return 0, 0, fmt.Errorf("%w: anchor is %d chars, longer than the %d-char slice limit", ErrBadRequest, anchorChars, limit)
	}
	window := req.Window
	if window < 0 {
		return 0, 0, fmt.Errorf("%w: window %d is negative", ErrBadRequest, window)
	}
	if window == 0 {
		window = DefaultSliceChars
	}
	window = max(window, anchorChars)
	if window > limit {
		window, res.Clamped = limit, true
	}

	matches := strings.Count(e.content, req.Anchor)
	if matches == 0 {
		return 0, 0, fmt.Errorf("%w: %q does not occur in output %q (%d chars); anchors are exact, case-sensitive strings: try a shorter one, or mode \"extract\" with a query",
			ErrAnchorNotFound, req.Anchor, e.id, e.idx.n)
	}
	k := req.MatchIndex
	if k < 0 {
		k += matches
	}
	if k < 0 || k >= matches {
		return 0, 0, fmt.Errorf("%w: match_index %d is past the last match: %q occurs %d times in output %q (match_index 0 to %d, or -1 for the last)",
			ErrAnchorNotFound, req.MatchIndex, req.Anchor, matches, e.id, matches-1)
	}
	b := -len(req.Anchor)
	for range k + 1 {
		b += len(req.Anchor)
		b += strings.Index(e.content[b:], req.Anchor)
	}
	at := e.idx.runeAt(e.content, b)

	start = max(at-(window-anchorChars)/4, 0)
	end = min(start+window, e.idx.n)
	start = max(end-window, 0)
	res.Matches, res.MatchIndex = matches, k
	return start, end, nil
}
