package emulator

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Faults makes the emulator misbehave the way a real service and the network
// in front of it do. All of it is off by default. Random faults are answered
// before the request is processed; rules can also act after processing
// (Action "drop"), which is the case a client must not retry.
type Faults struct {
	// LatencyMs holds back the answer to every /v1 request; a request
	// that is processed is acted on first, as a slow service does.
	LatencyMs int `json:"latencyMs"`
	// ErrorRate is the fraction (0..1) of /v1 requests answered with an
	// injected error instead of being processed.
	ErrorRate float64 `json:"errorRate"`
	// Statuses are the injected answers for GET requests; default 429, 500,
	// 502, 503.
	Statuses []int `json:"statuses,omitempty"`
	// PostStatuses are the injected answers for POST requests; default 429
	// only, since any 5xx to a POST leaves a client unable to know whether
	// the subscription was created.
	PostStatuses []int `json:"postStatuses,omitempty"`
	// RetryAfterSeconds is sent with every injected 429; default 1.
	RetryAfterSeconds int `json:"retryAfterSeconds"`
	// Seed makes the random choices repeatable.
	Seed uint64 `json:"seed"`
	// Rules are applied, in order, before the random faults.
	Rules []FaultRule `json:"rules,omitempty"`
}

// FaultRule injects one kind of fault into requests that match it.
type FaultRule struct {
	// Method, PathPrefix and Path (the whole path, so that a rule can hit
	// /v1/subscriptions and not /v1/subscriptions/{id}) select requests;
	// empty matches any.
	Method     string `json:"method,omitempty"`
	PathPrefix string `json:"pathPrefix,omitempty"`
	Path       string `json:"path,omitempty"`
	// Action is one of:
	//   "status":    answer Status with an Error body (429 gets Retry-After)
	//   "html":      answer Status (default 502) with an HTML page, as a proxy would
	//   "empty":     answer Status (default 502) with an empty body
	//   "malformed": answer 200 with a body that is not JSON
	//   "drop":      process the request, then close the connection unanswered
	//   "reset":     close the connection without processing the request
	Action string `json:"action"`
	Status int    `json:"status,omitempty"`
	// After lets this many matching requests through before the rule acts,
	// so that, say, the second page of a list fails.
	After int `json:"after,omitempty"`
	// Times is how many requests the rule applies to; 0 means every one.
	Times int `json:"times,omitempty"`
}

type faultInjector struct {
	mu    sync.Mutex
	f     Faults
	rng   *rand.Rand
	seen  []int // per rule: matching requests so far
	fired []int // per rule: requests it acted on
}

func (fi *faultInjector) set(f Faults) {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	if len(f.Statuses) == 0 {
		f.Statuses = []int{429, 500, 502, 503}
	}
	if len(f.PostStatuses) == 0 {
		f.PostStatuses = []int{429}
	}
	if f.RetryAfterSeconds <= 0 {
		f.RetryAfterSeconds = 1
	}
	fi.f = f
	fi.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	fi.seen = make([]int, len(f.Rules))
	fi.fired = make([]int, len(f.Rules))
}

// get returns the settings with each rule as it stands now: what is left
// of its After and Times, and without the rules that have fired all their
// times.
func (fi *faultInjector) get() Faults {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	out := fi.f
	out.Rules = nil
	for i, rule := range fi.f.Rules {
		rule.After = max(rule.After-fi.seen[i], 0)
		if rule.Times > 0 {
			rule.Times -= fi.fired[i]
			if rule.Times <= 0 {
				continue
			}
		}
		out.Rules = append(out.Rules, rule)
	}
	return out
}

// Limits of fault settings.
const maxLatencyMs = 60_000

