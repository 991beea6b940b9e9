package capture

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// maxReportedDrop bounds one batch's reported drop count per kind, so a
// hostile count cannot overflow the counters.
const maxReportedDrop = 1 << 40

// IngestJSON decodes a POST /events body, validates every event and stores
// the good ones (see Ingest). It fails, storing nothing, only when the body
// is not a batch at all (ErrNotBatch, wrapped with the reason) or is too
// large (ErrBatchTooLarge); an event that does not decode or validate is
// rejected alone, with its index and reason in the answer.
func (s *Store) IngestJSON(body []byte) (apitype.EventsAck, error) {
	if len(body) > apitype.MaxEventsBody {
		return apitype.EventsAck{}, fmt.Errorf("%w: the body is %d bytes, over the limit of %d", ErrBatchTooLarge, len(body), apitype.MaxEventsBody)
	}
	evs := eventsPool.Get().(*[]apitype.Event)
	defer func() {
		// The stored entries share only strings with the decoded events.
		clear((*evs)[:cap(*evs)])
		*evs = (*evs)[:0]
		if cap(*evs) <= apitype.MaxEventsPerBatch {
			eventsPool.Put(evs)
		}
	}()
	b, bad, err := decodeBatch(body, evs)
	if err != nil {
		return apitype.EventsAck{}, err
	}
	return s.ingest(b, bad)
}

// eventsPool recycles the event slices batches decode into: an event is
// large, and a batch holds hundreds.
var eventsPool = sync.Pool{New: func() any { return new([]apitype.Event) }}

// decodeBatch decodes body, into *evs (empty) when every event decodes: with
// fastDecode when it can, else with encoding/json. An
// event that does not decode is returned as a rejection and left zero in the
// batch (it is skipped).
func decodeBatch(body []byte, evs *[]apitype.Event) (apitype.EventBatch, map[int]string, error) {
	if b, ok := fastDecode(body, evs); ok {
		return b, nil, countEvents(len(b.Events))
	}
	clear(*evs) // what the fast path decoded before it gave up
	*evs = (*evs)[:0]
	wire := struct {
		BatchID      string                     `json:"batch_id"`
		Dropped      map[string]int64           `json:"dropped"`
		DroppedByTab map[int64]map[string]int64 `json:"dropped_by_tab"`
		Events       *[]apitype.Event           `json:"events"` // decoded into the pooled slice
	}{Events: evs}
	err := json.Unmarshal(body, &wire)
	b := apitype.EventBatch{BatchID: wire.BatchID, Dropped: wire.Dropped, DroppedByTab: wire.DroppedByTab}
	if err == nil {
		if wire.Events == nil || (len(*evs) == 0 && !hasEvents(body)) {
			return b, nil, fmt.Errorf("%w (the events array is missing)", ErrNotBatch)
		}
		b.Events = *evs
		return b, nil, countEvents(len(b.Events))
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return b, nil, fmt.Errorf("%w (invalid JSON at byte %d: %v)", ErrNotBatch, syn.Offset, err)
	}
	// Some event (or "dropped") has a field of the wrong type: decode the
	// events one by one to keep the good ones.
	var raw struct {
		BatchID      json.RawMessage   `json:"batch_id"`
		Dropped      json.RawMessage   `json:"dropped"`
		DroppedByTab json.RawMessage   `json:"dropped_by_tab"`
		Events       []json.RawMessage `json:"events"`
	}
	if err := json.Unmarshal(body, &raw); err != nil || raw.Events == nil {
		return b, nil, fmt.Errorf("%w (the body must be a JSON object with an events array)", ErrNotBatch)
	}
	if err := countEvents(len(raw.Events)); err != nil {
		return b, nil, err
	}
	b = apitype.EventBatch{Events: make([]apitype.Event, len(raw.Events))}
	if len(raw.BatchID) > 0 {
		if err := json.Unmarshal(raw.BatchID, &b.BatchID); err != nil {
			return b, nil, fmt.Errorf("%w (batch_id must be a string such as \"k3v9x2a1.17\")", ErrNotBatch)
		}
	}
	if len(raw.Dropped) > 0 {
		if err := json.Unmarshal(raw.Dropped, &b.Dropped); err != nil {
			return b, nil, fmt.Errorf("%w (dropped must be an object of counts per kind, such as {\"log\": 3})", ErrNotBatch)
		}
	}
	if len(raw.DroppedByTab) > 0 {
		if err := json.Unmarshal(raw.DroppedByTab, &b.DroppedByTab); err != nil {
			return b, nil, fmt.Errorf("%w (dropped_by_tab must be an object of counts per tab id and kind, such as {\"12\": {\"log\": 3}})", ErrNotBatch)
		}
	}
	bad := map[int]string{}
	for i, ev := range raw.Events {
		if err := json.Unmarshal(ev, &b.Events[i]); err != nil {
			b.Events[i] = apitype.Event{}
			bad[i] = "decoding the event: " + decodeReason(err)
		}
	}
	return b, bad, nil
}

