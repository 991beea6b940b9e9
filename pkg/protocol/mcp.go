package protocol

import "encoding/json"

// MCP method names used by gasoline.
const (
	MethodInitialize  = "initialize"
	MethodInitialized = "notifications/initialized"
	MethodPing        = "ping"
	MethodToolsList   = "tools/list"
	MethodToolsCall   = "tools/call"
	MethodCancelled   = "notifications/cancelled"
	// MethodDiscover is 2026-07-28's server/discover.
	MethodDiscover = "server/discover"
)

// Protocol versions this server speaks with an initialize handshake (the
// legacy era), oldest first.
var SupportedVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// LatestVersion is the newest legacy protocol version: the one initialize
// answers a client that asks for a version this server does not speak.
const LatestVersion = "2025-11-25"

// ModernVersion is the stateless revision: no initialize, the version and
// the client's capabilities in every request's _meta.
const ModernVersion = "2026-07-28"

// ModernVersions are the stateless protocol versions this server speaks.
var ModernVersions = []string{ModernVersion}

// AllVersions is every version this server speaks, newest first, as
// server/discover and UnsupportedProtocolVersion errors list them.
var AllVersions = []string{ModernVersion, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// IsModern reports whether v is a stateless (2026-07-28 or later) version.
func IsModern(v string) bool {
	for _, m := range ModernVersions {
		if m == v {
			return true
		}
	}
	return false
}

// Keys of the per-request _meta of the stateless revision.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// Error codes the MCP specification (2026-07-28) allocates.
const (
	CodeHeaderMismatch                  = -32020
	CodeMissingRequiredClientCapability = -32021
	CodeUnsupportedProtocolVersion      = -32022
)

// UnsupportedVersionData is the data of a CodeUnsupportedProtocolVersion
// error.
type UnsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// RequestMeta is the per-request _meta of the stateless revision. A legacy
// request has none of these keys.
type RequestMeta struct {
	ProtocolVersion    string          `json:"io.modelcontextprotocol/protocolVersion"`
	ClientInfo         *Implementation `json:"io.modelcontextprotocol/clientInfo,omitempty"`
	ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities,omitempty"`
}

// Result types of the stateless revision's resultType, and the Tasks
// extension's.
const (
	ResultComplete = "complete"
	ResultTask     = "task"
)

// DiscoverResult is the result of server/discover: a cacheable result.
type DiscoverResult struct {
	ResultType        string             `json:"resultType"`
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	Meta              map[string]any     `json:"_meta,omitempty"`
	TTLMS             int64              `json:"ttlMs"`
	CacheScope        string             `json:"cacheScope"`
}

// NegotiateVersion returns requested when it is supported, else the latest
// version this server supports (the client then decides whether to go on).
func NegotiateVersion(requested string) string {
	for _, v := range SupportedVersions {
		if v == requested {
			return v
		}
	}
	return LatestVersion
}

// Implementation names a client or server.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// InitializeParams are the params of initialize.
type InitializeParams struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
	ClientInfo      Implementation  `json:"clientInfo"`
}

// InitializeResult is the result of initialize.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

// ServerCapabilities are the capabilities a server declares.
type ServerCapabilities struct {
	Tools     *ToolCapabilities     `json:"tools,omitempty"`
	Resources *ResourceCapabilities `json:"resources,omitempty"`
	// Tasks is 2025-11-25's experimental tasks capability.
	Tasks *TasksCapability `json:"tasks,omitempty"`
	// Extensions are the 2026-07-28 extensions, by identifier.
	Extensions map[string]struct{} `json:"extensions,omitempty"`
}

// TasksCapability is 2025-11-25's tasks capability: which requests may be
// augmented with a task, and whether tasks/list and tasks/cancel work.
type TasksCapability struct {
	List     *struct{} `json:"list,omitempty"`
	Cancel   *struct{} `json:"cancel,omitempty"`
	Requests struct {
		Tools struct {
			Call struct{} `json:"call"`
		} `json:"tools"`
	} `json:"requests"`
}

// ResourceCapabilities describe the resources capability: gasoline lists
// and reads resources, and neither subscribes nor announces list changes.
type ResourceCapabilities struct{}

// Resource methods.
const (
	MethodResourcesList          = "resources/list"
	MethodResourcesRead          = "resources/read"
	MethodResourcesTemplatesList = "resources/templates/list"
)

// Resource describes one resource in resources/list, and in a tool result's
// resource_link.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
}

