package daemon_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/daemon"
	"github.com/gasoline-mcp/gasoline/internal/harness"
	"github.com/gasoline-mcp/gasoline/pkg/tracker"
)

// bigPage is about 2 MB of HTML with a form and user-facing error messages
// deep inside it.
func bigPage() string {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>Shop — checkout ünïcødé ✓</title></head><body>\n")
	for i := range 18000 {
		fmt.Fprintf(&b, "<div class=\"item\" data-i=\"%d\"><span>Product %d — a fine thing 🚲</span><span class=\"price\">%d.99</span></div>\n", i, i, i%97)
		if i == 12000 {
			b.WriteString("<form id=\"checkout\" action=\"/pay\">\n<input name=\"email\">\n<div class=\"error\">Email is required</div>\n")
			b.WriteString("<p class=\"alert\">Your card was declined. Try another payment method.</p>\n</form>\n")
		}
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

func runes(s string, start, end int) string { return string([]rune(s)[start:end]) }

func TestLargeOutput(t *testing.T) {
	// Long enough that the subtests below read the result before its
	// retention ends, even on a busy machine; the last one waits it out.
	d := harness.StartDaemon(t, daemon.Options{Tracker: tracker.Options{ResultTTL: 5 * time.Second}})
	page := bigPage()
	if len(page) < 2<<20-200_000 {
		t.Fatalf("page is %d bytes, want about 2 MB", len(page))
	}
	sum := sha256.Sum256([]byte(page))
	ext := d.Extension("ext-1")
	// A long deadline: posting 2 MB under the race detector on a busy
	// machine can take seconds.
	id := d.Submit(t, "agent", "document.documentElement.outerHTML", map[string]any{"timeout_ms": 120000})
	ext.Running(t, id)
	if got := ext.Report(t, id, "complete", map[string]any{"value": page, "tab_id": 4, "url": "http://127.0.0.1/shop"}, ""); got != 200 {
		t.Fatalf("report: got %d", got)
	}

	t.Run("handle", func(t *testing.T) {
		msg := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": "observe", "arguments": map[string]any{"what": "command_result", "correlation_id": id}}}
		code, body := d.Post(t, "/mcp", map[string]string{"X-Gasoline-Client": "agent"}, msg)
		if code != 200 || len(body) > 8000 { // text + structuredContent: < 1000 tokens each
			t.Fatalf("got HTTP %d with %d bytes, want a small handle", code, len(body))
		}
		res := d.Result(t, "agent", id, 0)
		out, _ := harness.Field(res, "result", "output").(map[string]any)
		if res["status"] != "complete" || harness.Field(res, "result", "stored") != true || out == nil {
			t.Fatalf("got %v, want a stored handle", res)
		}
		if got := out["chars"]; got != float64(len([]rune(page))) {
			t.Errorf("got chars %v, want %d", got, len([]rune(page)))
		}
		if got := out["sha256"]; got != hex.EncodeToString(sum[:]) {
			t.Errorf("got sha256 %v, want the page's", got)
		}
		if harness.Field(res, "result", "meta", "url") != "http://127.0.0.1/shop" || out["preview"] == "" || res["message"] == nil {
			t.Errorf("got %v, want meta url, a preview and a message on how to read it", res)
		}
	})

	t.Run("slice by anchor", func(t *testing.T) {
		res, isErr := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": id, "mode": "slice", "anchor": "<form", "window": 2000})
		if isErr {
			t.Fatalf("got %v", res)
		}
		text := res["text"].(string)
		start, end := int(res["start"].(float64)), int(res["end"].(float64))
		if !strings.Contains(text, "<form id=\"checkout\"") || text != runes(page, start, end) || end-start != 2000 {
			t.Fatalf("slice [%d,%d) is not the verbatim window around <form: %.200q", start, end, text)
		}
		if res["source_sha256"] != hex.EncodeToString(sum[:]) || res["matches"] != float64(1) {
			t.Errorf("got %v, want the source hash and 1 match", res)
		}
	})

	t.Run("slice by offsets", func(t *testing.T) {
		res, _ := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": id, "mode": "slice", "start": 50, "length": 300})
		if res["text"] != runes(page, 50, 350) {
			t.Fatalf("got %v", res)
		}
	})

	t.Run("slice past the last match", func(t *testing.T) {
		res, isErr := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": id, "mode": "slice", "anchor": "<form", "match_index": 3})
		if !isErr || harness.Field(res, "error", "code") != "anchor_not_found" {
			t.Fatalf("got %v, want anchor_not_found", res)
		}
	})

	t.Run("extract", func(t *testing.T) {
		res, isErr := d.Call(t, "agent", "configure", map[string]any{"action": "query_status", "correlation_id": id, "mode": "extract", "query": "all error messages shown to the user"})
		if isErr {
			t.Fatalf("got %v", res)
		}
		snips, _ := res["snippets"].([]any)
		if len(snips) == 0 {
			t.Fatalf("got no snippets: %v", res)
		}
		var all strings.Builder
		for _, s := range snips {
			sm := s.(map[string]any)
			start, end := int(sm["start"].(float64)), int(sm["end"].(float64))
			if sm["text"] != runes(page, start, end) {
				t.Errorf("snippet %q is not source[%d:%d]", sm["text"], start, end)
			}
			all.WriteString(sm["text"].(string))
		}
		if !strings.Contains(all.String(), "Email is required") || !strings.Contains(all.String(), "card was declined") {
			t.Errorf("got %q, want both error messages", all.String())
		}
		if res["source_sha256"] != hex.EncodeToString(sum[:]) || res["chunks_searched"] != res["chunks_total"] {
			t.Errorf("got %v, want the source hash and full coverage", res)
		}
	})

	t.Run("raw is refused with the size", func(t *testing.T) {
		res, isErr := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": id, "mode": "raw"})
		if !isErr || harness.Field(res, "error", "code") != "output_too_large" || !strings.Contains(harness.Field(res, "error", "hint").(string), "slice") {
			t.Fatalf("got %v, want output_too_large naming slice and extract", res)
		}
	})

	t.Run("stored output outlives retention", func(t *testing.T) {
		deadline := time.Now().Add(60 * time.Second)
		for {
			l, _ := d.Call(t, "agent", "observe", map[string]any{"what": "pending_commands"})
			if len(l["completed"].([]any)) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("retention never ended")
			}
			time.Sleep(100 * time.Millisecond)
		}
		res, isErr := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": id, "mode": "slice", "start": 0, "length": 15})
		if isErr || res["text"] != "<!doctype html>" {
			t.Fatalf("got %v, want the slice from the store", res)
		}
	})
}

func TestOutputModesOnSmallAndUnfinished(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	ext := d.Extension("ext-1")
	small := d.Submit(t, "agent", "1", nil)
	running := d.Submit(t, "agent", "2", nil)
	ext.PollUntil(t, 2)
	ext.Report(t, small, "complete", map[string]any{"value": "hello world"}, "")

	res, isErr := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": small, "mode": "raw"})
	if isErr || res["content"] != "hello world" {
		t.Errorf("raw on a small result: got %v", res)
	}
	res, isErr = d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": running, "mode": "slice", "start": 0})
	if !isErr || harness.Field(res, "error", "code") != "no_output" {
		t.Errorf("slice of a running command: got %v, want no_output", res)
	}
	res, isErr = d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": "exec_nope", "mode": "raw"})
	if !isErr || harness.Field(res, "error", "code") != "unknown_correlation_id" {
		t.Errorf("unknown id: got %v, want unknown_correlation_id", res)
	}
	res, isErr = d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": small, "mode": "summarise"})
	if !isErr || harness.Field(res, "error", "code") != "invalid_arguments" {
		t.Errorf("bad mode: got %v, want invalid_arguments", res)
	}
}

func TestOversizeOutputIsTruncatedAndSaysSo(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	ext := d.Extension("ext-1")
	// A long deadline: decoding 11 MB under the race detector on a busy
	// machine can take seconds.
	id := d.Submit(t, "agent", "x", map[string]any{"timeout_ms": 120000})
	ext.Running(t, id)
	huge := strings.Repeat("0123456789abcdef", (11<<20)/16) // 11 MB > the 10 MB per-output cap
	if got := ext.Report(t, id, "complete", map[string]any{"value": huge}, ""); got != 200 {
		t.Fatalf("report: got %d, want 200", got)
	}
	res := d.Result(t, "agent", id, 0)
	out := harness.Field(res, "result", "output").(map[string]any)
	if out["truncated"] != true || out["original_bytes"] != float64(len(huge)) || out["chars"].(float64) > 10<<20 {
		t.Fatalf("got %v, want a truncated handle stating the original size", out)
	}
	done, _ := d.Call(t, "agent", "observe", map[string]any{"what": "pending_commands"})
	if e := done["completed"].([]any); len(e) != 1 || harness.Field(e[0].(map[string]any), "stored") != true ||
		harness.Field(e[0].(map[string]any), "result_chars") != out["chars"] {
		t.Errorf("pending_commands: got %v, want the stored command with its size", done)
	}
	b, _ := json.Marshal(out)
	if len(b) > 4000 {
		t.Errorf("handle is %d bytes, want a small one", len(b))
	}
}

// Regressions found in review: the store and the tracker must agree.

func TestDuplicateCompletePostsKeepHandleAndContentConsistent(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	ext := d.Extension("ext-1")
	// A long deadline: posting 2 MB twice under the race detector on a
	// busy machine can take seconds.
	id := d.Submit(t, "agent", "x", map[string]any{"timeout_ms": 120000})
	ext.Running(t, id)
	a, b := strings.Repeat("A", 2<<20), strings.Repeat("B", 2<<20)
	codes := make(chan int, 2)
	for _, v := range []string{a, b} {
		go func() { codes <- ext.Report(t, id, "complete", map[string]any{"value": v}, "") }()
	}
	got := []int{<-codes, <-codes}
	if got[0]+got[1] != 200+409 {
		t.Fatalf("got %v, want one 200 and one 409", got)
	}
	res := d.Result(t, "agent", id, 0)
	handleSum := harness.Field(res, "result", "output", "sha256")
	sl, _ := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": id, "mode": "slice", "start": 0, "length": 10})
	if sl["source_sha256"] != handleSum {
		t.Fatalf("slice comes from content %v, the handle describes %v", sl["source_sha256"], handleSum)
	}
}

func TestRefusedReportStoresNothing(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{Tracker: tracker.Options{ResultTTL: 200 * time.Millisecond, FailedRingSize: 1}})
	ext := d.Extension("ext-1")
	id := d.Submit(t, "agent", "x", nil)
	ext.PollUntil(t, 1)
	ext.Report(t, id, "pending", nil, "")
	if res, isErr := d.Call(t, "agent", "interact", map[string]any{"action": "cancel", "correlation_id": id}); isErr {
		t.Fatalf("cancel: %v", res)
	}
	if got := ext.Report(t, id, "complete", map[string]any{"value": strings.Repeat("late ", 1<<19)}, ""); got != 409 {
		t.Fatalf("late result: got %d, want 409", got)
	}
	// Push the cancelled command out of the ring and past its retention.
	other := d.Submit(t, "agent", "y", nil)
	d.Call(t, "agent", "interact", map[string]any{"action": "cancel", "correlation_id": other})
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, _ := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": id})
		if harness.Field(res, "error", "code") == "unknown_correlation_id" {
			break // retention is over and the ring has moved on
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cancelled command was never forgotten: %v", res)
		}
	}
	res, isErr := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": id, "mode": "slice", "start": 0})
	if !isErr || harness.Field(res, "error", "code") != "unknown_correlation_id" {
		t.Fatalf("got %v, want unknown_correlation_id: a refused result must not be readable", res)
	}
}

