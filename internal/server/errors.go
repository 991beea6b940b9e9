package server

import (
	"errors"
	"net/http"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/labstack/echo/v4"
	"github.com/rs/zerolog"
)

// APIError is an error with the HTTP status and the JSON body the daemon
// answers with. Handlers return it; errorHandler writes it.
type APIError struct {
	Status int
	apitype.ErrorDetail
}

func (e *APIError) Error() string { return e.Code + ": " + e.Message }

func apiError(status int, code, msg, hint string) *APIError {
	return &APIError{Status: status, ErrorDetail: apitype.ErrorDetail{Code: code, Message: msg, Hint: hint}}
}

// errorHandler is the one place errors become HTTP responses.
func errorHandler(log zerolog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		var ae *APIError
		var he *echo.HTTPError
		switch {
		case errors.As(err, &ae):
		case errors.As(err, &he):
			ae = fromHTTPError(he)
		default:
			log.Error().Err(err).Str("path", c.Path()).Msg("request failed")
			ae = apiError(http.StatusInternalServerError, "internal_error", err.Error(),
				"this is a gasoline bug; daemon.log in the state dir has details")
		}
		switch ae.Status {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusRequestEntityTooLarge, http.StatusTooManyRequests:
			// A refused client gets no kept-alive connection to try again on.
			c.Response().Header().Set("Connection", "close")
		}
		var werr error
		if c.Request().Method == http.MethodHead {
			werr = c.NoContent(ae.Status)
		} else {
			werr = c.JSON(ae.Status, apitype.ErrorBody{Error: ae.ErrorDetail})
		}
		if werr != nil {
			log.Debug().Err(werr).Msg("writing error response")
		}
	}
}

func fromHTTPError(he *echo.HTTPError) *APIError {
	switch he.Code {
	case http.StatusNotFound:
		return apiError(he.Code, "not_found", "no such endpoint", "see the HTTP API table in docs/http-api.md")
	case http.StatusMethodNotAllowed:
		return apiError(he.Code, "method_not_allowed", "method not allowed on this endpoint", "see the HTTP API table in docs/http-api.md")
	case http.StatusRequestEntityTooLarge:
		return apiError(he.Code, "too_large", "request body too large",
			"bodies are capped at 10 MB; store large data in smaller pieces")
	}
	msg := http.StatusText(he.Code)
	if m, ok := he.Message.(string); ok {
		msg = m
	}
	return apiError(he.Code, "http_error", msg, "")
}
