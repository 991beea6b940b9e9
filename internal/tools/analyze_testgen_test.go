package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/gasoline-mcp/gasoline/internal/output"
	"github.com/gasoline-mcp/gasoline/internal/result"
	"github.com/rs/zerolog"
)

// budgetTest is the budget of a typical analyze test answer (a login: six
// steps, a request, a redirect, the text that appeared), in characters of
// the text an agent reads.
const budgetTest = 2600

// recordLogin ingests a user's login on tab 7 after an earlier page and a
// load the login's submit caused, as the extension posts them.
func recordLogin(t *testing.T, capt *capture.Store) {
	t.Helper()
	at := time.Now().Add(-time.Minute)
	ts := func(ms int) int64 { return at.Add(time.Duration(ms) * time.Millisecond).UnixMilli() }
	body := fmt.Sprintf(`{"events":[
		{"kind":"nav","ts":%d,"tab_id":7,"page_url":"http://x/old","type":"load","to":"http://x/old"},
		{"kind":"action","ts":%d,"tab_id":7,"page_url":"http://x/old","type":"click","selector":"a","locator":{"by":"role","role":"link","name":"Old"}},
		{"kind":"nav","ts":%d,"tab_id":7,"page_url":"http://x/login","type":"load","to":"http://x/login"},
		{"kind":"action","ts":%d,"tab_id":7,"page_url":"http://x/login","type":"input","selector":"#user","name":"User","value":"ada","locator":{"by":"label","name":"User"}},
		{"kind":"action","ts":%d,"tab_id":7,"page_url":"http://x/login","type":"input","selector":"#pw","name":"Password","value":"[redacted]","locator":{"by":"label","name":"Password"}},
		{"kind":"action","ts":%d,"tab_id":7,"page_url":"http://x/login","type":"click","selector":"form > button","role":"button","name":"Sign in","locator":{"by":"testid","attr":"data-testid","value":"sign-in"}},
		{"kind":"network","ts":%d,"tab_id":7,"page_url":"http://x/login","request_id":"1","method":"POST","url":"http://x/api/login","status":200,"resource_type":"fetch","source":"page"},
		{"kind":"nav","ts":%d,"tab_id":7,"page_url":"http://x/home","type":"load","to":"http://x/home"},
		{"kind":"action","ts":%d,"tab_id":7,"page_url":"http://x/home","type":"appeared","selector":"html","text":"Welcome, Ada\nYou have 3 new messages"}
	]}`, ts(0), ts(20000), ts(40000), ts(41000), ts(42000), ts(43000), ts(43100), ts(43500), ts(43800))
	if _, err := capt.IngestJSON([]byte(body)); err != nil {
		t.Fatal(err)
	}
}

