package mcp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/gasoline-mcp/gasoline/pkg/protocol"
)

// subscriptions/listen of the stateless revision (2026-07-28), as far as
// the Tasks extension uses it: a client names the tasks it wants
// notifications/tasks for, the server acknowledges the ones it will follow
// (the client's own), then sends each one's full state as it changes. The
// server ends the subscription gracefully (its response) once every task
// followed has ended, or after MaxTaskResultWait: the client listens again
// if it still cares. gasoline announces no list changes, so the filter's
// other fields are not acknowledged.

// Methods and _meta of subscriptions (2026-07-28, basic/patterns/subscriptions).
const (
	MethodListen       = "subscriptions/listen"
	MethodListenAck    = "notifications/subscriptions/acknowledged"
	MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
)

// listenParams are the params of subscriptions/listen gasoline reads.
type listenParams struct {
	Notifications struct {
		TaskIDs []string `json:"taskIds"`
	} `json:"notifications"`
}

// subMeta is the _meta every message of subscription id carries.
func subMeta(id protocol.ID) map[string]json.RawMessage {
	b, _ := id.MarshalJSON()
	return map[string]json.RawMessage{MetaSubscriptionID: b}
}

// listen serves subscriptions/listen: it blocks while the subscription
// lives, sending its notifications through the request's Sender.
func (s *Server) listen(ctx context.Context, client string, req *protocol.Request) (json.RawMessage, *protocol.WireError) {
	var p listenParams
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "invalid subscriptions/listen params: %v", err)
		}
	}
	e, _ := ctx.Value(eraKey{}).(era)
	if p.Notifications.TaskIDs != nil && (!e.tasks || s.tasks == nil) {
		return nil, missingTasksCapability(MethodListen + " with notifications.taskIds")
	}
	if send, _ := ctx.Value(senderKey{}).(Sender); send == nil {
		return nil, protocol.Errorf(protocol.CodeInvalidRequest,
			"subscriptions/listen streams notifications: send it with Accept: text/event-stream (Streamable HTTP) or over stdio")
	}
	meta := subMeta(req.ID)
	var refs []taskRef
	accepted := []string{}
	for _, id := range p.Notifications.TaskIDs {
		if r, err := s.lookup(client, id); err == nil {
			refs = append(refs, r)
			accepted = append(accepted, id)
		}
	}
	ack := struct {
		Meta          map[string]json.RawMessage `json:"_meta"`
		Notifications map[string]any             `json:"notifications"`
	}{meta, map[string]any{}}
	if p.Notifications.TaskIDs != nil {
		ack.Notifications["taskIds"] = accepted
	}
	if err := Notify(ctx, MethodListenAck, ack); err != nil {
		return nil, protocol.Errorf(protocol.CodeInternalError, "acknowledging the subscription: %v", err)
	}
	wctx, cancel := context.WithTimeout(ctx, MaxTaskResultWait)
	defer cancel()
	var wg sync.WaitGroup
	for _, r := range refs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The first notification is the task as it is now; then one per
			// change.
			s.watch(wctx, client, r, TaskState{}, func(st TaskState) {
				d := s.detailed(ctx, client, r, st)
				Notify(ctx, protocol.MethodTasksNotice, struct {
					Meta map[string]json.RawMessage `json:"_meta"`
					detailedTask
				}{meta, d})
			})
		}()
	}
	wg.Wait()
	b, _ := json.Marshal(struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}{meta})
	return b, nil
}
