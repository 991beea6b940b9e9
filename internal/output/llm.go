package output

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Environment variables read by LLMConfigFromEnv.
const (
	EnvExtractURL    = "GASOLINE_EXTRACT_URL"
	EnvExtractModel  = "GASOLINE_EXTRACT_MODEL"
	EnvExtractAPIKey = "GASOLINE_EXTRACT_API_KEY"
)

// Defaults of LLMConfig.
const (
	DefaultLLMTimeout    = 30 * time.Second
	DefaultLLMRetries    = 2
	DefaultLLMChunkChars = 24000
	DefaultLLMBackoff    = 500 * time.Millisecond

	maxLLMBackoff      = 5 * time.Second
	maxLLMResponse     = 8 << 20
	llmPromptVersion   = "1"
	llmDefaultScore    = 0.8
	maxLLMErrorExcerpt = 300
)

// llmSystemPrompt is part of the extractor id (through its hash), so editing
// it invalidates cached results.
const llmSystemPrompt = `You find the passages of a document that answer a query. You receive the query and one chunk of the document.
Reply with one JSON object and nothing else: {"snippets":[{"text":"...","start":0,"end":0,"relevance":0.0}]}
- "text" is copied verbatim from the chunk: the same characters and whitespace, no edits, no ellipses, no summaries, no added quotes.
- "start" and "end" are the offsets of the text in the chunk, counted in Unicode characters from 0 ("end" excluded).
- "relevance" says how well the passage answers the query, from 0 to 1.
- Keep each snippet short (one element, line or sentence; a few hundred characters at most) and return at most 20, best first.
- If nothing in the chunk answers the query, reply {"snippets":[]}.`

// LLMConfig configures the optional LLM extractor, which calls an
// OpenAI-compatible chat-completions endpoint. Zero fields take the defaults
// in parentheses. Its String method never shows the key.
type LLMConfig struct {
	// URL is the API base, e.g. "https://api.openai.com/v1"; requests go to
	// URL + "/chat/completions" (a URL already ending so is used as is).
	URL   string
	Model string
	// APIKey is sent as a bearer token to URL and nowhere else (redirects
	// are not followed); it is never logged or put in an error.
	APIKey string
	// Timeout bounds each request (30s).
	Timeout time.Duration
	// Retries is the number of retries after a failed request on 429, 5xx or
	// a transport error (2); negative means none.
	Retries int
	// Backoff is the delay before the first retry (500ms), doubled for each
	// next one; a Retry-After header of up to 5s is honoured instead.
	Backoff time.Duration
	// ChunkChars is the chunk size in characters (24 000).
	ChunkChars int
	// HTTPClient sends the requests (a fresh client). It is copied, not
	// modified, to refuse redirects.
	HTTPClient *http.Client
}

// String describes c with its key redacted.
func (c LLMConfig) String() string {
	key := "none"
	if c.APIKey != "" {
		key = "set"
	}
	return fmt.Sprintf("LLMConfig{URL:%s Model:%s APIKey:%s Timeout:%s Retries:%d}", redactURL(c.URL), c.Model, key, c.Timeout, c.Retries)
}

// GoString is String, so that %#v does not show the key either.
func (c LLMConfig) GoString() string { return c.String() }

// LLMConfigFromEnv reads GASOLINE_EXTRACT_URL, GASOLINE_EXTRACT_MODEL and
// GASOLINE_EXTRACT_API_KEY. It reports false unless both the URL and the
// model are set.
func LLMConfigFromEnv() (LLMConfig, bool) {
	c := LLMConfig{
		URL:    strings.TrimSpace(os.Getenv(EnvExtractURL)),
		Model:  strings.TrimSpace(os.Getenv(EnvExtractModel)),
		APIKey: strings.TrimSpace(os.Getenv(EnvExtractAPIKey)),
	}
	return c, c.URL != "" && c.Model != ""
}

// llmExtractor is the Extractor NewLLMExtractor returns.
type llmExtractor struct {
	cfg      LLMConfig
	endpoint string
	client   *http.Client
	id       string
	err      error // configuration error, returned by every call
}

var errRedirect = errors.New("redirect refused: the extraction endpoint must answer directly, the API key is never sent elsewhere")

// NewLLMExtractor returns an Extractor that asks an OpenAI-compatible
// chat-completions endpoint for verbatim snippets of each chunk. Its id is
// "llm:<model>@<prompt version>", so changing the model or the prompt never
// reuses cached results. A configuration error (a URL that is not http or
// https, no model) is returned by every ExtractChunk call, which makes the
// Store answer with the local extractor and say why. It is safe for
// concurrent use.
func NewLLMExtractor(cfg LLMConfig) Extractor {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultLLMTimeout
	}
	switch {
	case cfg.Retries == 0:
		cfg.Retries = DefaultLLMRetries
	case cfg.Retries < 0:
		cfg.Retries = 0
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultLLMBackoff
	}
	if cfg.ChunkChars <= 0 {
		cfg.ChunkChars = DefaultLLMChunkChars
	}
	client := &http.Client{}
	if cfg.HTTPClient != nil {
		c := *cfg.HTTPClient
		client = &c
	}
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return errRedirect }

	sum := sha256.Sum256([]byte(llmSystemPrompt))
	x := &llmExtractor{
		cfg:    cfg,
		client: client,
		id:     "llm:" + cfg.Model + "@" + llmPromptVersion + "." + hex.EncodeToString(sum[:4]),
	}
	x.endpoint = strings.TrimRight(strings.TrimSpace(cfg.URL), "/")
	if !strings.HasSuffix(x.endpoint, "/chat/completions") {
		x.endpoint += "/chat/completions"
	}
	u, err := url.Parse(x.endpoint)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		x.err = fmt.Errorf("extraction endpoint %q is not an http(s) URL: set %s to the API base, e.g. https://api.openai.com/v1", redactURL(cfg.URL), EnvExtractURL)
	case cfg.Model == "":
		x.err = fmt.Errorf("no extraction model configured: set %s", EnvExtractModel)
	}
	return x
}

