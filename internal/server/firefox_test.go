package server_test

import (
	"encoding/json"
	"testing"

	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/gasoline-mcp/gasoline/internal/server"
	"github.com/gasoline-mcp/gasoline/internal/tools"
)

// Two extensions' origins in Firefox (random UUIDs, one per profile).
const (
	foxA = "moz-extension://1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d"
	foxB = "moz-extension://9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a"
)

// pairFrom sends a pairing request from origin proving a fresh valid code,
// and returns the answer's status and body.
func (e *env) pairFrom(t *testing.T, origin string) (int, []byte) {
	t.Helper()
	got, body := e.do(t, req{"POST", "/pair/code", map[string]string{"Authorization": "Bearer " + token}, ""})
	if got != 200 {
		t.Fatalf("pair/code: got %d %s", got, body)
	}
	var pc struct{ Code string }
	json.Unmarshal(body, &pc)
	n := randomHex(32)
	proof := extauth.ExtensionProof(extauth.PairKey(pc.Code, n), n)
	return e.do(t, req{"POST", "/pair", map[string]string{"Origin": origin}, `{"nonce":"` + n + `","proof":"` + proof + `","instance":"i1"}`})
}

// healthFrom is the status of GET /health from origin (the guard's answer).
func (e *env) healthFrom(t *testing.T, origin string) int {
	t.Helper()
	got, _ := e.do(t, req{"GET", "/health", map[string]string{"Origin": origin}, ""})
	return got
}

// foxEnv is a server started without --firefox-extension-uuid; saved
// collects what it persists, and pinned is what it read at start.
func foxEnv(t *testing.T, pinned string, saved *[]string) *env {
	return newEnvConfig(t, tools.Deps{}, func(c *server.Config) {
		c.FirefoxExtensionUUID = ""
		c.FirefoxPinned = pinned
		c.SaveFirefoxPin = func(origin string) error {
			*saved = append(*saved, origin)
			return nil
		}
	})
}

// TestFirefoxPinnedByPairing: without the flag, only a pairing with a
// valid code pins a moz-extension origin; until then (and with a wrong
// code) every request from it is refused; the pin is saved, and a daemon
// started with it saved accepts the origin at once.
func TestFirefoxPinnedByPairing(t *testing.T) {
	var saved []string
	e := foxEnv(t, "", &saved)
	if got := e.healthFrom(t, foxA); got != 403 {
		t.Errorf("health from an unpinned Firefox extension: got %d, want 403", got)
	}
	if got, body := e.do(t, req{"POST", "/pair", map[string]string{"Origin": foxA}, wrongProof()}); got != 401 || errCode(t, body) != "invalid_code" {
		t.Errorf("pairing with a wrong code: got %d %s, want 401 invalid_code", got, body)
	}
	if got := e.healthFrom(t, foxA); got != 403 || len(saved) != 0 {
		t.Errorf("after a wrong code: health got %d (want 403), saved %q (want none)", got, saved)
	}
	if got, body := e.do(t, req{"GET", "/pair", map[string]string{"Origin": foxA}, ""}); got != 403 {
		t.Errorf("GET /pair from an unpinned Firefox extension: got %d %s, want 403", got, body)
	}
	if got, body := e.pairFrom(t, "moz-extension://not-a-uuid"); got != 403 || errCode(t, body) != "forbidden_origin" {
		t.Errorf("pairing from a malformed moz-extension origin: got %d %s, want 403 forbidden_origin", got, body)
	}
	if got, body := e.pairFrom(t, "https://evil.example"); got != 403 || errCode(t, body) != "forbidden_origin" {
		t.Errorf("pairing from a web page with a valid code: got %d %s, want 403 forbidden_origin", got, body)
	}
	if got, body := e.pairFrom(t, foxA); got != 200 {
		t.Fatalf("pairing with a valid code: got %d %s, want 200", got, body)
	}
	if got := e.healthFrom(t, foxA); got != 200 {
		t.Errorf("health from the pinned Firefox extension: got %d, want 200", got)
	}
	if got := e.healthFrom(t, foxB); got != 403 {
		t.Errorf("health from another Firefox extension: got %d, want 403", got)
	}
	if got := e.healthFrom(t, "chrome-extension://"+server.DefaultExtensionID); got != 200 {
		t.Errorf("health from the extension in Chrome: got %d, want 200", got)
	}
	if len(saved) != 1 || saved[0] != foxA {
		t.Fatalf("saved %q, want [%s]", saved, foxA)
	}

	var again []string
	restarted := foxEnv(t, saved[0], &again)
	if got := restarted.healthFrom(t, foxA); got != 200 {
		t.Errorf("health from the pinned extension after a restart: got %d, want 200", got)
	}
	if got := restarted.healthFrom(t, foxB); got != 403 {
		t.Errorf("health from another extension after a restart: got %d, want 403", got)
	}
}

// TestFirefoxRepairReplacesPin: a pairing with a valid code from another
// moz-extension UUID (the user re-paired from a new profile) replaces the
// pin; the old origin is refused from then on, and a wrong code from a
// third one changes nothing.
func TestFirefoxRepairReplacesPin(t *testing.T) {
	var saved []string
	e := foxEnv(t, foxA, &saved)
	if got, body := e.do(t, req{"POST", "/pair", map[string]string{"Origin": foxB}, wrongProof()}); got != 401 {
		t.Errorf("pairing from another UUID with a wrong code: got %d %s, want 401", got, body)
	}
	if got := e.healthFrom(t, foxA); got != 200 || len(saved) != 0 {
		t.Errorf("after a wrong code from another UUID: health from the pinned one got %d (want 200), saved %q (want none)", got, saved)
	}
	if got, body := e.pairFrom(t, foxB); got != 200 {
		t.Fatalf("re-pairing from another UUID: got %d %s, want 200", got, body)
	}
	if got := e.healthFrom(t, foxB); got != 200 {
		t.Errorf("health from the new pin: got %d, want 200", got)
	}
	if got := e.healthFrom(t, foxA); got != 403 {
		t.Errorf("health from the replaced pin: got %d, want 403", got)
	}
	if len(saved) != 1 || saved[0] != foxB {
		t.Errorf("saved %q, want [%s]", saved, foxB)
	}
}

// TestFirefoxFlagOverridesPin: --firefox-extension-uuid fixes the origin:
// a saved pin is ignored and a pairing from another UUID, even with a
// valid code, is refused and pins nothing.
func TestFirefoxFlagOverridesPin(t *testing.T) {
	var saved []string
	e := newEnvConfig(t, tools.Deps{}, func(c *server.Config) {
		c.FirefoxPinned = foxA
		c.SaveFirefoxPin = func(origin string) error { saved = append(saved, origin); return nil }
	})
	flagged := "moz-extension://" + firefoxUUID
	if got := e.healthFrom(t, foxA); got != 403 {
		t.Errorf("health from the saved pin under the flag: got %d, want 403", got)
	}
	if got, body := e.pairFrom(t, foxB); got != 403 || errCode(t, body) != "forbidden_origin" {
		t.Errorf("pairing from another UUID under the flag: got %d %s, want 403 forbidden_origin", got, body)
	}
	if got, body := e.pairFrom(t, flagged); got != 200 {
		t.Errorf("pairing from the flag's UUID: got %d %s, want 200", got, body)
	}
	if got := e.healthFrom(t, foxB); got != 403 || len(saved) != 0 {
		t.Errorf("under the flag: health from another UUID got %d (want 403), saved %q (want none)", got, saved)
	}
}
