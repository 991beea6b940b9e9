package output

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

const testKey = "sk-test-0123456789"

// fakeLLM is an OpenAI-compatible chat-completions server: respond decides
// each answer from the call number (from 1), the query and the chunk text.
type fakeLLM struct {
	*httptest.Server
	calls   atomic.Int64
	mu      sync.Mutex
	lastReq *http.Request
	lastRaw []byte
	respond func(call int, query, chunk string) (status int, content string)
}

func newFakeLLM(t *testing.T, respond func(call int, query, chunk string) (int, string)) *fakeLLM {
	t.Helper()
	f := &fakeLLM{respond: respond}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(f.calls.Add(1))
		var req chatRequest
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &req); err != nil || len(req.Messages) != 2 {
			http.Error(w, "bad request body", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.lastReq, f.lastRaw = r, raw
		f.mu.Unlock()
		user := req.Messages[1].Content
		query := strings.TrimPrefix(user[:strings.Index(user, "\n")], "Query: ")
		chunk := user[strings.Index(user, "<<<CHUNK\n")+len("<<<CHUNK\n") : strings.LastIndex(user, "\nCHUNK>>>")]
		status, content := f.respond(n, query, chunk)
		if status != http.StatusOK {
			w.Header().Set("Retry-After", "0")
			http.Error(w, content, status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id":      "chatcmpl-1",
			"object":  "chat.completion",
			"choices": []map[string]any{{"index": 0, "message": map[string]string{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		})
	}))
	t.Cleanup(f.Close)
	return f
}

// snippetsJSON is the model's answer holding the given snippets.
func snippetsJSON(snips ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"snippets": snips})
	return string(b)
}

// at returns the character offsets of text in chunk.
func at(chunk, text string) (int, int) {
	i := strings.Index(chunk, text)
	if i < 0 {
		return -1, -1
	}
	s := utf8.RuneCountInString(chunk[:i])
	return s, s + utf8.RuneCountInString(text)
}

func llmStore(f *fakeLLM, mod func(*LLMConfig)) *Store {
	cfg := LLMConfig{URL: f.URL + "/v1", Model: "mini-test", APIKey: testKey, Backoff: time.Millisecond, Timeout: 5 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	return New(Options{Extractor: NewLLMExtractor(cfg)})
}

func TestLLMExtractorRequestShape(t *testing.T) {
	f := newFakeLLM(t, func(int, string, string) (int, string) { return 200, `{"snippets":[]}` })
	s := llmStore(f, nil)
	mustPut(t, s, "id", loginPage)
	if _, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "error messages"}); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	r, raw := f.lastReq, f.lastRaw
	f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q, want the bearer key", got)
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q", got)
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatal(err)
	}
	if body["model"] != "mini-test" || body["temperature"] != 0.0 {
		t.Errorf("model, temperature = %v, %v; want mini-test, 0", body["model"], body["temperature"])
	}
	if rf, _ := body["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("response_format = %v, want json_object", body["response_format"])
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages = %v, want system + user", body["messages"])
	}
	sys, user := msgs[0].(map[string]any), msgs[1].(map[string]any)
	if sys["role"] != "system" || !strings.Contains(sys["content"].(string), "verbatim") {
		t.Errorf("system message = %v", sys)
	}
	if u := user["content"].(string); user["role"] != "user" || !strings.Contains(u, "error messages") || !strings.Contains(u, "Email is required") {
		t.Errorf("user message does not carry the query and the chunk: %.200q", u)
	}
	if strings.Contains(string(raw), testKey) {
		t.Error("the key is in the request body")
	}
}

