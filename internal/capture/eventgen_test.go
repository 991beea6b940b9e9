package capture

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
)

// TestEventFiles fails while a file generated from the capture event table
// (extension/capture/fields.js, fields_gen.go) is stale.
func TestEventFiles(t *testing.T) {
	files, err := EventFiles()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range files {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("reading %s: %v (run make generate)", path, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: the capture event table (apitype.EventSpecs) or apitype.Event changed; run make generate (go generate ./internal/capture) and commit it", filepath.Clean(filepath.Join("internal", "capture", path)))
		}
	}
}

// TestEventSpecsMatchEvent checks that the table declares every field of
// apitype.Event, with a type its Go field can hold, and only the kinds the
// store knows.
func TestEventSpecsMatchEvent(t *testing.T) {
	if err := checkTable(apitype.EventSpecs); err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, f := range apitype.CommonFields {
		declared[f.Name] = true
	}
	for _, s := range apitype.EventSpecs {
		if s.Kind != "tab" && Kind(s.Kind).index() < 0 {
			t.Errorf("the table's kind %q is not one of capture.Kinds", s.Kind)
		}
		for _, f := range s.Fields {
			declared[f.Name] = true
		}
	}
	for name := range jsonFields(reflect.TypeFor[apitype.Event]()) {
		if !declared[name] {
			t.Errorf("apitype.Event's %q is in no kind of the capture event table (apitype.EventSpecs): declare it there", name)
		}
	}
	for _, k := range Kinds {
		if !slices.Contains(apitype.EventKinds(), string(k)) {
			t.Errorf("kind %q is not in the capture event table", k)
		}
	}
}

// copySpecs returns a deep copy of apitype.EventSpecs.
func copySpecs() []apitype.EventSpec {
	out := slices.Clone(apitype.EventSpecs)
	for i := range out {
		out[i].Fields = slices.Clone(out[i].Fields)
		for j := range out[i].Fields {
			out[i].Fields[j].Enum = slices.Clone(out[i].Fields[j].Enum)
		}
	}
	return out
}

// field returns the field name of kind in specs.
func specField(t *testing.T, specs []apitype.EventSpec, kind, name string) *apitype.EventField {
	t.Helper()
	for i := range specs {
		if specs[i].Kind == kind {
			for j := range specs[i].Fields {
				if specs[i].Fields[j].Name == name {
					return &specs[i].Fields[j]
				}
			}
		}
	}
	t.Fatalf("the table has no %s.%s", kind, name)
	return nil
}

// TestValidatorFollowsTheTable changes a copy of the table and checks the
// validator's rules change with it.
func TestValidatorFollowsTheTable(t *testing.T) {
	specs := copySpecs()
	level := specField(t, specs, "log", "level")
	level.Enum = append(level.Enum, "trace")
	specField(t, specs, "log", "stack").Need = apitype.Required
	mods := specField(t, specs, "action", "modifiers")
	mods.Enum = append(mods.Enum, "Fn")
	specField(t, specs, "action", "key").For = "click"
	rules, err := compileRules(specs)
	if err != nil {
		t.Fatal(err)
	}
	cfg := settings{redact: true, secrets: NewSecrets(nil), bodyCap: 100}
	trace := apitype.Event{Kind: "log", TS: 1, Level: "trace", Message: "m", Stack: "at f"}
	noStack := apitype.Event{Kind: "log", TS: 1, Level: "log", Message: "m"}
	fn := apitype.Event{Kind: "action", TS: 1, Type: "click", Selector: "#a", Key: "Enter", Modifiers: []string{"Fn"}}
	click := apitype.Event{Kind: "action", TS: 1, Type: "click", Selector: "#a"}
	keydown := apitype.Event{Kind: "action", TS: 1, Type: "keydown", Selector: "#a"}
	for _, c := range []struct {
		name       string
		rules      *fieldRules
		ev         apitype.Event
		wantReason string
	}{
		{"a level the copy adds", &rules, trace, ""},
		{"a level the table lacks", &tableRules, trace, `level "trace" is not one of`},
		{"a field the copy requires", &rules, noStack, "stack is required"},
		{"a field the table leaves optional", &tableRules, noStack, ""},
		{"a modifier the copy adds", &rules, fn, ""},
		{"a modifier the table lacks", &tableRules, fn, `modifiers: "Fn" is not one of`},
		{"a field the copy needs in a click", &rules, click, "key is required: one of Enter"},
		{"a field the table needs in a keydown only", &tableRules, click, ""},
		{"a field the copy no longer needs in a keydown", &rules, keydown, ""},
		{"a field the table needs in a keydown", &tableRules, keydown, "key is required: one of Enter"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, r := validateBy(c.rules, &c.ev, cfg, 1)
			if c.wantReason == "" && r != "" || !strings.Contains(string(r), c.wantReason) {
				t.Errorf("got rejection %q, want %q", r, c.wantReason)
			}
		})
	}
}