// ListResourcesResult is the result of resources/list.
type ListResourcesResult struct {
	Resources  []Resource `json:"resources"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

// ReadResourceParams are the params of resources/read.
type ReadResourceParams struct {
	URI string `json:"uri"`
}

// ResourceContents is one resource's content: its text, or with Blob set
// its binary content in base64 (an image), written without text.
type ResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text"`
	Blob     string `json:"blob,omitempty"`
}

// MarshalJSON writes text contents with "text" (even empty) and blob
// contents with "blob" only, as the MCP schema's two shapes require.
func (c ResourceContents) MarshalJSON() ([]byte, error) {
	if c.Blob == "" {
		type text ResourceContents
		return json.Marshal(text(c))
	}
	return json.Marshal(struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType,omitempty"`
		Blob     string `json:"blob"`
	}{c.URI, c.MIMEType, c.Blob})
}

// ReadResourceResult is the result of resources/read.
type ReadResourceResult struct {
	Contents []ResourceContents `json:"contents"`
}

// ToolCapabilities describe the tools capability.
type ToolCapabilities struct {
	ListChanged bool `json:"listChanged"`
}

// Tool describes one tool in tools/list.
type Tool struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description"`
	InputSchema json.RawMessage  `json:"inputSchema"`
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
	// Execution says whether a 2025-11-25 client may augment a call of
	// the tool with a task.
	Execution *ToolExecution `json:"execution,omitempty"`
}

// ToolExecution is 2025-11-25's execution property of a tool.
type ToolExecution struct {
	TaskSupport string `json:"taskSupport,omitempty"` // "forbidden" (default), "optional", "required"
}

// ToolAnnotations are hints about a tool's behaviour.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ListToolsResult is the result of tools/list.
type ListToolsResult struct {
	Tools      []Tool `json:"tools"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// CallToolParams are the params of tools/call.
type CallToolParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Content is one content block of a tool result; gasoline sends text only.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// CallToolResult is the result of tools/call. Tool failures set IsError;
// protocol failures are JSON-RPC errors instead.
type CallToolResult struct {
	Content           []Content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
}

// Tasks methods: the Tasks extension (io.modelcontextprotocol/tasks, with
// 2026-07-28) and 2025-11-25's experimental tasks.
const (
	ExtensionTasks          = "io.modelcontextprotocol/tasks"
	MethodTasksGet          = "tasks/get"
	MethodTasksCancel       = "tasks/cancel"
	MethodTasksUpdate       = "tasks/update"               // Tasks extension only
	MethodTasksResult       = "tasks/result"               // 2025-11-25 only
	MethodTasksList         = "tasks/list"                 // 2025-11-25 only
	MethodTasksStatusNotice = "notifications/tasks/status" // 2025-11-25
	MethodTasksNotice       = "notifications/tasks"        // Tasks extension
	// MetaRelatedTask is 2025-11-25's _meta key tying a result to its task.
	MetaRelatedTask = "io.modelcontextprotocol/related-task"
)

// Task statuses.
const (
	TaskWorking   = "working"
	TaskCompleted = "completed"
	TaskFailed    = "failed"
	TaskCancelled = "cancelled"
)

// Task is a task's state in the Tasks extension. TTLMS is null for
// unlimited.
type Task struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMS          *int64 `json:"ttlMs"`
	PollIntervalMS int64  `json:"pollIntervalMs,omitempty"`
}

// TaskParams are the params of tasks/get, tasks/cancel and tasks/result.
type TaskParams struct {
	TaskID string `json:"taskId"`
}

// TasksVersion is the first legacy version with (experimental) tasks.
const TasksVersion = "2025-11-25"

// LegacyTask is a task's state in 2025-11-25's tasks: the same facts under
// other names.
type LegacyTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  int64  `json:"pollInterval,omitempty"`
}

// Legacy is t in 2025-11-25's form.
func (t Task) Legacy() LegacyTask {
	return LegacyTask{TaskID: t.TaskID, Status: t.Status, StatusMessage: t.StatusMessage, CreatedAt: t.CreatedAt,
		LastUpdatedAt: t.LastUpdatedAt, TTL: t.TTLMS, PollInterval: t.PollIntervalMS}
}

// TaskMetadata is the task field of a 2025-11-25 task-augmented request.
type TaskMetadata struct {
	TTL *int64 `json:"ttl,omitempty"`
}
