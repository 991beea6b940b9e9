package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gasoline-mcp/gasoline/internal/apitype"
	"github.com/gasoline-mcp/gasoline/internal/extauth"
	"github.com/gasoline-mcp/gasoline/internal/pairing"
	"github.com/labstack/echo/v4"
)

// Replay protection of signed extension requests.
const (
	// SignatureWindow is how far a signed request's timestamp may be from the
	// daemon's clock (both run on this machine).
	SignatureWindow = time.Minute
	// maxNonces bounds the nonces remembered within the window.
	maxNonces = 1 << 16
)

// ctxExtensionKey is the echo context key of the pairing.Key that signed
// the request.
const ctxExtensionKey = "gasoline.extension_key"

// requireExtension admits the extension's signed requests (extauth) and
// the state-dir token as a Bearer token (tools, tests and curl acting as the
// extension), with bodies of at most limit bytes (sealing's overhead aside;
// larger: 413 before anything is read). An extension token sent as a Bearer
// token is refused: the extension never sends its token, so a request that
// carries one comes from an extension older than this daemon, which would
// hand it to any program on the port. A signed request's body is verified,
// and opened when sealed, before the handler sees it; a successful answer to
// it is signed in turn. tooLarge, when not nil, makes the route's 413.
func (s *Server) requireExtension(limit int64, tooLarge func(msg string) error) echo.MiddlewareFunc {
	if tooLarge == nil {
		tooLarge = func(msg string) error {
			return apiError(http.StatusRequestEntityTooLarge, "too_large", msg, "send a smaller body")
		}
	}
	over := fmt.Sprintf("the body is over this endpoint's limit of %d bytes", limit)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, extauth.Scheme+" ") {
				key, nonce, err := s.verifySigned(r, auth, limit)
				if errors.Is(err, echo.ErrStatusRequestEntityTooLarge) {
					return tooLarge(over)
				}
				if err != nil {
					return err
				}
				markAuthenticated(r) // a flood of idle connections does not evict it
				c.Set(ctxExtensionKey, key)
				return signAnswer(c, next, key.Secret, nonce)
			}
			switch s.credential(r) {
			case tokenAdmin:
				if r.ContentLength > limit {
					return tooLarge(over)
				}
				r.Body = http.MaxBytesReader(c.Response(), r.Body, limit)
				return next(c)
			case tokenExtension:
				return apiError(http.StatusUnauthorized, "signature_required",
					"extension tokens are not accepted as bearer tokens: this extension sends its token in the clear, so it is older than this daemon",
					"reload the gasoline extension from this gasoline version's extension/ folder (chrome://extensions), then pair again with 'gasoline pair'")
			}
			return unauthorized()
		}
	}
}

// verifySigned checks a signed request: well-formed, timestamp within
// SignatureWindow, signed by a paired extension's key, nonce not seen
// before, body at most limit (plus sealing's overhead) and, when sealed,
// sealed for this request under that key. When the request claims its
// body's hash (extauth.BodyHashHeader), as the extension does, all of that
// but the hash and the seal is checked before a byte of the body is read;
// otherwise the body is read first, within the bytes all unverified
// requests may hold (MaxUnverifiedBytes). On success r.Body is the plaintext.
func (s *Server) verifySigned(r *http.Request, auth string, limit int64) (pairing.Key, string, error) {
	p, err := extauth.ParseAuthorization(auth)
	if err != nil {
		return pairing.Key{}, "", apiError(http.StatusUnauthorized, "bad_signature", err.Error(), "sign requests as extension/auth.js does")
	}
	now := time.Now()
	if skew := time.Duration(now.UnixMilli()-p.TS) * time.Millisecond; skew > SignatureWindow || skew < -SignatureWindow {
		return pairing.Key{}, "", apiError(http.StatusUnauthorized, "stale_request",
			"the request was signed "+skew.Round(time.Second).String()+" away from the daemon's clock, more than "+SignatureWindow.String(),
			"sign each request when it is sent")
	}
	noMatch := apiError(http.StatusUnauthorized, "unauthorized",
		"the request's signature matches no paired extension (it was unpaired, or paired with another daemon)",
		"run 'gasoline pair' and type the code into the gasoline extension's popup")
	var keys []pairing.Key
	if s.cfg.Pairing != nil {
		keys = s.cfg.Pairing.Keys()
	}
	if len(keys) == 0 {
		return pairing.Key{}, "", noMatch // without reading a body nobody can have signed
	}
	wireLimit := limit + extauth.SealOverhead
	if r.ContentLength > wireLimit {
		return pairing.Key{}, "", echo.ErrStatusRequestEntityTooLarge
	}
	sr := extauth.Request{Method: r.Method, Host: r.Host, URI: r.RequestURI, Instance: r.Header.Get(apitype.HeaderExtensionInstance),
		TS: p.TS, Nonce: p.Nonce}
	claimed, hasClaim := r.Header[http.CanonicalHeaderKey(extauth.BodyHashHeader)]
	var body []byte
	if hasClaim {
		if len(claimed) != 1 || !isLowerHex(claimed[0], 64) {
			return pairing.Key{}, "", apiError(http.StatusUnauthorized, "bad_signature",
				extauth.BodyHashHeader+" must be the body's SHA-256 as 64 lower-case hex digits", "sign requests as extension/auth.js does")
		}
		sr.BodySHA256 = claimed[0]
	} else {
		// Nothing can be checked before the body is read: it is read within
		// the bytes all unverified requests may hold at once.
		reserve := wireLimit
		if r.ContentLength >= 0 {
			reserve = r.ContentLength
		}
		if !s.unverified.acquire(reserve) {
			return pairing.Key{}, "", unverifiedBusy(s.unverified.max)
		}
		defer s.unverified.release(reserve)
		if body, err = readBody(r, wireLimit); err != nil {
			return pairing.Key{}, "", err
		}
		sr.Body = body
	}
	msg := sr.Message()
	var found pairing.Key
	ok := false
	for _, k := range keys { // every key is tried: the time taken does not say which matched
		if extauth.Verify(k.Secret, msg, p.Sig) && !ok {
			found, ok = k, true
		}
	}
	if !ok {
		return pairing.Key{}, "", noMatch
	}
	if !s.nonces.fresh(p.Nonce, p.TS, now.UnixMilli()) {
		return pairing.Key{}, "", apiError(http.StatusUnauthorized, "replayed",
			"this request's nonce was used before or is too old to be checked: a signed request is accepted once",
			"sign every request with a fresh nonce")
	}
	if hasClaim {
		if body, err = readBody(r, wireLimit); err != nil {
			return pairing.Key{}, "", err
		}
		if extauth.BodyHash(body) != sr.BodySHA256 {
			return pairing.Key{}, "", apiError(http.StatusBadRequest, "body_hash_mismatch",
				"the body received is not the one whose hash the request signed (cut short or altered on the way)",
				"send the request again")
		}
	}
	if ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); strings.TrimSpace(ct) == extauth.SealedType {
		if body, err = sr.Open(extauth.SealKey(found.Secret), body); err != nil {
			return pairing.Key{}, "", apiError(http.StatusBadRequest, "unsealable", err.Error(),
				"seal each body for its own request with the paired token's key, as extension/auth.js does")
		}
		r.Header.Set("Content-Type", "application/json")
	}
	if int64(len(body)) > limit {
		return pairing.Key{}, "", echo.ErrStatusRequestEntityTooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return found, p.Nonce, nil
}