// TestAnalyzeTest generates the test of a recorded login through the tool:
// the window starts at the last load no action caused, the password is an
// environment variable, and the answer fits its budget.
func TestAnalyzeTest(t *testing.T) {
	capt := capture.New(capture.Options{})
	t.Cleanup(capt.Close)
	recordLogin(t, capt)
	e := newEnv(t, func(d *Deps) {
		d.Capture = capt
		d.Results = result.NewKeeper(d.Tracker, output.New(output.Options{}), zerolog.Nop())
	})
	r := e.call(t, "agent", "analyze", `{"what":"test","tab_id":7}`)
	if r.IsError {
		t.Fatalf("got error %s", r.Text)
	}
	var v struct {
		File  string `json:"file"`
		Since uint64 `json:"since"`
		Steps []struct {
			Source uint64 `json:"source"`
		} `json:"steps"`
		Assertions []struct {
			Evidence string `json:"evidence"`
		} `json:"assertions"`
		Secrets []struct {
			Env string `json:"env"`
		} `json:"secrets"`
		Verified string `json:"verified"`
	}
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"page.goto('http://x/login')", "getByLabel('User', { exact: true }).fill('ada')",
		"fill(process.env.GASOLINE_SECRET_1 ?? '')", "getByTestId('sign-in').click()", "toBe(200)", "toHaveURL('http://x/home')",
		"await expect(page.getByText('Welcome, Ada', { exact: false })).toBeVisible();"} {
		if !strings.Contains(v.File, want) {
			t.Errorf("the file lacks %s:\n%s", want, v.File)
		}
	}
	if strings.Contains(v.File, "old") || len(v.Steps) != 4 || v.Since != 2 {
		t.Errorf("got since %d and %d steps, want the window after the load by hand (since 2, 4 steps):\n%s", v.Since, len(v.Steps), v.File)
	}
	if len(v.Secrets) != 1 || !strings.Contains(v.Verified, "verify:true") {
		t.Errorf("got secrets %+v, verified %q", v.Secrets, v.Verified)
	}
	check(t, "analyze test (a login)", r.Text, budgetTest)
	t.Logf("analyze test (a login): ~%d estimated tokens", (len(r.Text)+3)/4)

	none := e.call(t, "agent", "analyze", `{"what":"test","tab_id":9}`)
	if !none.IsError || !strings.Contains(none.Text, "no recorded action") {
		t.Errorf("a tab without actions: got %s", none.Text)
	}
}

// TestTestHandleID: two agents generating a test of the same tab and window
// store it under two ids, so neither replaces nor takes the other's.
func TestTestHandleID(t *testing.T) {
	a, b := testHandleID("agent-a", 7, 3), testHandleID("agent-b", 7, 3)
	if a == b {
		t.Errorf("two clients share the stored test id %s", a)
	}
	if a != testHandleID("agent-a", 7, 3) || !strings.HasPrefix(a, "test-7-3-") {
		t.Errorf("id %s is not stable, or does not name tab and cursor", a)
	}
}

// TestLastLoadByHandIgnoresAppeared: the text a page showed on arriving
// or after an agent's action ("appeared", "agent_appeared" records) is
// not an action, so a load typed in a moment later still starts the
// window.
func TestLastLoadByHandIgnoresAppeared(t *testing.T) {
	capt := capture.New(capture.Options{})
	t.Cleanup(capt.Close)
	at := time.Now().Add(-time.Minute).UnixMilli()
	body := fmt.Sprintf(`{"events":[
		{"kind":"nav","ts":%d,"tab_id":7,"page_url":"http://x/a","type":"load","to":"http://x/a"},
		{"kind":"action","ts":%d,"tab_id":7,"page_url":"http://x/a","type":"appeared","selector":"html","text":"Page A"},
		{"kind":"action","ts":%d,"tab_id":7,"page_url":"http://x/a","type":"agent_appeared","selector":"#more","text":"More of A"},
		{"kind":"nav","ts":%d,"tab_id":7,"page_url":"http://x/b","type":"load","to":"http://x/b"},
		{"kind":"action","ts":%d,"tab_id":7,"page_url":"http://x/b","type":"click","selector":"#go"}
	]}`, at, at+300, at+1500, at+2000, at+3000)
	if _, err := capt.IngestJSON([]byte(body)); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(d *Deps) {
		d.Capture = capt
		d.Results = result.NewKeeper(d.Tracker, output.New(output.Options{}), zerolog.Nop())
	})
	r := e.call(t, "agent", "analyze", `{"what":"test","tab_id":7}`)
	var v struct {
		Since uint64 `json:"since"`
		File  string `json:"file"`
	}
	if err := json.Unmarshal(r.Body, &v); err != nil || r.IsError {
		t.Fatalf("got %s (%v)", r.Text, err)
	}
	if v.Since != 3 || !strings.Contains(v.File, "page.goto('http://x/b')") {
		t.Errorf("got since %d, want 3 (just before the load of /b):\n%s", v.Since, v.File)
	}
}