// hasEvents reports whether the batch body has an events array: a pooled
// slice left empty cannot tell an empty array from a missing one.
func hasEvents(body []byte) bool {
	var probe struct {
		Events json.RawMessage `json:"events"`
	}
	return json.Unmarshal(body, &probe) == nil && len(probe.Events) > 0 && probe.Events[0] == '['
}

func countEvents(n int) error {
	if n > apitype.MaxEventsPerBatch {
		return fmt.Errorf("%w: %d events, over the limit of %d per batch", ErrBatchTooLarge, n, apitype.MaxEventsPerBatch)
	}
	return nil
}

// decodeReason says which field of an event had the wrong JSON type.
func decodeReason(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := "another type"
		switch te.Type.Kind() {
		case reflect.Int64, reflect.Int:
			want = "an integer"
		case reflect.Float64:
			want = "a number"
		case reflect.String:
			want = "a string"
		case reflect.Bool, reflect.Pointer:
			want = "true or false"
		case reflect.Map:
			want = "an object of strings"
		case reflect.Slice:
			want = "an array of strings"
		case reflect.Struct:
			want = "an object"
			if te.Type == reflect.TypeFor[apitype.Scalar]() {
				want = "a number or a string"
			}
		}
		if te.Field == "" {
			return fmt.Sprintf("an event must be a JSON object, not %s", te.Value)
		}
		return fmt.Sprintf("field %q must be %s, not %s", te.Field, want, te.Value)
	}
	return err.Error()
}

// Ingest validates every event of b and stores the good ones: each log,
// error, network, action, nav and vital event becomes an entry with the next
// sequence number (a network event may instead merge into the entry of its
// other half), each tab event updates the tab table. b.Dropped and
// b.DroppedByTab are added to the kinds' dropped counters, the latter to
// their tabs'. A batch whose BatchID was stored lately changes nothing and
// is answered with Duplicate: the worker posts a batch again when the
// answer to its first post was lost. It returns ErrNotBatch for a BatchID
// over apitype.MaxBatchIDLen, ErrClosed after Close.
func (s *Store) Ingest(b apitype.EventBatch) (apitype.EventsAck, error) {
	if err := countEvents(len(b.Events)); err != nil {
		return apitype.EventsAck{}, err
	}
	return s.ingest(b, nil)
}

func (s *Store) ingest(b apitype.EventBatch, bad map[int]string) (apitype.EventsAck, error) {
	if len(b.BatchID) > apitype.MaxBatchIDLen {
		return apitype.EventsAck{}, fmt.Errorf("%w (batch_id is %d bytes, over the limit of %d)", ErrNotBatch, len(b.BatchID), apitype.MaxBatchIDLen)
	}
	s.mu.Lock()
	cfg := s.cfg
	s.mu.Unlock()
	now := s.now()
	nowMS := now.UnixMilli()

	ack := apitype.EventsAck{Rejected: []apitype.EventRejection{}, DroppedByDaemon: map[string]int64{}}
	rejected := func(i int, reason string) {
		if len(ack.Rejected) < apitype.MaxRejectionsListed {
			ack.Rejected = append(ack.Rejected, apitype.EventRejection{Index: i, Reason: reason})
		}
	}
	// Validation runs outside the lock: it is most of the work.
	good := make([]validated, 0, len(b.Events))
	accepted := 0
	for i := range b.Events {
		if reason, ok := bad[i]; ok {
			rejected(i, reason)
			continue
		}
		v, r := validate(&b.Events[i], cfg, nowMS)
		if r != "" {
			rejected(i, string(r))
			if v.sign != nil {
				good = append(good, v) // learned from, not stored
			}
			continue
		}
		accepted++
		good = append(good, v)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return apitype.EventsAck{}, ErrClosed
	}
	if b.BatchID != "" && !s.batches.add(b.BatchID) {
		return apitype.EventsAck{Rejected: []apitype.EventRejection{}, DroppedByDaemon: map[string]int64{},
			ConfigVersion: s.cfg.version, Duplicate: true}, nil
	}
	for name, n := range b.Dropped {
		if k := kindOf(name); k != "" && n > 0 {
			s.rings[k.index()].reported(nil, min(n, maxReportedDrop))
		}
	}
	for tab, counts := range b.DroppedByTab {
		for name, n := range counts {
			if k := kindOf(name); k != "" && n > 0 {
				s.rings[k.index()].reported(&tab, min(n, maxReportedDrop))
			}
		}
	}
	var evicted [numKinds]int64
	s.merge.prune(now.Add(-s.opts.MergeWindow))
	stored := false
	for _, v := range good {
		if v.sign != nil {
			s.learnLeanLocked(*v.sign)
			continue
		}
		if v.tab != nil {
			s.applyTabLocked(v.tab)
			continue
		}
		stored = true
		s.storeLocked(v.e, now, &evicted)
	}
	ack.Accepted = accepted
	for i, n := range evicted {
		if n > 0 {
			ack.DroppedByDaemon[string(Kinds[i])] = n
		}
	}
	ack.ConfigVersion = s.cfg.version
	if stored {
		s.wakeLocked()
	}
	return ack, nil
}