func TestLLMExtractorVerifiesSnippets(t *testing.T) {
	f := newFakeLLM(t, func(_ int, _ string, chunk string) (int, string) {
		s1, e1 := at(chunk, "Email is required")
		s2, e2 := at(chunk, "Your session expired.")
		return 200, snippetsJSON(
			map[string]any{"text": "Email is required", "start": s1, "end": e1, "relevance": 0.9},             // right
			map[string]any{"text": "Your card was declined", "start": 10, "end": 32, "relevance": 1},          // hallucinated
			map[string]any{"text": "Password must be at least 8 characters", "start": 0, "end": 38},           // wrong offsets
			map[string]any{"text": "Your session expired.", "start": s2 + 3, "end": e2 + 3, "relevance": 0.7}, // shifted offsets
			map[string]any{"text": "Email is  required", "start": s1, "end": e1, "relevance": 0.9},            // almost verbatim
		)
	})
	s := llmStore(f, nil)
	mustPut(t, s, "id", loginPage)
	res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "error messages"})
	if err != nil {
		t.Fatal(err)
	}
	checkProvenance(t, s, "id", res)
	if res.Fallback != "" || !strings.HasPrefix(res.Extractor, "llm:mini-test@") {
		t.Errorf("extractor %q fallback %q; want the LLM extractor answering", res.Extractor, res.Fallback)
	}
	if res.Dropped != 2 {
		t.Errorf("Dropped = %d, want 2 (the invented and the almost-verbatim snippet)", res.Dropped)
	}
	var texts []string
	for _, sn := range res.Snippets {
		texts = append(texts, sn.Text)
	}
	want := []string{"Email is required", "Password must be at least 8 characters", "Your session expired."}
	if fmt.Sprint(texts) != fmt.Sprint(want) {
		t.Errorf("snippets = %q, want %q", texts, want)
	}
	if res.Confidence <= 0 || res.Confidence >= 0.9 {
		t.Errorf("Confidence = %v, want discounted below 0.9 for the dropped snippets", res.Confidence)
	}

	// Same request again: from the cache, no new call.
	n := f.calls.Load()
	again, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "error messages"})
	if err != nil || !again.Cached || f.calls.Load() != n {
		t.Errorf("second extract: cached=%v, calls %d→%d, %v; want a cache hit", again.Cached, n, f.calls.Load(), err)
	}
}

func TestLLMExtractorRetries(t *testing.T) {
	for _, status := range []int{http.StatusInternalServerError, http.StatusTooManyRequests, http.StatusBadGateway} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			f := newFakeLLM(t, func(call int, _ string, chunk string) (int, string) {
				if call == 1 {
					return status, "try later"
				}
				s1, e1 := at(chunk, "Email is required")
				return 200, snippetsJSON(map[string]any{"text": "Email is required", "start": s1, "end": e1})
			})
			s := llmStore(f, nil)
			mustPut(t, s, "id", loginPage)
			res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "error"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Fallback != "" || len(res.Snippets) != 1 || f.calls.Load() != 2 {
				t.Errorf("fallback %q, %d snippets, %d calls; want the retry to succeed (2 calls, 1 snippet)", res.Fallback, len(res.Snippets), f.calls.Load())
			}
		})
	}
}

func TestLLMExtractorFallsBackToLocal(t *testing.T) {
	tests := []struct {
		name      string
		status    int
		body      string
		mod       func(*LLMConfig)
		wantCalls int64
		wantWhy   string
	}{
		{"server keeps failing", http.StatusServiceUnavailable, "overloaded", nil, 3, "503"},
		{"no retries", http.StatusInternalServerError, "boom", func(c *LLMConfig) { c.Retries = -1 }, 1, "500"},
		{"unauthorized is not retried", http.StatusUnauthorized, "Incorrect API key provided: " + testKey, nil, 1, "401"},
		{"model answers prose", http.StatusOK, "Sure! Here are the errors: Email is required", nil, 1, "expected JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLLM(t, func(int, string, string) (int, string) { return tt.status, tt.body })
			s := llmStore(f, tt.mod)
			mustPut(t, s, "id", loginPage)
			res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "error messages"})
			if err != nil {
				t.Fatal(err)
			}
			checkProvenance(t, s, "id", res)
			if res.Extractor != "local@1" || len(res.Snippets) == 0 {
				t.Errorf("extractor %q with %d snippets, want local@1 answering", res.Extractor, len(res.Snippets))
			}
			if !strings.Contains(res.Fallback, "llm:mini-test") || !strings.Contains(res.Fallback, tt.wantWhy) {
				t.Errorf("Fallback = %q, want it to name the LLM extractor and %q", res.Fallback, tt.wantWhy)
			}
			if strings.Contains(res.Fallback, testKey) {
				t.Errorf("Fallback %q leaks the API key", res.Fallback)
			}
			if got := f.calls.Load(); got != tt.wantCalls {
				t.Errorf("%d calls, want %d", got, tt.wantCalls)
			}
		})
	}
}

func TestLLMExtractorTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	f := newFakeLLM(t, func(int, string, string) (int, string) {
		<-release
		return 200, `{"snippets":[]}`
	})
	s := llmStore(f, func(c *LLMConfig) { c.Timeout = 50 * time.Millisecond; c.Retries = 1 })
	mustPut(t, s, "id", loginPage)
	start := time.Now()
	res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "error messages"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Fallback, "deadline exceeded") || res.Extractor != "local@1" {
		t.Errorf("Fallback = %q, extractor %q; want a timeout answered locally", res.Fallback, res.Extractor)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v; the per-request timeout was not honoured", d)
	}
}

func TestLLMExtractorHonoursContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	f := newFakeLLM(t, func(int, string, string) (int, string) {
		<-release
		return 200, `{"snippets":[]}`
	})
	s := llmStore(f, nil)
	mustPut(t, s, "id", loginPage)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.Extract(ctx, "id", ExtractRequest{Query: "error"}); err == nil {
		t.Error("Extract succeeded after its context ended, want an error")
	}
}

func TestLLMExtractorRefusesRedirects(t *testing.T) {
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		if r.Header.Get("Authorization") != "" {
			t.Error("the key was sent to the redirect target")
		}
	}))
	defer other.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	s := New(Options{Extractor: NewLLMExtractor(LLMConfig{URL: redirect.URL, Model: "m", APIKey: testKey, Backoff: time.Millisecond})})
	mustPut(t, s, "id", loginPage)
	res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "error"})
	if err != nil {
		t.Fatal(err)
	}
	if elsewhere.Load() != 0 || res.Fallback == "" {
		t.Errorf("redirect target got %d requests, fallback %q; want none and a fallback", elsewhere.Load(), res.Fallback)
	}
}

func TestLLMExtractorBadConfig(t *testing.T) {
	for _, cfg := range []LLMConfig{{URL: "ftp://example.com", Model: "m"}, {URL: "not a url", Model: "m"}, {URL: "http://127.0.0.1:1/v1"}} {
		s := New(Options{Extractor: NewLLMExtractor(cfg)})
		mustPut(t, s, "id", loginPage)
		res, err := s.Extract(context.Background(), "id", ExtractRequest{Query: "error"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Extractor != "local@1" || !strings.Contains(res.Fallback, "GASOLINE_EXTRACT_") {
			t.Errorf("config %v: extractor %q, fallback %q; want local@1 and a hint naming the variable to set", cfg, res.Extractor, res.Fallback)
		}
	}
}

func TestLLMExtractorID(t *testing.T) {
	a := NewLLMExtractor(LLMConfig{URL: "http://127.0.0.1/v1", Model: "a"}).ID()
	b := NewLLMExtractor(LLMConfig{URL: "http://127.0.0.1/v1", Model: "b"}).ID()
	if a == b || !strings.HasPrefix(a, "llm:a@"+llmPromptVersion+".") {
		t.Errorf("ids %q, %q: want them to name the model and the prompt version", a, b)
	}
	if cs, ok := NewLLMExtractor(LLMConfig{}).(ChunkSizer); !ok || cs.ChunkChars() != DefaultLLMChunkChars {
		t.Error("the LLM extractor does not ask for its own chunk size")
	}
}

func TestParseSnippets(t *testing.T) {
	got, err := parseSnippets("```json\n{\"snippets\":[{\"text\":\"a\",\"start\":1,\"end\":2},{\"text\":\"b\"}]}\n```")
	if err != nil {
		t.Fatal(err)
	}
	want := []Snippet{{Text: "a", Start: 1, End: 2, Score: llmDefaultScore}, {Text: "b", Start: -1, End: -1, Score: llmDefaultScore}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("parseSnippets = %+v, want %+v", got, want)
	}
}

func TestLLMConfigFromEnv(t *testing.T) {
	t.Setenv(EnvExtractURL, " https://api.example.com/v1 ")
	t.Setenv(EnvExtractModel, "mini")
	t.Setenv(EnvExtractAPIKey, testKey)
	cfg, ok := LLMConfigFromEnv()
	if !ok || cfg.URL != "https://api.example.com/v1" || cfg.Model != "mini" || cfg.APIKey != testKey {
		t.Errorf("LLMConfigFromEnv = %v, %v", cfg, ok)
	}
	for _, s := range []string{cfg.String(), fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg)} {
		if strings.Contains(s, testKey) {
			t.Errorf("formatted config %q shows the key", s)
		}
	}
	t.Setenv(EnvExtractModel, "")
	if _, ok := LLMConfigFromEnv(); ok {
		t.Error("LLMConfigFromEnv reports a config without a model")
	}
}
