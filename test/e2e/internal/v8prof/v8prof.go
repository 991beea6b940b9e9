// Package v8prof reads the profiles V8's sampling profiler returns over the
// DevTools protocol (Profiler.stop) and charges each sample's time to a
// label the caller gives a frame: the benches' way to say where a page's or
// the extension worker's JavaScript time goes.
package v8prof

import (
	"context"
	"fmt"
	"time"
)

// CallFrame is a profile node's function: its name, its script's URL ("" for
// a builtin or one of V8's root buckets such as "(program)") and its
// zero-based line.
type CallFrame struct {
	FunctionName string `json:"functionName"`
	URL          string `json:"url"`
	LineNumber   int    `json:"lineNumber"`
}

// Profile is Profiler.stop's profile, reduced to what charging needs.
type Profile struct {
	Nodes []struct {
		ID        int       `json:"id"`
		CallFrame CallFrame `json:"callFrame"`
		Children  []int     `json:"children"`
	} `json:"nodes"`
	StartTime  float64 `json:"startTime"` // µs
	EndTime    float64 `json:"endTime"`
	Samples    []int   `json:"samples"`
	TimeDeltas []int   `json:"timeDeltas"` // µs
}

// Caller is what Start and Stop need of a DevTools session: one attached to
// a page or a worker target.
type Caller interface {
	Call(ctx context.Context, method string, params, result any) error
}

// Start turns the profiler on in the target of s, sampling every interval.
func Start(ctx context.Context, s Caller, interval time.Duration) error {
	for _, c := range []struct {
		method string
		params any
	}{
		{"Profiler.enable", nil},
		{"Profiler.setSamplingInterval", map[string]any{"interval": interval.Microseconds()}},
		{"Profiler.start", nil},
	} {
		if err := s.Call(ctx, c.method, c.params, nil); err != nil {
			return fmt.Errorf("%s: %w", c.method, err)
		}
	}
	return nil
}

// Stop turns the profiler off in the target of s and returns its profile.
func Stop(ctx context.Context, s Caller) (Profile, error) {
	var r struct {
		Profile Profile `json:"profile"`
	}
	if err := s.Call(ctx, "Profiler.stop", nil, &r); err != nil {
		return Profile{}, fmt.Errorf("Profiler.stop: %w", err)
	}
	return r.Profile, nil
}

// Charge returns the time of the profile's samples by label: each sample
// goes to the label of the innermost frame on its stack that label names
// (label returns "" for a frame it leaves to its caller), or to rest when
// none does.
func (p Profile) Charge(label func(CallFrame) string, rest string) map[string]time.Duration {
	parent := map[int]int{}
	labels := map[int]string{}
	for _, n := range p.Nodes {
		for _, c := range n.Children {
			parent[c] = n.ID
		}
		if l := label(n.CallFrame); l != "" {
			labels[n.ID] = l
		}
	}
	out := map[string]time.Duration{}
	for i, id := range p.Samples {
		// A sample's delta is the time since the previous one; charge the
		// time to the sample that follows it (V8's convention).
		d := time.Duration(0)
		if i+1 < len(p.TimeDeltas) {
			d = time.Duration(p.TimeDeltas[i+1]) * time.Microsecond
		}
		l := rest
		for n, ok := id, true; ok; n, ok = parent[n] {
			if s, found := labels[n]; found {
				l = s
				break
			}
		}
		out[l] += d
	}
	return out
}