func TestUnreadStoredOutputOutlivesRetention(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{Tracker: tracker.Options{ResultTTL: 200 * time.Millisecond}})
	ext := d.Extension("ext-1")
	id := d.Submit(t, "agent", "x", nil)
	ext.Running(t, id)
	ext.Report(t, id, "complete", map[string]any{"value": "<p>" + strings.Repeat("unread ", 10000) + "</p>"}, "")
	deadline := time.Now().Add(10 * time.Second)
	for {
		f, _ := d.Call(t, "agent", "observe", map[string]any{"what": "failed_commands"})
		if f["count"] == float64(1) {
			break // expired unread, as result_expired
		}
		if time.Now().After(deadline) {
			t.Fatal("result never expired")
		}
		time.Sleep(50 * time.Millisecond)
	}
	res, isErr := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": id, "mode": "slice", "start": 0, "length": 9})
	if isErr || res["text"] != "<p>unread" {
		t.Fatalf("got %v, want the stored output: it lives under the byte budget, not the result clock", res)
	}
}

func TestFailedCommandsStaySmall(t *testing.T) {
	d := harness.StartDaemon(t, daemon.Options{})
	ext := d.Extension("ext-1")
	for range 3 {
		// A long deadline: posting 3 MB under the race detector on a busy
		// machine can take seconds.
		id := d.Submit(t, "agent", "x", map[string]any{"timeout_ms": 120000})
		ext.PollUntil(t, 1)
		ext.Report(t, id, "pending", nil, "")
		big := strings.Repeat("page text ", 300000) // 3 MB
		if got := ext.Report(t, id, "error", map[string]any{"value": big}, "Error: "+big); got != 200 {
			t.Fatalf("report: got %d", got)
		}
	}
	msg := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "observe", "arguments": map[string]any{"what": "failed_commands"}}}
	code, body := d.Post(t, "/mcp", map[string]string{"X-Gasoline-Client": "agent"}, msg)
	if code != 200 || len(body) > 64<<10 {
		t.Fatalf("failed_commands: HTTP %d, %d bytes; want a small answer", code, len(body))
	}
}

