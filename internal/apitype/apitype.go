// Package apitype holds the JSON wire types of the daemon's HTTP API, shared by
// the daemon, the bridge, the CLI and (by contract) the extension.
package apitype

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"
)

// Header names used on the daemon's HTTP API.
const (
	// HeaderClient names the MCP client (one bridge session) a /mcp request
	// belongs to. The bridge sends a fresh ULID per process; requests without
	// it belong to the client "direct".
	HeaderClient = "X-Gasoline-Client"
	// HeaderProject is one of the agent's project folders on a /mcp
	// request, the likeliest first: the folders of the client's MCP roots,
	// then the working directory of the bridge the agent started there (one
	// header each, absolute paths escaped as URL paths). Tools that work
	// with the project (analyze test's verify) look there first.
	HeaderProject = "X-Gasoline-Project"
	// HeaderExtensionInstance names one extension service-worker instance on
	// the extension endpoints. It may also be given as the query parameter
	// "instance". Absent, the instance is "default".
	HeaderExtensionInstance = "X-Gasoline-Instance"
	// HeaderNonce carries a local client's challenge on GET /hello.
	HeaderNonce = "X-Gasoline-Nonce"
	// HeaderDaemonStarted is on every answer of the daemon: when it started
	// (RFC 3339, UTC), so a client can tell that the daemon it talks to was
	// restarted, and which correlation ids predate it.
	HeaderDaemonStarted = "X-Gasoline-Daemon-Started"
)

// MaxResultBodyBytes caps a result the extension posts (POST
// /query-result, 413 above it): room for a 10 MB output plus JSON
// escaping, so an oversize output reaches the store and is truncated there,
// with the handle saying so, instead of failing outright. The extension
// gets it generated (contract.js).
const MaxResultBodyBytes = 16 << 20

// Hello is the body of GET /hello: the daemon's proof that it knows the
// state-dir token, given before a local client sends the token or anything
// else over TCP (a program squatting on the port while the daemon is down
// cannot give it).
type Hello struct {
	Service string `json:"service"` // ServiceName
	Proof   string `json:"proof"`   // HelloProof(token, port, nonce)
}

// MinNonceLen and MaxNonceLen bound the hex nonce of GET /hello.
const (
	MinNonceLen = 32
	MaxNonceLen = 128
)

// HelloProof is the daemon's answer to nonce: hex HMAC-SHA256 keyed by the
// state-dir token over a fixed label, the daemon's port and the nonce. The
// port is bound in, so a program on another port cannot relay a daemon's
// proof to a client that asked it.
func HelloProof(token string, port int, nonce string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("gasoline hello v1\n" + strconv.Itoa(port) + "\n" + nonce))
	return hex.EncodeToString(m.Sum(nil))
}

// ServiceName is the value of Health.Service; a health answer without it is
// not a gasoline daemon.
const ServiceName = "gasoline"

// MaxPollWait is the longest a GET /pending-queries long-poll is held.
const MaxPollWait = 25 * time.Second

// Health is the body of GET /health. It carries no secrets.
type Health struct {
	Service       string    `json:"service"`
	Version       string    `json:"version"`
	PID           int       `json:"pid"`
	Port          int       `json:"port"`
	StartedAt     time.Time `json:"started_at"`
	UptimeSeconds float64   `json:"uptime_seconds"`
	Extension     Extension `json:"extension"`
	Queue         Queue     `json:"queue"`
}

// Extension describes extension presence as the daemon sees it.
type Extension struct {
	// Connected is true while an extension has a long-poll open or was seen
	// within the disconnect grace period.
	Connected bool       `json:"connected"`
	LastSeen  *time.Time `json:"last_seen,omitempty"`
	// Instance is the most recently seen extension instance id.
	Instance string `json:"instance,omitempty"`
	// Contract is the contract version that instance sent with its polls
	// ("" for none); Skew, when set, says it is not the daemon's
	// (internal/extcontract, whose Fix says what to do).
	Contract string `json:"contract,omitempty"`
	Skew     string `json:"skew,omitempty"`
	// Browser is the browser that instance said it runs in (BrowserChrome
	// or BrowserFirefox; "" when it did not say).
	Browser string `json:"browser,omitempty"`
}

// The browsers the extension says it runs in, as the browser parameter of
// each GET /pending-queries (extension/platform.js sends them, from
// contract.js's BROWSER_*, generated from these).
const (
	BrowserChrome  = "chrome"
	BrowserFirefox = "firefox"
)