// TestLastLoadByHandLateAction: the click that submitted a form can reach
// the daemon after the load it caused; that load is still its doing.
func TestLastLoadByHandLateAction(t *testing.T) {
	capt := capture.New(capture.Options{})
	t.Cleanup(capt.Close)
	at := time.Now().Add(-time.Minute).UnixMilli()
	body := fmt.Sprintf(`{"events":[
		{"kind":"nav","ts":%d,"tab_id":7,"page_url":"http://x/login","type":"load","to":"http://x/login"},
		{"kind":"nav","ts":%d,"tab_id":7,"page_url":"http://x/home","type":"load","to":"http://x/home"},
		{"kind":"action","ts":%d,"tab_id":7,"page_url":"http://x/login","type":"click","selector":"#sign-in"}
	]}`, at, at+2000, at+1900)
	if _, err := capt.IngestJSON([]byte(body)); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(d *Deps) {
		d.Capture = capt
		d.Results = result.NewKeeper(d.Tracker, output.New(output.Options{}), zerolog.Nop())
	})
	r := e.call(t, "agent", "analyze", `{"what":"test","tab_id":7}`)
	var v struct {
		Since uint64 `json:"since"`
		File  string `json:"file"`
	}
	if err := json.Unmarshal(r.Body, &v); err != nil || r.IsError {
		t.Fatalf("got %s (%v)", r.Text, err)
	}
	if v.Since != 0 || !strings.Contains(v.File, "page.goto('http://x/login')") {
		t.Errorf("got since %d, want 0 (the load of /home was the click's):\n%s", v.Since, v.File)
	}
}

// TestAnalyzeTestWaitMS: without wait_ms a tab with no recorded action yet
// is no_actions at once; with it, the call waits for the user's first
// action and writes its test, and gives up with no_actions at its end.
func TestAnalyzeTestWaitMS(t *testing.T) {
	waiting := make(chan struct{}, 1)
	capt := capture.New(capture.Options{OnWait: func() {
		select {
		case waiting <- struct{}{}:
		default:
		}
	}})
	t.Cleanup(capt.Close)
	ingest := func(body string) {
		t.Helper()
		if _, err := capt.IngestJSON([]byte(body)); err != nil {
			t.Error(err)
		}
	}
	now := time.Now().UnixMilli()
	ingest(fmt.Sprintf(`{"events":[{"kind":"nav","ts":%d,"tab_id":9,"page_url":"http://x/a","type":"load","to":"http://x/a"}]}`, now))
	e := newEnv(t, func(d *Deps) { d.Capture = capt })
	if r := e.call(t, "agent", "analyze", `{"what":"test","tab_id":9}`); !r.IsError || !strings.Contains(r.Text, "no recorded action") {
		t.Fatalf("no action, no wait: got %s, want no_actions", r.Text)
	}
	start := time.Now()
	if r := e.call(t, "agent", "analyze", `{"what":"test","tab_id":9,"wait_ms":300}`); !r.IsError || !strings.Contains(r.Text, "no recorded action") {
		t.Fatalf("no action within wait_ms: got %s, want no_actions", r.Text)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("wait_ms 300 answered after %v, want at least 300 ms", d)
	}
	select {
	case <-waiting: // the wait_ms 300 call's
	default:
	}
	go func() {
		select {
		case <-waiting: // the call below waits for an action
		case <-time.After(10 * time.Second):
			t.Error("the analyze call never waited for an action")
		}
		ingest(fmt.Sprintf(`{"events":[{"kind":"action","ts":%d,"tab_id":9,"page_url":"http://x/a","type":"click","selector":"#go","role":"button","name":"Go","locator":{"by":"role","role":"button","name":"Go"}}]}`, now+1))
	}()
	r := e.call(t, "agent", "analyze", `{"what":"test","tab_id":9,"wait_ms":20000}`)
	if r.IsError || !strings.Contains(r.Text, `getByRole('button', { name: 'Go', exact: true }).click()`) {
		t.Fatalf("an action came within wait_ms: got %s, want its test", r.Text)
	}
}