// TestInvalidUTF8NeverReachesTheAgent posts results and errors holding
// bytes that are not UTF-8, as a hostile page can make the extension do, and
// checks that the agent's answer is valid UTF-8 in its text and in its
// structuredContent, for inline and stored results alike.
func TestInvalidUTF8NeverReachesTheAgent(t *testing.T) {
	big := strings.Repeat("x", 50000) // stored: above the inline threshold
	tests := []struct {
		name, status, body string
	}{
		{"inline result", "complete", "{\"value\":\"caf\xe9 \xff\xfe\",\"tab_id\":1}"},
		{"stored result", "complete", "{\"value\":\"" + big + "\xff\",\"url\":\"http://x/\xc3\"}"},
		{"error", "error", ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := harness.StartDaemon(t, daemon.Options{})
			id := d.Submit(t, "agent", "x", nil)
			d.Extension("ext-1").Running(t, id)
			post := `{"correlation_id":"` + id + `","status":"` + tt.status + `"`
			if tt.body != "" {
				post += `,"result":` + tt.body
			} else {
				post += ",\"error\":\"Uncaught \xff\xfe\""
			}
			if code, out := d.Post(t, "/query-result", map[string]string{apitype.HeaderExtensionInstance: "ext-1"}, json.RawMessage(post+"}")); code != 200 {
				t.Fatalf("report: got %d %s, want 200", code, out)
			}
			code, out := d.Post(t, "/mcp", map[string]string{apitype.HeaderClient: "agent"}, json.RawMessage(
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"observe","arguments":{"what":"command_result","correlation_id":"`+id+`"}}}`))
			if code != 200 || !utf8.Valid(out) {
				t.Fatalf("command_result: got HTTP %d with invalid UTF-8: %q", code, out)
			}
			if !bytes.Contains(out, []byte("\uFFFD")) {
				t.Errorf("got %s, want the invalid bytes replaced by U+FFFD", out)
			}
		})
	}
}

// TestStringResultsAreStoredAsText posts a large page as a bare JSON
// string and in seed 000's {"success":true,"data":…} envelope, and checks
// that an anchor copied from the page (quotes and "<" included) finds it:
// the store holds the text, not its JSON encoding.
func TestStringResultsAreStoredAsText(t *testing.T) {
	page := bigPage()
	quoted, _ := json.Marshal(page)
	for name, res := range map[string]string{
		"bare string":       string(quoted),
		"seed 000 envelope": `{"success":true,"data":` + string(quoted) + `}`,
	} {
		t.Run(name, func(t *testing.T) {
			d := harness.StartDaemon(t, daemon.Options{})
			id := d.Submit(t, "agent", "document.documentElement.outerHTML", map[string]any{"timeout_ms": 120000})
			ext := d.Extension("ext-1")
			ext.Running(t, id)
			post := `{"correlation_id":"` + id + `","status":"complete","result":` + res + `}`
			if code, out := d.Post(t, "/query-result", map[string]string{apitype.HeaderExtensionInstance: "ext-1"}, json.RawMessage(post)); code != 200 {
				t.Fatalf("report: got %d %s", code, out)
			}
			if got := harness.Field(d.Result(t, "agent", id, 0), "result", "output", "chars"); got != float64(len([]rune(page))) {
				t.Fatalf("stored %v chars, want the page's %d", got, len([]rune(page)))
			}
			res, isErr := d.Call(t, "agent", "observe", map[string]any{"what": "command_result", "correlation_id": id,
				"mode": "slice", "anchor": `<form id="checkout"`, "window": 300})
			if isErr || !strings.Contains(res["text"].(string), "Your card was declined") {
				t.Errorf("slice by an anchor copied from the page: got %v, want the form", res)
			}
		})
	}
}