// Queue summarises the command tracker.
type Queue struct {
	Queued    int `json:"queued"`
	Pending   int `json:"pending"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
}

// PendingQuery is one command handed to the extension by GET /pending-queries.
type PendingQuery struct {
	CorrelationID string          `json:"correlation_id"`
	Type          string          `json:"type"` // "browser_action"
	Action        string          `json:"action"`
	Params        json.RawMessage `json:"params"`
	// TimeoutMS is the execution deadline the extension must honour: it posts
	// status "timeout" when it passes.
	TimeoutMS int64     `json:"timeout_ms"`
	CreatedAt time.Time `json:"created_at"`
	// Client is the MCP client (one bridge session or HTTP session) that
	// asked for the command, ClientName the clientInfo.name it gave in
	// initialize (empty when unknown). The extension keeps each client's
	// tabs apart with them.
	Client     string `json:"client,omitempty"`
	ClientName string `json:"client_name,omitempty"`
}

// PendingQueries is the body of GET /pending-queries.
type PendingQueries struct {
	Queries []PendingQuery `json:"queries"`
	// AgentAt is when an MCP client last called a tool (any, observe
	// included; ms since the epoch), sent while that is less than
	// AgentActiveFor ago: the extension then captures every frame until
	// AgentActiveFor after it, as for a command (extension/capture/declared.js).
	AgentAt int64 `json:"agent_at,omitempty"`
	// AllowOrigins are origins the user allowed in a terminal ('gasoline
	// allow', POST /origins/allow) since the last answer: the extension
	// adds them to the user's allowed list (extension/origins/).
	AllowOrigins []string `json:"allow_origins,omitempty"`
}

// OriginAllowed is the body returned by POST /origins/allow.
type OriginAllowed struct {
	Origin string `json:"origin"`
}

// ActionReleaseCapture is the browser command that hands over what the
// extension held of a tab's origin once the user allowed it; its result is
// ReleasedCapture.
const ActionReleaseCapture = "release_capture"

// ReleasedCapture is the result of release_capture: the origin whose held
// capture went to the daemon, how many events, and when nothing was held
// of it any more (ms, the extension's clock).
type ReleasedCapture struct {
	Origin     string `json:"origin"`
	Released   int    `json:"released"`
	ReleasedAt int64  `json:"released_at,omitempty"`
	Dropped    int    `json:"dropped,omitempty"`
}

// HeldCapture is one entry of GET /pending-queries' held parameter (a
// JSON array): what the extension holds of tab TabID's pages of Origin, an
// origin neither local nor allowed by the user (extension/origins/held.js),
// never sent until the user allows it. Events are held; Dropped were pushed
// out by its bounds.
type HeldCapture struct {
	TabID   int64  `json:"tab_id"`
	Origin  string `json:"origin"`
	Events  int    `json:"events"`
	Dropped int    `json:"dropped,omitempty"`
}

// MaxHeldReported bounds the entries of the held parameter the daemon keeps.
const MaxHeldReported = 50

// AgentActiveFor is how long after an agent's last tool call the daemon
// still counts it as at work; the extension's IDLE_AFTER_MS
// (capture/declared.js) is the same 15 minutes.
const AgentActiveFor = 15 * time.Minute

// QueryResult is the body of POST /query-result.
type QueryResult struct {
	CorrelationID string          `json:"correlation_id"`
	Status        string          `json:"status"` // pending | complete | error | timeout
	Result        json.RawMessage `json:"result,omitempty"`
	Error         string          `json:"error,omitempty"`
	// Reason is why a command failed, with status error, when the extension
	// knows better than "command_error": "navigated" (its page navigated
	// away while it ran), "tab_unresponsive" (its tab's main thread did not
	// answer), or an element action's reason ("not_found", "stale_ref", ...;
	// tracker.ReportReason lists them).
	Reason string `json:"reason,omitempty"`
	// WaitingForUser, with status pending, is the origin the extension asks
	// the user to allow before it runs the command (extension/origins/);
	// "" says the user answered. Absent leaves it as it was.
	WaitingForUser *string `json:"waiting_for_user,omitempty"`
	// WaitingOn, with status pending, is what the action waits for in the
	// page before it can act, as its reason and why ("disabled: button
	// 'Save' is disabled"); "" says it waits no more. Absent leaves it as
	// it was.
	WaitingOn *string `json:"waiting_on,omitempty"`
}

// QueryResultAck is the body returned by a successful POST /query-result.
type QueryResultAck struct {
	CorrelationID string `json:"correlation_id"`
	State         string `json:"state"`
}

// ErrorBody is the JSON shape of every error the daemon returns over HTTP.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail says what went wrong (Code, stable, for programs; Message for
// people) and what to do next (Hint).
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// Commands is the body of GET /commands, the debug view of every client's
// commands (the same data as the observe modes).
type Commands struct {
	Commands CommandLists `json:"commands"`
	Stats    CommandStats `json:"stats"`
}

// CommandLists are commands by state, oldest first.
type CommandLists struct {
	Pending   []Command `json:"pending"`   // queued and running, in submission order
	Completed []Command `json:"completed"` // retained complete commands, in finishing order
	Failed    []Command `json:"failed"`    // the failed buffer
}

// Command is one command in the debug view.
type Command struct {
	CorrelationID string          `json:"correlation_id"`
	Client        string          `json:"client"`
	Action        string          `json:"action"`
	State         string          `json:"state"`
	Delivered     bool            `json:"delivered"`
	Acked         bool            `json:"acked"`
	Extension     string          `json:"extension,omitempty"`
	External      bool            `json:"external,omitempty"`
	Result        json.RawMessage `json:"result,omitempty"`
	// Stored describes a result kept in the output store instead of Result.
	Stored      *StoredOutput `json:"stored,omitempty"`
	Error       string        `json:"error,omitempty"`
	Reason      string        `json:"reason,omitempty"`
	Read        bool          `json:"read"`
	CreatedAt   time.Time     `json:"created_at"`
	DeliveredAt *time.Time    `json:"delivered_at,omitempty"`
	FinishedAt  *time.Time    `json:"finished_at,omitempty"`
}

// StoredOutput describes a result kept in the daemon's output store.
type StoredOutput struct {
	Chars     int    `json:"chars"`
	Bytes     int    `json:"bytes"`
	SHA256    string `json:"sha256"`
	Truncated bool   `json:"truncated,omitempty"`
}

// CommandStats are tracker-wide counts.
type CommandStats struct {
	Queued    int `json:"queued"`
	Pending   int `json:"pending"`
	External  int `json:"external"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
}

