// Package emulator is a local, stateful implementation of the mobile-plan
// subscription service: the API of the interface document and the contract
// under /v1, control operations under /_emulator/ that drive what the real
// service does on its own, webhook delivery, and fault injection.
package emulator

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"io"
	"log"
	"maps"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/api"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// OpenAPIDocument is the OpenAPI 3 description of the /v1 API, served at
// /openapi.yaml.
func OpenAPIDocument() []byte { return api.OpenAPIDocument() }

// Options configure an emulator.
type Options struct {
	// Token is the bearer token every /v1 request must carry.
	Token string
	// Dataset is the starting data; nil means DefaultDataset(DefaultPlans, DefaultEsims).
	Dataset *state.Dataset
	// StatePath, when set, keeps all state in this file, a database that
	// is loaded at start if it exists, locked while the emulator runs, and
	// written transactionally before every change is acknowledged.
	StatePath string
	// Webhook, when its URL is set, turns on event delivery.
	Webhook WebhookOptions
	// Logger receives the emulator's own messages; nil discards them.
	Logger *log.Logger
	// Now is the wall clock; nil means time.Now.
	Now func() time.Time
	// RateLimit, when above 0, is how many /v1 requests per second each
	// token may send (quota.go); the rest are answered 429.
	RateLimit float64
	// RateLimitWindow, when above 0, makes that quota a fixed window of
	// this length: RateLimit × RateLimitWindow requests per window, the
	// count starting afresh when it ends. Without it the quota is a token
	// bucket.
	RateLimitWindow time.Duration
	// QuotaFields, with RateLimit, describes the token's quota on every
	// answer (quota.go); none by default.
	QuotaFields QuotaFields
	// QuotaFieldsQuirk makes those fields misbehave, for tests.
	QuotaFieldsQuirk QuotaFieldsQuirk
	// SequentialIDs makes subscription ids count up (sub_0000000000000001,
	// sub_0000000000000002, …) instead of being random, so that two
	// emulators issue the same ids, as a staging and a production
	// deployment of a real service may.
	SequentialIDs bool

	// beforeCommit, when set, runs first in every write of StatePath, and
	// its error fails the write as a full disk would; tests set it.
	beforeCommit func() error
}

// Emulator is an http.Handler serving the service.
type Emulator struct {
	opts      Options
	tokenHash [32]byte
	dataset   state.Dataset
	state     *state.Store
	faults    faultInjector
	hooks     *dispatcher
	quota     *quota
	logger    *log.Logger
	mux       *http.ServeMux

	countsMu  sync.Mutex
	counts    map[string]int
	closeOnce sync.Once
}

// New builds an emulator, restoring StatePath when it exists.
func New(opts Options) (*Emulator, error) {
	if strings.TrimSpace(opts.Token) == "" {
		// A blank token would be one no client can send: the Authorization
		// header's value is trimmed on the way.
		return nil, errors.New("emulator: a token is required (not only white space)")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.RateLimit < 0 || math.IsNaN(opts.RateLimit) || math.IsInf(opts.RateLimit, 0) {
		return nil, errors.New("emulator: the rate limit must be 0 (none) or a positive number of requests per second")
	}
	if opts.RateLimitWindow < 0 || opts.RateLimitWindow > 0 && (opts.RateLimit <= 0 || opts.RateLimitWindow < time.Second ||
		opts.RateLimitWindow%time.Second != 0 || opts.RateLimit*opts.RateLimitWindow.Seconds() < 1) {
		return nil, errors.New("emulator: a rate limit window is a whole number of seconds, with a rate limit that allows at least one request in it")
	}
	logger := opts.Logger
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	ds := DefaultDataset(DefaultPlans, DefaultEsims)
	if opts.Dataset != nil {
		if err := opts.Dataset.Validate(); err != nil {
			return nil, err
		}
		ds = *opts.Dataset
	}
	st, err := state.Open(state.Options{Path: opts.StatePath, Dataset: ds, Now: opts.Now, Logger: logger, BeforeCommit: opts.beforeCommit, SequentialIDs: opts.SequentialIDs})
	if err != nil {
		return nil, err
	}
	e := &Emulator{
		opts:      opts,
		tokenHash: sha256.Sum256([]byte(opts.Token)),
		dataset:   ds,
		state:     st,
		quota:     newQuota(opts.RateLimit, opts.RateLimitWindow, opts.QuotaFields, opts.QuotaFieldsQuirk),
		logger:    logger,
		counts:    map[string]int{},
	}
	e.faults.set(Faults{})
	if opts.Webhook.URL != "" {
		e.hooks = newDispatcher(opts.Webhook, logger)
	}
	e.routes()
	return e, nil
}

// Close stops webhook delivery and releases the state file. Undelivered
// events are lost; changes made after Close are refused.
func (e *Emulator) Close() {
	e.closeOnce.Do(func() {
		if err := e.state.Close(); err != nil {
			e.logger.Printf("state: closing %s: %v", e.opts.StatePath, err)
		}
		if e.hooks != nil {
			e.hooks.close()
		}
	})
}

func (e *Emulator) routes() {
	mux := http.NewServeMux()
	api := func(pattern string, h http.HandlerFunc) { mux.Handle(pattern, e.apiMiddleware(h)) }
	api("POST /v1/subscriptions", e.createSubscription)
	api("GET /v1/subscriptions", e.listSubscriptions)
	api("GET /v1/subscriptions/{id}", e.getSubscription)
	api("GET /v1/plans", e.listPlans)
	api("GET /v1/plans/{id}", e.getPlan)
	api("GET /v1/esims", e.listEsims)
	api("GET /v1/esims/{iccid}", e.getEsim)
	api("/v1/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, newError(codeNotFound, "no operation "+r.Method+" "+r.URL.Path))
	})
	mux.HandleFunc("GET /openapi.yaml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		_, _ = w.Write(OpenAPIDocument())
	})
	e.controlRoutes(mux)
	e.mux = mux
}