// storeLocked buffers e, or merges it into the entry of its other half.
// s.mu must be held.
func (s *Store) storeLocked(e *entry, now time.Time, evicted *[numKinds]int64) {
	i := e.kind.index()
	r := s.rings[i]
	gone := func(old *entry) { s.merge.remove(old) }
	if w, ok := e.rec.(*wsRec); ok {
		s.storeWSLocked(e, w, evicted)
		return
	}
	if sign, ok := leanSignOf(e); ok {
		s.learnLeanLocked(sign)
	}
	net, isNet := e.rec.(*netRec)
	if isNet && net.bodyUpdate {
		if s.bodyArrivedLocked(e, net, evicted) {
			return
		}
		c := *net // its pending entry is gone: stored as a request of its own
		c.bodyUpdate = false
		net = &c
		e.rec = net
	}
	if isNet {
		if other := s.merge.take(mergeKey{e.tab, net.method, net.url.s}, net.source); other != nil {
			before := other.size
			other.rec = mergeNet(other.rec.(*netRec), net)
			other.ts = min(other.ts, e.ts)
			other.size = entrySize(other)
			evicted[i] += r.resized(other.size-before, gone)
			s.notePendingLocked(other)
			return
		}
	}
	s.seq++
	e.seq = s.seq
	evicted[i] += r.push(e, gone)
	if isNet && r.n > 0 && r.at(r.n-1) == e {
		s.merge.add(e, net, now)
		s.notePendingLocked(e)
	}
}

// bodyKey names a request whose bodies are still coming.
type bodyKey struct {
	tab       int64
	requestID string
}

// maxPendingBodies bounds Store.pending; past it the oldest ids are
// forgotten (their entries say pending until evicted).
const maxPendingBodies = 4096

// notePendingLocked remembers e when its page half says the bodies are
// still coming. s.mu must be held.
func (s *Store) notePendingLocked(e *entry) {
	net := e.rec.(*netRec)
	if !net.bodyPending || net.requestID == "" {
		return
	}
	if len(s.pending) >= maxPendingBodies {
		for k, p := range s.pending {
			if s.findLocked(p.seq) == nil || len(s.pending) >= maxPendingBodies {
				delete(s.pending, k)
			}
		}
	}
	s.pending[bodyKey{e.tab, net.requestID}] = pendingBody{seq: e.seq, since: s.now()}
}

// pendingBody is an entry whose bodies are still coming, since when.
type pendingBody struct {
	seq   uint64
	since time.Time
}

// bodyArrivedLocked puts the bodies of update (a body_update event) into the
// entry that waits for them and reports whether there was one. s.mu must be
// held.
func (s *Store) bodyArrivedLocked(e *entry, update *netRec, evicted *[numKinds]int64) bool {
	k := bodyKey{e.tab, update.requestID}
	p, ok := s.pending[k]
	if !ok {
		return false
	}
	delete(s.pending, k)
	old := s.findLocked(p.seq)
	if old == nil {
		return false
	}
	prev, ok := old.rec.(*netRec)
	if !ok {
		return false
	}
	m := *prev // records are never modified once stored: replace it
	m.bodyPending = false
	m.reqBody, m.respBody = update.reqBody, update.respBody
	m.reqSize, m.respSize = max(m.reqSize, update.reqSize), max(m.respSize, update.respSize)
	m.truncated = m.truncated || update.truncated
	if m.mimeType == "" {
		m.mimeType = update.mimeType
	}
	before := old.size
	old.rec = &m
	old.size = entrySize(old)
	r := s.rings[KindNetwork.index()]
	evicted[KindNetwork.index()] += r.resized(old.size-before, func(g *entry) { s.merge.remove(g) })
	return true
}