// Validate rejects settings that cannot be carried out: injected statuses
// must be error statuses (400 to 599), since anything else is either not an
// error or not an HTTP status at all.
func (f Faults) Validate() error {
	switch {
	case f.LatencyMs < 0 || f.LatencyMs > maxLatencyMs:
		return fmt.Errorf("latencyMs must be from 0 to %d", maxLatencyMs)
	case f.ErrorRate < 0 || f.ErrorRate > 1 || math.IsNaN(f.ErrorRate):
		return errors.New("errorRate must be from 0 to 1")
	case f.RetryAfterSeconds < 0:
		return errors.New("retryAfterSeconds must not be negative")
	}
	for name, list := range map[string][]int{"statuses": f.Statuses, "postStatuses": f.PostStatuses} {
		for _, st := range list {
			if !errorStatus(st) {
				return fmt.Errorf("%s: %d is not an error status (400 to 599)", name, st)
			}
		}
	}
	for i, r := range f.Rules {
		switch {
		case !slices.Contains(faultActions, r.Action):
			return fmt.Errorf("rules[%d]: action %q is not one of %s", i, r.Action, strings.Join(faultActions, ", "))
		case r.Status != 0 && !errorStatus(r.Status):
			return fmt.Errorf("rules[%d]: status %d is not an error status (400 to 599)", i, r.Status)
		case r.After < 0 || r.Times < 0:
			return fmt.Errorf("rules[%d]: after and times must not be negative", i)
		}
	}
	return nil
}

var faultActions = []string{"status", "html", "empty", "malformed", "drop", "reset"}

func errorStatus(st int) bool { return st >= 400 && st <= 599 }

// plan decides what happens to r: the latency to add and the rule to apply
// (nil: serve normally).
func (fi *faultInjector) plan(r *http.Request) (time.Duration, *FaultRule) {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	latency := time.Duration(fi.f.LatencyMs) * time.Millisecond
	for i := range fi.f.Rules {
		rule := &fi.f.Rules[i]
		if rule.Method != "" && !strings.EqualFold(rule.Method, r.Method) {
			continue
		}
		if !strings.HasPrefix(r.URL.Path, rule.PathPrefix) || (rule.Path != "" && r.URL.Path != rule.Path) {
			continue
		}
		fi.seen[i]++
		if fi.seen[i] <= rule.After || (rule.Times > 0 && fi.fired[i] >= rule.Times) {
			continue
		}
		fi.fired[i]++
		applied := *rule
		return latency, &applied
	}
	if fi.f.ErrorRate > 0 && fi.rng.Float64() < fi.f.ErrorRate {
		pool := fi.f.Statuses
		if r.Method == http.MethodPost {
			pool = fi.f.PostStatuses
		}
		return latency, &FaultRule{Action: "status", Status: pool[fi.rng.IntN(len(pool))]}
	}
	return latency, nil
}

func (fi *faultInjector) retryAfter() int {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	return fi.f.RetryAfterSeconds
}

// answer writes an injected answer for rules that do not let the request
// through. It reports false for "drop", which the caller handles after
// processing.
func (fi *faultInjector) answer(w http.ResponseWriter, rule *FaultRule) bool {
	status := rule.Status
	switch rule.Action {
	case "status":
		if status == 0 {
			status = http.StatusServiceUnavailable
		}
		body := newError(codeInternal, "injected fault: the service is failing")
		switch {
		case status == http.StatusTooManyRequests:
			w.Header().Set("Retry-After", strconv.Itoa(fi.retryAfter()))
			body = newError(codeRateLimited, "too many requests; retry after the time in Retry-After")
		case status == http.StatusUnauthorized:
			w.Header().Set("WWW-Authenticate", `Bearer realm="mobileplan"`)
			body = newError(codeUnauthorized, "the access token was revoked")
		case status == http.StatusNotFound:
			body = newError(codeNotFound, "injected fault: not found")
		case status < 500:
			body = newError(codeInvalidRequest, "injected fault")
		}
		writeError(w, status, body)
	case "html":
		if status == 0 {
			status = http.StatusBadGateway
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		_, _ = w.Write(proxyPage(status))
	case "empty":
		if status == 0 {
			status = http.StatusBadGateway
		}
		w.WriteHeader(status)
	case "malformed":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"id": "sub_trunc`))
	case "reset":
		hangUp(w)
	default:
		return false
	}
	return true
}

// hangUp closes the client's connection without an answer.
func hangUp(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler) // net/http closes the connection for us
}

// proxyPage is the page nginx answers with when it cannot reach what it
// fronts, for the status it is sent with.
func proxyPage(status int) []byte {
	title := strings.TrimSpace(fmt.Sprintf("%d %s", status, http.StatusText(status)))
	return fmt.Appendf(nil, "<html><head><title>%s</title></head><body><center><h1>%s</h1></center><hr><center>nginx</center></body></html>\n", title, title)
}