func (x *llmExtractor) ID() string { return x.id }

// ChunkChars implements ChunkSizer.
func (x *llmExtractor) ChunkChars() int { return x.cfg.ChunkChars }

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string         `json:"model"`
	Messages       []chatMessage  `json:"messages"`
	Temperature    float64        `json:"temperature"`
	ResponseFormat responseFormat `json:"response_format"`
}

type responseFormat struct {
	Type string `json:"type"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

type llmSnippets struct {
	Snippets []struct {
		Text      string   `json:"text"`
		Start     *int     `json:"start"`
		End       *int     `json:"end"`
		Relevance *float64 `json:"relevance"`
	} `json:"snippets"`
}

// chunkMessage is the user message for one chunk. The chunk's text starts
// right after the "<<<CHUNK" line and ends right before the "CHUNK>>>" line.
func chunkMessage(query string, c Chunk) string {
	return fmt.Sprintf("Query: %s\n\nThis is chunk %d of the document. Offsets count from the first character after the line <<<CHUNK.\n<<<CHUNK\n%s\nCHUNK>>>", query, c.Index, c.Text)
}

// ExtractChunk asks the endpoint for the snippets of c answering query,
// retrying on 429, 5xx and transport errors with exponential backoff. It
// honours ctx and the per-request timeout.
func (x *llmExtractor) ExtractChunk(ctx context.Context, query string, c Chunk) ([]Snippet, error) {
	if x.err != nil {
		return nil, x.err
	}
	body, err := json.Marshal(chatRequest{
		Model: x.cfg.Model,
		Messages: []chatMessage{
			{Role: "system", Content: llmSystemPrompt},
			{Role: "user", Content: chunkMessage(query, c)},
		},
		ResponseFormat: responseFormat{Type: "json_object"},
	})
	if err != nil {
		return nil, fmt.Errorf("encoding the extraction request: %w", err)
	}
	delay := x.cfg.Backoff
	for attempt := 0; ; attempt++ {
		snips, wait, retry, err := x.post(ctx, body)
		if err == nil {
			return snips, nil
		}
		if !retry || attempt >= x.cfg.Retries || ctx.Err() != nil {
			if attempt > 0 {
				err = fmt.Errorf("after %d attempts: %w", attempt+1, err)
			}
			return nil, err
		}
		if wait <= 0 {
			wait = delay
		}
		delay = min(delay*2, maxLLMBackoff)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// post makes one request. It reports whether a failure is worth retrying and
// how long the server asked to wait first.
func (x *llmExtractor) post(ctx context.Context, body []byte) (snips []Snippet, wait time.Duration, retry bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, x.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, x.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, 0, false, fmt.Errorf("building the extraction request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if x.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+x.cfg.APIKey)
	}
	resp, err := x.client.Do(req)
	if err != nil {
		return nil, 0, !errors.Is(err, errRedirect), fmt.Errorf("calling the extraction endpoint: %s", x.redact(err.Error()))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxLLMResponse+1))
	if err != nil {
		return nil, 0, true, fmt.Errorf("reading the extraction response: %s", x.redact(err.Error()))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		retry = resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
			wait = min(time.Duration(s)*time.Second, maxLLMBackoff)
		}
		excerpt := string(data[:min(len(data), maxLLMErrorExcerpt)])
		return nil, wait, retry, fmt.Errorf("extraction endpoint answered %s: %s", resp.Status, x.redact(strings.TrimSpace(excerpt)))
	}
	if len(data) > maxLLMResponse {
		return nil, 0, false, fmt.Errorf("extraction response is larger than %d bytes", maxLLMResponse)
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return nil, 0, false, fmt.Errorf("decoding the extraction response: %w", err)
	}
	if len(cr.Choices) == 0 {
		return nil, 0, false, errors.New("extraction response has no choices")
	}
	snips, err = parseSnippets(cr.Choices[0].Message.Content)
	return snips, 0, false, err
}

// parseSnippets decodes the model's JSON answer, tolerating a Markdown code
// fence around it. Missing offsets become -1, so the Store locates the text.
func parseSnippets(content string) ([]Snippet, error) {
	content = strings.TrimSpace(content)
	if strings.HasPrefix(content, "```") {
		content = strings.TrimPrefix(content, "```json")
		content = strings.TrimPrefix(content, "```")
		content = strings.TrimSuffix(strings.TrimSpace(content), "```")
	}
	var ls llmSnippets
	if err := json.Unmarshal([]byte(content), &ls); err != nil {
		return nil, fmt.Errorf("the model did not answer with the expected JSON object: %w", err)
	}
	out := make([]Snippet, 0, len(ls.Snippets))
	for _, s := range ls.Snippets {
		sn := Snippet{Text: s.Text, Start: -1, End: -1, Score: llmDefaultScore}
		if s.Start != nil && s.End != nil {
			sn.Start, sn.End = *s.Start, *s.End
		}
		if s.Relevance != nil {
			sn.Score = *s.Relevance
		}
		out = append(out, sn)
	}
	return out, nil
}

// redact removes the API key from a message, should a server echo it.
func (x *llmExtractor) redact(msg string) string {
	if x.cfg.APIKey == "" {
		return msg
	}
	return strings.ReplaceAll(msg, x.cfg.APIKey, "[redacted]")
}

// redactURL hides any password in a URL's user info.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