// TestDecoderFollowsTheTable checks that the decoder generated from a
// changed copy of the table changes with it, and that a field the table
// declares but apitype.Event lacks stops the generator with what to do.
func TestDecoderFollowsTheTable(t *testing.T) {
	specs := copySpecs()
	specField(t, specs, "log", "message").Type = apitype.FieldEnum
	src, err := renderFieldsGo(specs)
	if err != nil {
		t.Fatal(err)
	}
	if want := "return p.shared(&e.Message, nil)"; !bytes.Contains(src, []byte(want)) {
		t.Errorf("a message made an enum: the generated decoder lacks %q", want)
	}
	orig, err := renderFieldsGo(apitype.EventSpecs)
	if err != nil {
		t.Fatal(err)
	}
	if want := "return p.strInto(&e.Message)"; !bytes.Contains(orig, []byte(want)) {
		t.Errorf("the table's decoder lacks %q", want)
	}

	specs = copySpecs()
	specs[0].Fields = append(specs[0].Fields, apitype.EventField{Name: "severity", Type: apitype.FieldStr, Clip: 10, Keep: 10})
	if _, err := renderFieldsGo(specs); err == nil || !strings.Contains(err.Error(), `"severity" is not a field of apitype.Event`) {
		t.Errorf("a field apitype.Event lacks: got %v, want an error naming it", err)
	}
	if _, err := compileRules(specs); err == nil {
		t.Error("compileRules took a field apitype.Event lacks")
	}
}

// TestFastDecodeReadsEveryField gives every field of apitype.Event a value
// and checks the fast decoder reads each as encoding/json does.
func TestFastDecodeReadsEveryField(t *testing.T) {
	var ev apitype.Event
	v := reflect.ValueOf(&ev).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Interface().(type) {
		case string:
			f.SetString("v" + v.Type().Field(i).Name)
		case int64:
			f.SetInt(int64(i + 1))
		case float64:
			f.SetFloat(float64(i) + 0.5)
		case bool:
			f.SetBool(true)
		case *bool:
			f.Set(reflect.ValueOf(ptrTo(true)))
		case *string:
			f.Set(reflect.ValueOf(ptrTo("p" + v.Type().Field(i).Name)))
		case apitype.Scalar:
			f.Set(reflect.ValueOf(apitype.Num(float64(i))))
		case map[string]string:
			f.Set(reflect.ValueOf(map[string]string{"h": "x"}))
		case []string:
			f.Set(reflect.ValueOf([]string{"Shift"}))
		case *apitype.Locator:
			f.Set(reflect.ValueOf(&apitype.Locator{By: "testid", Attr: "a", Value: "v", Role: "r", Name: "n", Selector: "s"}))
		default:
			t.Fatalf("the test cannot fill apitype.Event.%s, a %s: teach it", v.Type().Field(i).Name, f.Type())
		}
	}
	body, err := json.Marshal(apitype.EventBatch{Events: []apitype.Event{ev}})
	if err != nil {
		t.Fatal(err)
	}
	var evs []apitype.Event
	got, ok := fastDecode(body, &evs)
	if !ok {
		t.Fatalf("fast decode refused %s", body)
	}
	if !reflect.DeepEqual(got.Events, []apitype.Event{ev}) {
		t.Errorf("got %#v, want %#v", got.Events[0], ev)
	}
}

// TestSwitchesMatchTheConfig checks that the kinds with a capture switch in
// the table (those fields.js's SWITCHES lists) are the capture config's.
func TestSwitchesMatchTheConfig(t *testing.T) {
	var want []string
	for _, s := range apitype.EventSpecs {
		if s.SwitchedBy == "" && !s.BrowserOnly {
			want = append(want, s.Kind)
		}
		if s.SwitchedBy != "" && Kind(s.SwitchedBy).index() < 0 {
			t.Errorf("%s is switched by %q, not a kind", s.Kind, s.SwitchedBy)
		}
	}
	var got []string
	for k := range New(Options{}).Config().Kinds {
		got = append(got, k)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got config kinds %v, want the table's switches %v", got, want)
	}
}