// ServeHTTP implements http.Handler.
func (e *Emulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mux.ServeHTTP(w, r)
}

// apiMiddleware counts, injects faults, authenticates and applies the rate
// limit, in that order: the faults stand for what a proxy in front of the
// service does, and the limit is the service's, per token.
func (e *Emulator) apiMiddleware(next http.HandlerFunc) http.Handler {
	serve := func(w http.ResponseWriter, r *http.Request, rule *FaultRule) {
		if rule != nil && e.faults.answer(w, rule) {
			return
		}
		if !e.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mobileplan"`)
			writeError(w, http.StatusUnauthorized, newError(codeUnauthorized, "missing or invalid bearer token in the Authorization header"))
			return
		}
		if !e.quota.admit(w, e.tokenHash) { // the only token authorized passes
			return
		}
		if rule != nil && rule.Action == "drop" {
			// Process fully, then hang up: the client cannot tell whether
			// its request took effect.
			next(discardWriter{w.Header()}, r)
			hangUp(w)
			return
		}
		next(w, r)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.count(r.Pattern)
		// The answer is dated by the clock that dates what the service
		// makes (createdAt), as a real service's are: a client that looks
		// for what it made reads how far that clock is from its own.
		w.Header().Set("Date", time.Unix(e.Now(), 0).UTC().Format(http.TimeFormat))
		latency, rule := e.faults.plan(r)
		switch {
		case latency == 0:
			serve(w, r, rule)
		case rule != nil && (rule.Action == "drop" || rule.Action == "reset"):
			// Faults of the connection itself need it: the delay comes
			// first, as the network's would.
			select {
			case <-time.After(latency):
				serve(w, r, rule)
			case <-r.Context().Done():
			}
		default:
			// A slow service has already acted on what it received when
			// the client gives up waiting (the contract): the request is
			// served at once, and only its answer waits.
			held := httptest.NewRecorder()
			serve(held, r, rule)
			select {
			case <-time.After(latency):
				maps.Copy(w.Header(), held.Header())
				w.WriteHeader(held.Code)
				_, _ = w.Write(held.Body.Bytes())
			case <-r.Context().Done():
			}
		}
	})
}

func (e *Emulator) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") { // the scheme is case-insensitive (RFC 7235)
		return false
	}
	// Hashing first makes the comparison constant-time in the token's
	// length as well as its content.
	got := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(got[:], e.tokenHash[:]) == 1
}

func (e *Emulator) count(pattern string) {
	e.countsMu.Lock()
	e.counts[pattern]++
	e.countsMu.Unlock()
}

// RequestCounts returns how many /v1 requests each route received, keyed by
// route pattern such as "GET /v1/esims".
func (e *Emulator) RequestCounts() map[string]int {
	e.countsMu.Lock()
	defer e.countsMu.Unlock()
	out := make(map[string]int, len(e.counts))
	for k, v := range e.counts {
		out[k] = v
	}
	return out
}

// SetFaults replaces the fault configuration; Faults{} turns faults off.
// Settings that fail Faults.Validate are logged and ignored.
func (e *Emulator) SetFaults(f Faults) {
	if err := f.Validate(); err != nil {
		e.logger.Printf("faults: ignoring invalid settings: %v", err)
		return
	}
	e.faults.set(f)
}

// commitThenNotify runs op as one change of the state and, once the change
// is stored, sends the webhook events op announced. A refused or unstored
// change announces nothing.
func (e *Emulator) commitThenNotify(op func(tx *state.Tx, announce *[]any) error) error {
	var events []any
	err := e.state.Update(func(tx *state.Tx) error {
		events = events[:0]
		return op(tx, &events)
	})
	if err != nil {
		var se *state.StorageError
		if errors.As(err, &se) {
			e.logger.Printf("state: cannot write %s: %v", e.opts.StatePath, se.Err)
		}
		return err
	}
	e.emit(events)
	return nil
}

func (e *Emulator) emit(events []any) {
	if e.hooks != nil && len(events) > 0 {
		e.hooks.enqueue(events)
	}
}

func isLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

type discardWriter struct{ h http.Header }

func (d discardWriter) Header() http.Header         { return d.h }
func (d discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d discardWriter) WriteHeader(int)             {}