// readBody reads r's body whole, at most limit bytes (413 beyond), into a
// buffer sized from Content-Length when it is given.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, echo.ErrStatusRequestEntityTooLarge
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(io.LimitReader(r.Body, limit+1)); err != nil {
		return nil, readError(err)
	}
	if int64(buf.Len()) > limit {
		return nil, echo.ErrStatusRequestEntityTooLarge
	}
	return buf.Bytes(), nil
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// signAnswer runs next with the answer buffered and, when next succeeds,
// sends it with extauth.SignatureHeader computed over the request's nonce,
// the status and the body. An error is left to the error handler, unsigned:
// the extension acts on no error answer.
func signAnswer(c echo.Context, next echo.HandlerFunc, key []byte, nonce string) error {
	res := c.Response()
	orig := res.Writer
	buf := &bufferedWriter{header: orig.Header()}
	res.Writer = buf
	err := next(c)
	res.Writer = orig
	if err != nil && !res.Committed {
		return err
	}
	status := buf.status
	if status == 0 {
		status = http.StatusOK
	}
	orig.Header().Set(extauth.SignatureHeader, extauth.Sign(key, extauth.ResponseMessage(nonce, status, buf.body.Bytes())))
	orig.WriteHeader(status)
	if _, werr := orig.Write(buf.body.Bytes()); werr != nil && err == nil {
		err = werr
	}
	return err
}

// bufferedWriter holds an answer until it is signed.
type bufferedWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *bufferedWriter) Header() http.Header { return w.header }

func (w *bufferedWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *bufferedWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// nonceCache remembers the nonces of accepted signed requests for
// SignatureWindow. It holds at most maxNonces: evicting one raises the
// floor, the timestamp at or below which requests are refused, so an evicted
// nonce cannot be replayed either. Its zero value is ready to use.
type nonceCache struct {
	mu    sync.Mutex
	seen  map[string]struct{} // guarded by mu
	order []seenNonce         // arrival order; guarded by mu
	floor int64               // Unix ms; guarded by mu
}

type seenNonce struct {
	nonce string
	ts    int64
}

// fresh reports whether nonce (of a request signed at ts) is new and
// remembers it; now is the daemon's clock, Unix ms.
func (n *nonceCache) fresh(nonce string, ts, now int64) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.seen == nil {
		n.seen = map[string]struct{}{}
	}
	oldest := now - SignatureWindow.Milliseconds()
	for len(n.order) > 0 && n.order[0].ts < oldest {
		delete(n.seen, n.order[0].nonce)
		n.order = n.order[1:]
	}
	if _, dup := n.seen[nonce]; dup || ts <= n.floor {
		return false
	}
	if len(n.order) >= maxNonces {
		n.floor = max(n.floor, n.order[0].ts)
		delete(n.seen, n.order[0].nonce)
		n.order = n.order[1:]
	}
	n.seen[nonce] = struct{}{}
	n.order = append(n.order, seenNonce{nonce, ts})
	return true
}

