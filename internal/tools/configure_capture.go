package tools

import (
	"context"
	"fmt"
	"slices"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
)

// captureActions shape what the capture buffers keep and show: noise rules
// (hide entries when reading), clear (delete entries) and the capture
// settings the extension applies. None is idempotent: a replayed add,
// clear or change could undo what happened in between.
func captureActions() []action {
	return []action{
		handler("configure", "noise_rule", "hide matches from reads", (*Tools).noiseRule),
		handler("configure", "clear", "delete entries", (*Tools).clear),
		handler("configure", "capture", "", (*Tools).captureSettings),
	}
}

// kindsByName maps the kind names configure accepts, the observe modes'
// and the entries' own, to the kinds they cover: "actions" covers the
// navigations observe actions shows with them.
var kindsByName = map[string][]capture.Kind{
	"logs": {capture.KindLog}, "log": {capture.KindLog},
	"errors": {capture.KindError}, "error": {capture.KindError},
	"network": {capture.KindNetwork},
	"actions": {capture.KindAction, capture.KindNav}, "action": {capture.KindAction},
	"nav":    {capture.KindNav},
	"vitals": {capture.KindVital}, "vital": {capture.KindVital},
}

// kindsOf returns the kinds name covers: every kind for "".
func kindsOf(name string) ([]capture.Kind, error) {
	if name == "" {
		return capture.Kinds, nil
	}
	ks, ok := kindsByName[name]
	if !ok {
		return nil, mcp.Errorf("invalid_arguments", "use logs, errors, network, actions (with navigations), vitals, or one of log, error, action, nav, vital",
			"unknown kind %q", name)
	}
	return ks, nil
}

type noiseArgs struct {
	Kind    string `json:"kind"`
	Level   string `json:"level"`
	URL     string `json:"url"`
	Message string `json:"message"`
	Remove  string `json:"remove"`
}

// noiseView is noise_rule's answer: what changed, and the rules now.
type noiseView struct {
	Added   []capture.NoiseRule `json:"added,omitempty"`
	Removed string              `json:"removed,omitempty"`
	Rules   []capture.NoiseRule `json:"rules"`
	Hint    string              `json:"hint,omitempty"`
}

// noiseRule adds a rule (one per kind the kind name covers), removes one,
// or only lists them. An add that fails part-way removes the rules it made.
func (t *Tools) noiseRule(_ context.Context, _ string, a noiseArgs) (*noiseView, error) {
	st := t.d.Capture
	adding := a.Kind != "" || a.Level != "" || a.URL != "" || a.Message != ""
	v := &noiseView{}
	switch {
	case a.Remove != "" && adding:
		return nil, mcp.Errorf("invalid_arguments", "remove a rule in one call and add one in another",
			"pass either remove or the criteria of a rule to add, not both")
	case a.Remove != "":
		if err := st.RemoveNoiseRule(a.Remove); err != nil {
			return nil, captureError(err)
		}
		v.Removed = a.Remove
	case adding:
		kinds := []capture.Kind{""}
		if a.Kind != "" {
			var err error
			if kinds, err = kindsOf(a.Kind); err != nil {
				return nil, err
			}
		}
		before := st.NoiseRules()
		for _, k := range kinds {
			r, err := st.AddNoiseRule(capture.NoiseRule{Kind: k, Level: a.Level, URL: a.URL, Message: a.Message})
			if err != nil {
				for _, made := range v.Added {
					if !slices.Contains(before, made) {
						st.RemoveNoiseRule(made.ID)
					}
				}
				return nil, captureError(err)
			}
			v.Added = append(v.Added, r)
		}
		v.Hint = "matching entries are hidden from reads, not deleted; remove the rule to see them again"
	}
	v.Rules = fitRules(st.NoiseRules())
	return v, nil
}

// ruleClip is how much of a rule's url and message a list that would not
// fit the page budget shows of each.
const ruleClip = 100

// fitRules returns rules, with long urls and messages clipped when the list
// would not fit the page budget whole (100 rules of the longest patterns
// would take ~40 000 tokens).
func fitRules(rules []capture.NoiseRule) []capture.NoiseRule {
	if len(encode(rules)) <= inlineBodyBytes {
		return rules
	}
	out := slices.Clone(rules)
	for i := range out {
		out[i].URL, out[i].Message = clipped(out[i].URL), clipped(out[i].Message)
	}
	return out
}

func clipped(s string) string {
	r := []rune(s)
	if len(r) <= ruleClip {
		return s
	}
	return fmt.Sprintf("%s…[clipped: %d chars in full]", string(r[:ruleClip]), len(r))
}

type clearArgs struct {
	Kind  string `json:"kind"`
	TabID *int64 `json:"tab_id"`
}

// clearView is clear's answer.
type clearView struct {
	Removed int            `json:"removed"`
	Kinds   []capture.Kind `json:"kinds"`
	TabID   *int64         `json:"tab_id,omitempty"`
}

// clear deletes the buffered entries of a kind (every kind when none) and a
// tab (every tab when none).
func (t *Tools) clear(_ context.Context, _ string, a clearArgs) (*clearView, error) {
	kinds, err := kindsOf(a.Kind)
	if err != nil {
		return nil, err
	}
	v := &clearView{Kinds: kinds, TabID: a.TabID}
	for _, k := range kinds {
		n, err := t.d.Capture.Clear(k, a.TabID)
		if err != nil {
			return nil, captureError(err)
		}
		v.Removed += n
	}
	return v, nil
}

type captureArgs struct {
	Redact  *bool  `json:"redact"`
	BodyCap *int   `json:"body_cap"`
	Kind    string `json:"kind"`
	On      *bool  `json:"on"`
}

func (a captureArgs) check() error {
	if (a.Kind == "") != (a.On == nil) {
		return mcp.Errorf("invalid_arguments", `e.g. configure({action:"capture", kind:"network", on:false})`,
			"kind and on go together: the kind to switch, and on:true or on:false")
	}
	return nil
}

// captureView is capture's answer: the settings now.
type captureView struct {
	apitype.CaptureConfig
	Hint    string `json:"hint,omitempty"`
	Warning string `json:"warning,omitempty"`
}

// captureSettings changes the capture settings, or only reads them when
// given nothing.
func (t *Tools) captureSettings(_ context.Context, _ string, a captureArgs) (*captureView, error) {
	if a.Redact == nil && a.BodyCap == nil && a.Kind == "" {
		return &captureView{CaptureConfig: t.d.Capture.Config()}, nil
	}
	u := capture.Settings{RedactHeaders: a.Redact, BodyCap: a.BodyCap}
	if a.Kind != "" {
		kinds, err := kindsOf(a.Kind)
		if err != nil {
			return nil, err
		}
		u.Kinds = map[capture.Kind]bool{}
		for _, k := range kinds {
			u.Kinds[k] = *a.On
		}
	}
	before := t.d.Capture.Config().Version
	cfg, err := t.d.Capture.Configure(u)
	if err != nil {
		return nil, captureError(err)
	}
	v := &captureView{CaptureConfig: cfg}
	if cfg.Version != before {
		v.Hint = "the extension applies the change from its next batch of events; entries already buffered keep what they were captured with"
	}
	if !cfg.RedactHeaders {
		v.Warning = "credential headers (Authorization, Cookie, API keys, tokens) are captured in clear; turn redaction back on with redact:true"
	}
	return v, nil
}
