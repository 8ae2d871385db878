package client

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// testUserAgent is the User-Agent every test client sends.
const testUserAgent = "terraform-provider-mobileplan/test (+client_test)"

// socketRetryWait is the backoff of test clients that reach a server over
// a socket. Such a test cannot run in a synctest bubble, whose clock stands
// still while a goroutine waits on the network, so its retries wait a real
// millisecond; the lengths of the waits are tested in bubbles, on the
// defaults (startInProcess, startHandlerInProcess).
const socketRetryWait = time.Millisecond

// newTestClient builds a client for baseURL with the emulator's token, the
// test User-Agent and socketRetryWait; mod may change the Config first.
func newTestClient(t *testing.T, baseURL string, mod func(*Config)) *Client {
	t.Helper()
	cfg := Config{
		BaseURL:       baseURL,
		Token:         emulatortest.Token,
		UserAgent:     testUserAgent,
		MinRetryWait:  socketRetryWait,
		MaxRetryWait:  socketRetryWait,
		MaxRetryAfter: socketRetryWait,
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// startEmulator starts an emulator holding ds (nil: the default data set).
func startEmulator(t *testing.T, ds *state.Dataset) *emulatortest.Server {
	t.Helper()
	return emulatortest.Start(t, emulator.Options{Dataset: ds})
}

// startWithClient starts an emulator holding ds (nil: the default data set)
// and a client of it with the test defaults.
func startWithClient(t *testing.T, ds *state.Dataset) (*emulatortest.Server, *Client) {
	t.Helper()
	emu := startEmulator(t, ds)
	return emu, newTestClient(t, emu.URL, nil)
}

// startWithFaults starts an emulator holding the default data set whose
// answers follow rules.
func startWithFaults(t *testing.T, rules ...emulator.FaultRule) *emulatortest.Server {
	t.Helper()
	emu := startEmulator(t, nil)
	emu.SetFaults(emulator.Faults{Rules: rules})
	return emu
}

// expectOnePOST fails the test unless exactly one create reached emu: it
// was not retried; why, if given, says why that matters.
func expectOnePOST(t *testing.T, emu *emulatortest.Server, why string) {
	t.Helper()
	if why != "" {
		why = "; " + why
	}
	if n := emu.RequestCounts()["POST /v1/subscriptions"]; n != 1 {
		t.Errorf("POSTs = %d%s", n, why)
	}
}

// mustCollect is Collect where an error fails the test.
func mustCollect[T any](t *testing.T, seq iter.Seq2[T, error], keep func(T) bool, limit int) []T {
	t.Helper()
	items, err := Collect(seq, keep, limit)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func dataset(plans, esims int) *state.Dataset {
	ds := emulator.DefaultDataset(plans, esims)
	return &ds
}

// counter counts requests per "METHOD path" in an httptest handler.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) add(r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[r.Method+" "+r.URL.Path]++
}

func (c *counter) get(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[key]
}

func (c *counter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.n {
		n += v
	}
	return n
}

// startServer serves h on a loopback httptest server until the test ends.
func startServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// closedAddress returns a base URL on which nothing listens: connecting to it
// is refused, so no request can reach any server.
func closedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

func writeJSONResponse(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeServiceError(w http.ResponseWriter, status int, code, message string) {
	writeJSONResponse(w, status, map[string]any{"code": code, "message": message, "docsUrl": nil})
}

// subscriptionJSON is a complete Subscription as the service sends it.
const subscriptionJSON = `{
  "id": "sub_0123456789abcdef",
  "esimIccid": "8988247000000000013",
  "planId": "plan_001",
  "plan": {"name": "global 1 GB / 7 days", "dataMegaBytes": 1024, "periodDays": 7, "periodIterations": 1,
           "throttledSpeedKbps": 0, "label": "global", "coverageProfileId": "cov-global"},
  "createdAt": 1767225600,
  "activatedAt": null,
  "expireAt": null,
  "purchasedAllowance": {"dataBytes": 1024000000, "voiceSeconds": null, "smsMessages": null},
  "remainingAllownace": {"dataBytes": 1024000000, "voiceSeconds": null, "smsMessages": null},
  "state": "ready",
  "metadata": {}
}`

// syncBuffer is a bytes.Buffer safe for concurrent writers (log output).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// countingTransport counts the response body bytes the client reads.
type countingTransport struct {
	next http.RoundTripper
	read atomic.Int64
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, n: &t.read}
	return resp, nil
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

func ptr[T any](v T) *T { return &v }

var bg = context.Background()

// dump renders v as JSON for failure messages.
func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// strList is a string slice that handlers append to concurrently.
type strList struct {
	mu sync.Mutex
	v  []string
}

func (l *strList) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.v = append(l.v, s)
}

func (l *strList) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.v...)
}

// startInProcess starts an emulator with opts (its token set to the test
// token) and a client that reaches it in process; mod may change the
// client's Config first. Call it inside a synctest bubble.
func startInProcess(t *testing.T, opts emulator.Options, mod func(*Config)) (*emulator.Emulator, *Client) {
	t.Helper()
	opts.Token = emulatortest.Token
	emu := emulatortest.StartInProcess(t, opts)
	return emu.Emulator, inProcessClient(t, emu.Transport(), mod)
}

// startHandlerInProcess is a client whose requests h answers in process;
// mod may change the client's Config first. Call it inside a synctest
// bubble.
func startHandlerInProcess(t *testing.T, h http.HandlerFunc, mod func(*Config)) *Client {
	t.Helper()
	return inProcessClient(t, emulatortest.HandlerTransport(h), mod)
}

// inProcessClient is a client of the default waits whose requests transport
// answers without a socket: in a synctest bubble, its waits are fake time.
func inProcessClient(t *testing.T, transport http.RoundTripper, mod func(*Config)) *Client {
	t.Helper()
	return newTestClient(t, emulatortest.URL, func(cfg *Config) {
		cfg.Transport = transport
		cfg.MinRetryWait, cfg.MaxRetryWait, cfg.MaxRetryAfter = 0, 0, 0 // the defaults
		if mod != nil {
			mod(cfg)
		}
	})
}

// sendTimes records when each request is sent, in a slice only one
// request at a time may use.
type sendTimes struct {
	next  http.RoundTripper
	times *[]time.Time
}

func (s sendTimes) RoundTrip(req *http.Request) (*http.Response, error) {
	*s.times = append(*s.times, time.Now())
	return s.next.RoundTrip(req)
}

// suggestions are the suggestions of e's details, in order.
func suggestions(e *APIError) []string {
	var out []string
	for _, d := range e.Details {
		if d.Suggestion != "" {
			out = append(out, d.Suggestion)
		}
	}
	return out
}