// PairCode is the body of POST /pair/code: a one-time pairing code for the
// extension's popup and when it stops working.
type PairCode struct {
	Code      string    `json:"code"`
	ExpiresAt time.Time `json:"expires_at"`
}

// PairRequest is the body of POST /pair, sent by the extension. It proves
// the one-time code without carrying it (internal/extauth): Nonce is 32
// random bytes as hex, Proof is extauth.ExtensionProof.
type PairRequest struct {
	Nonce    string `json:"nonce"`
	Proof    string `json:"proof"`
	Instance string `json:"instance"`
	// Code is what extensions older than the proof sent; a request that
	// carries it is refused as outdated.
	Code string `json:"code,omitempty"`
}

// Paired is the body of a successful POST /pair: the extension's token, and
// Proof (extauth.DaemonProof) that the daemon knows the code, which binds
// the token and extension id.
type Paired struct {
	Token       string `json:"token"`
	ExtensionID string `json:"extension_id"`
	Proof       string `json:"proof"`
}

// Unpaired is the body of POST /unpair: the token that signed it is revoked.
type Unpaired struct {
	Revoked bool `json:"revoked"`
}

// PairingsRevoked is the body of POST /pair/revoke: how many extension
// tokens were revoked.
type PairingsRevoked struct {
	Revoked int `json:"revoked"`
}

// ShutdownAck is the body of POST /shutdown, answered before the daemon
// exits.
type ShutdownAck struct {
	Status string `json:"status"` // "shutting_down"
}

// ConnStats counts one listener's connections.
type ConnStats struct {
	Open            int    `json:"open"`
	Unauthenticated int    `json:"unauthenticated"` // open, no valid token seen yet
	Evicted         uint64 `json:"evicted"`         // closed to make room for newer ones
	Refused         uint64 `json:"refused"`         // closed at once: the listener was full
}

// DebugStats is the body of GET /debug/stats (state-dir token only): the
// daemon's own resource use, for soak tests and troubleshooting.
type DebugStats struct {
	HeapAllocBytes uint64               `json:"heap_alloc_bytes"` // after a collection when asked with gc=1
	HeapInuseBytes uint64               `json:"heap_inuse_bytes"`
	Goroutines     int                  `json:"goroutines"`
	Connections    map[string]ConnStats `json:"connections"` // by listener: "tcp", "unix"
	MCPCalls       int                  `json:"mcp_calls"`   // POST /mcp requests being answered now (a call that waits included)
}
