package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/kv"
	"github.com/gasoline-mcp/gasoline/internal/mcp"
)

// storeActions keep small JSON values across sessions and daemon restarts
// in the key-value store (package kv, saved under the state dir). store
// writes, so it is not idempotent; load reads.
func storeActions() []action {
	load := handler("configure", "load", "no key: list", (*Tools).load)
	load.Idempotent = true
	return []action{handler("configure", "store", "value null deletes", (*Tools).store), load}
}

// MaxStoreValue is the largest value store accepts, in bytes of compact
// JSON, so that load returns any value within the response budget. The
// daemon opens the key-value store with it.
const MaxStoreValue = 28 << 10

type storeArgs struct {
	Key   string          `json:"key" required:"true"`
	Value json.RawMessage `json:"value" required:"true" types:"string,number,boolean,object,array,null"`
}

// storedKeyView is store's answer.
type storedKeyView struct {
	Key       string     `json:"key"`
	Bytes     int        `json:"bytes,omitempty"`
	Deleted   bool       `json:"deleted,omitempty"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
}

// store puts a value under a key, or deletes the key for a null value.
func (t *Tools) store(_ context.Context, _ string, a storeArgs) (*storedKeyView, error) {
	if t.d.KV == nil {
		return nil, t.noKV()
	}
	if bytes.Equal(bytes.TrimSpace(a.Value), []byte("null")) {
		if err := t.d.KV.Delete(a.Key); err != nil {
			return nil, kvError(err)
		}
		return &storedKeyView{Key: a.Key, Deleted: true}, nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, a.Value) == nil && buf.Len() > MaxStoreValue {
		return nil, kvError(fmt.Errorf("%w (%d bytes, the limit is %d)", kv.ErrValueTooLarge, buf.Len(), MaxStoreValue))
	}
	info, err := t.d.KV.Put(a.Key, a.Value)
	if err != nil {
		return nil, kvError(err)
	}
	return &storedKeyView{Key: info.Key, Bytes: info.Bytes, UpdatedAt: &info.UpdatedAt}, nil
}

type loadArgs struct {
	Key string `json:"key"`
}

// keysView is load's answer without a key (or with a prefix): the keys.
type keysView struct {
	Keys  []kv.KeyInfo `json:"keys"`
	Total int          `json:"total"`
	Hint  string       `json:"hint,omitempty"`
}

// load returns the value under a key. Without a key it lists the keys, as
// many as fit the response budget; a key ending in "*" that is not itself
// stored lists the keys starting with what precedes it.
func (t *Tools) load(_ context.Context, _ string, a loadArgs) (any, error) {
	if t.d.KV == nil {
		return nil, t.noKV()
	}
	prefix, isPrefix := strings.CutSuffix(a.Key, "*")
	if a.Key != "" {
		e, err := t.d.KV.Get(a.Key)
		if err == nil {
			return &e, nil
		}
		if !isPrefix || !errors.Is(err, kv.ErrNotFound) {
			return nil, kvError(err)
		}
	}
	v := &keysView{Keys: []kv.KeyInfo{}}
	used := 0
	for _, k := range t.d.KV.List() {
		if !strings.HasPrefix(k.Key, prefix) {
			continue
		}
		v.Total++
		if used += len(encode(k)) + 1; used <= inlineBodyBytes {
			v.Keys = append(v.Keys, k)
		}
	}
	if len(v.Keys) < v.Total {
		v.Hint = fmt.Sprintf(`%d keys are not listed; list those starting with a prefix with configure({action:"load", key:"<prefix>*"})`, v.Total-len(v.Keys))
	}
	return v, nil
}

func (t *Tools) noKV() error {
	if t.d.KVErr != nil {
		return mcp.Errorf("not_available", "then restart the daemon ('gasoline daemon stop', then start it again)", "the key-value store could not be opened: %v", t.d.KVErr)
	}
	return mcp.Errorf("not_available", "", "this daemon keeps no key-value store")
}

// kvError turns the key-value store's errors into tool errors; their
// messages say what to do next.
func kvError(err error) error {
	code, hint := "store_failed", "the state directory may be full or read-only; the daemon log has details"
	switch {
	case errors.Is(err, kv.ErrNotFound):
		code, hint = "unknown_key", `configure({action:"load"}) lists the keys`
	case errors.Is(err, kv.ErrBadKey), errors.Is(err, kv.ErrBadValue):
		code, hint = "invalid_arguments", ""
	case errors.Is(err, kv.ErrValueTooLarge):
		code, hint = "value_too_large", ""
	case errors.Is(err, kv.ErrTooManyKeys), errors.Is(err, kv.ErrFull):
		code, hint = "store_full", `delete keys with configure({action:"store", key, value:null})`
	}
	return mcp.Errorf(code, hint, "%v", err)
}
