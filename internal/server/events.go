package server

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/capture"
	"github.com/labstack/echo/v4"
)

// bodyPool recycles the buffers /events reads batches into: the decoded
// events copy their strings, so a buffer is free again once ingested.
var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// events stores a batch of captured events (POST /events): the
// good events are kept and the bad ones listed with a reason; a body that is
// not a batch gets 400 and one over apitype.MaxEventsBody 413, both with a
// hint.
func (s *Server) events(c echo.Context) error {
	st, err := s.captureStore()
	if err != nil {
		return err
	}
	r := c.Request()
	if r.ContentLength > apitype.MaxEventsBody {
		return batchTooLarge(fmt.Sprintf("the batch is %d bytes, over the limit of %d", r.ContentLength, apitype.MaxEventsBody))
	}
	buf := bodyPool.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 2*apitype.MaxEventsBody {
			buf.Reset()
			bodyPool.Put(buf)
		}
	}()
	buf.Reset()
	if _, err := buf.ReadFrom(http.MaxBytesReader(c.Response(), r.Body, apitype.MaxEventsBody)); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return batchTooLarge(fmt.Sprintf("the batch is over the limit of %d bytes", apitype.MaxEventsBody))
		}
		return readError(err)
	}
	ack, err := st.IngestJSON(buf.Bytes())
	switch {
	case errors.Is(err, capture.ErrNotBatch):
		return apiError(http.StatusBadRequest, "not_a_batch", err.Error(),
			`POST /events takes {"batch_id": "<epoch>.<seq>", "dropped": {"log": 0}, "dropped_by_tab": {"1": {"log": 0}}, "events": [{"kind": "log", "ts": 1700000000000, "tab_id": 1, "frame_id": 0, "page_url": "...", ...}]} (the wire types are in internal/apitype/events.go)`)
	case errors.Is(err, capture.ErrBatchTooLarge):
		return batchTooLarge(err.Error())
	case errors.Is(err, capture.ErrClosed):
		return apiError(http.StatusServiceUnavailable, "shutting_down", "the daemon is shutting down", "keep the batch and post it again once the daemon is back")
	case err != nil:
		return err
	}
	return c.JSON(http.StatusOK, ack)
}

func batchTooLarge(msg string) error {
	return apiError(http.StatusRequestEntityTooLarge, "batch_too_large", msg,
		fmt.Sprintf("split the batch in two and post each half (at most %d bytes and %d events per batch)", apitype.MaxEventsBody, apitype.MaxEventsPerBatch))
}

// captureConfig serves the capture settings the extension applies (GET
// /capture/config).
func (s *Server) captureConfig(c echo.Context) error {
	st, err := s.captureStore()
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, st.Config())
}

func (s *Server) captureStore() (*capture.Store, error) {
	if s.cfg.Capture == nil {
		return nil, apiError(http.StatusServiceUnavailable, "capture_unavailable", "this server has no capture store",
			"run the gasoline daemon, which captures events")
	}
	return s.cfg.Capture, nil
}
