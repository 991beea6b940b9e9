package client

import (
	"errors"
	"testing"
)

// TestForeignErrorsAreNotGasoline checks that an error answer in the
// daemon's shape is the daemon's, and anything else matches ErrNotGasoline,
// so callers branch with errors.Is rather than on the code's text.
func TestForeignErrorsAreNotGasoline(t *testing.T) {
	tests := []struct {
		body    string
		foreign bool
	}{
		{`{"error":{"code":"unauthorized","message":"bad token"}}`, false},
		{`404 page not found`, true},
		{`{"error":"nope"}`, true},
		{``, true},
	}
	for _, tt := range tests {
		err := error(apiError(404, []byte(tt.body)))
		if got := errors.Is(err, ErrNotGasoline); got != tt.foreign {
			t.Errorf("body %q: errors.Is(ErrNotGasoline) = %v, want %v", tt.body, got, tt.foreign)
		}
		var ae *APIError
		if !errors.As(err, &ae) || ae.Status != 404 {
			t.Errorf("body %q: got %v, want an *APIError with the status", tt.body, err)
		}
	}
}
