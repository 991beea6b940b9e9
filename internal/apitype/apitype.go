// Package apitype holds the JSON wire types of the daemon's HTTP API, shared by
// the daemon, the bridge, the CLI and (by contract) the extension.
package apitype

import (
	"encoding/json"
	"time"
)

// Header names used on the daemon's HTTP API.
const (
	// HeaderClient names the MCP client (one bridge session) a /mcp request
	// belongs to. The bridge sends a fresh ULID per process; requests without
	// it belong to the client "direct".
	HeaderClient = "X-Gasoline-Client"
	// HeaderExtensionInstance names one extension service-worker instance on
	// the extension endpoints. It may also be given as the query parameter
	// "instance". Absent, the instance is "default".
	HeaderExtensionInstance = "X-Gasoline-Instance"
)

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
}

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
}

// PendingQueries is the body of GET /pending-queries.
type PendingQueries struct {
	Queries []PendingQuery `json:"queries"`
}

// QueryResult is the body of POST /query-result.
type QueryResult struct {
	CorrelationID string          `json:"correlation_id"`
	Status        string          `json:"status"` // pending | complete | error | timeout
	Result        json.RawMessage `json:"result,omitempty"`
	Error         string          `json:"error,omitempty"`
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