// pair exchanges an extension's proof of a one-time code for an extension
// token and the daemon's own proof (extauth); only the pinned extension may
// ask. The code is never sent.
func (s *Server) pair(c echo.Context) error {
	origin := c.Request().Header.Get("Origin")
	pinning := !s.extensionOrigin(origin) && s.firefox.mayPin(origin)
	if !s.extensionOrigin(origin) && !pinning {
		return apiError(http.StatusForbidden, "forbidden_origin", "pairing is only possible from the gasoline extension",
			"type the code into the gasoline extension's popup")
	}
	var req apitype.PairRequest
	if err := json.NewDecoder(c.Request().Body).Decode(&req); err != nil {
		if rerr := readError(err); errors.Is(rerr, echo.ErrStatusRequestEntityTooLarge) {
			return rerr
		}
		return apiError(http.StatusBadRequest, "invalid_json", "invalid pairing request: "+err.Error(), `send {"nonce", "proof", "instance"} as extension/auth.js does`)
	}
	if req.Code != "" && req.Proof == "" {
		return apiError(http.StatusBadRequest, "outdated_extension",
			"this pairing request sends the code in the clear: the extension is older than this daemon",
			"reload the gasoline extension from this gasoline version's extension/ folder (chrome://extensions), then pair again")
	}
	tok, answer, err := s.cfg.Pairing.RedeemProof(req.Nonce, req.Proof, req.Instance, s.cfg.ExtensionID)
	withdrawn := errors.Is(err, pairing.ErrWithdrawn)
	switch {
	case withdrawn || errors.Is(err, pairing.ErrInvalidCode) || errors.Is(err, pairing.ErrRateLimited):
		// Every wrong code is counted; the log shows the first few of a
		// minute and then one line in a hundred.
		if n := s.cfg.Pairing.RecentFailures(); n <= 5 || n%100 == 0 || withdrawn {
			s.cfg.Log.Warn().Str("instance", req.Instance).Int("wrong_codes_last_minute", n).Bool("withdrawn", withdrawn).
				Msg("pairing attempt with a wrong code")
		}
	case err != nil:
		s.cfg.Log.Info().Str("instance", req.Instance).Err(err).Msg("pairing refused")
	}
	switch {
	case errors.Is(err, pairing.ErrBadRequest):
		return apiError(http.StatusBadRequest, "invalid_request", err.Error(), `send {"nonce", "proof", "instance"} as extension/auth.js does`)
	case withdrawn:
		return apiError(http.StatusTooManyRequests, "codes_withdrawn", err.Error(), "run 'gasoline pair' for a new code; if you did not type all those codes, look for what did")
	case errors.Is(err, pairing.ErrRateLimited):
		return apiError(http.StatusTooManyRequests, "rate_limited", err.Error(), "type the code 'gasoline pair' printed; it works even now")
	case errors.Is(err, pairing.ErrInvalidCode):
		return apiError(http.StatusUnauthorized, "invalid_code", err.Error(), "run 'gasoline pair' and type the new code within 2 minutes")
	case err != nil:
		return err
	}
	if pinning {
		// The code was valid: the user typed it into this extension.
		if err := s.firefox.pin(origin); err != nil {
			s.cfg.Log.Error().Err(err).Str("origin", origin).Msg("saving the extension's Firefox origin: it is pinned until the daemon stops")
		}
		s.cfg.Log.Info().Str("origin", origin).Msg("the extension's origin in Firefox pinned by pairing")
	}
	s.cfg.Log.Info().Str("instance", req.Instance).Msg("extension paired")
	return c.JSON(http.StatusOK, apitype.Paired{Token: tok, ExtensionID: s.cfg.ExtensionID, Proof: answer})
}

// unpair revokes the extension token that signed the request.
func (s *Server) unpair(c echo.Context) error {
	key, ok := c.Get(ctxExtensionKey).(pairing.Key)
	if !ok {
		return apiError(http.StatusBadRequest, "not_an_extension",
			"POST /unpair revokes the extension token that signs the request, and this request is not signed by one",
			"to revoke every extension pairing with the state-dir token, run 'gasoline unpair' (POST /pair/revoke)")
	}
	found, err := s.cfg.Pairing.Revoke(key.ID)
	if err != nil {
		return err
	}
	s.cfg.Log.Info().Str("key", key.ID).Bool("found", found).Msg("extension unpaired")
	return c.JSON(http.StatusOK, apitype.Unpaired{Revoked: true})
}

// pairRevoke revokes every extension token (gasoline unpair).
func (s *Server) pairRevoke(c echo.Context) error {
	n, err := s.cfg.Pairing.RevokeAll()
	if err != nil {
		return err
	}
	s.cfg.Log.Info().Int("revoked", n).Msg("every extension pairing revoked")
	return c.JSON(http.StatusOK, apitype.PairingsRevoked{Revoked: n})
}
