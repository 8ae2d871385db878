package emulator_test

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// A second emulator on the same -state file fails at
// once, with a message that says why, instead of overwriting the first.
func TestStateFileLockedByAnotherEmulator(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.db")
	first, err := emulator.New(emulator.Options{Token: "t", StatePath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	start := time.Now()
	second, err := emulator.New(emulator.Options{Token: "t", StatePath: path})
	if err == nil {
		second.Close()
		t.Fatal("a second emulator started on a state file another one uses")
	}
	if !strings.Contains(err.Error(), "in use") || !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not say the file %s is in use", err, path)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the second start took %v to fail", d)
	}
	// Once the first one stops, the file can be used again.
	first.Close()
	third, err := emulator.New(emulator.Options{Token: "t", StatePath: path})
	if err != nil {
		t.Fatalf("after the first emulator closed: %v", err)
	}
	third.Close()
}

// An inconsistent state is refused at start, with a
// message naming the first problem. The states are written in the JSON
// format of earlier versions, which the emulator reads to migrate.
func TestStateInconsistentRefused(t *testing.T) {
	t.Parallel()
	const key = `"cursorKey":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",`
	plan := `{"id":"plan_a","name":"a","dataMegaBytes":10,"periodDays":1,"periodIterations":1}`
	esim := func(n uint64, sub string) string {
		s := `null`
		if sub != "" {
			s = `"` + sub + `"`
		}
		return `{"iccid":"` + state.ICCID(n) + `","smdpState":"AVAILABLE","subscriptionId":` + s + `}`
	}
	sub := func(seq int, id string, n uint64) string {
		return `{"seq":` + itoa(seq) + `,"id":"` + id + `","attachmentId":"att","esimIccid":"` + state.ICCID(n) +
			`","planId":"plan_a","plan":{"name":"a","dataMegaBytes":10,"periodDays":1,"periodIterations":1},"createdAt":1,` +
			`"purchased":{"dataBytes":10000000},"remaining":{"dataBytes":10000000},"metadata":{}}`
	}
	stateJSON := func(esims, subs []string) string {
		return `{"version":1,` + key + `"clockOffset":0,"customPlans":0,"plans":[` + plan + `],"esims":[` +
			strings.Join(esims, ",") + `],"subscriptions":[` + strings.Join(subs, ",") + `]}`
	}
	for name, c := range map[string]struct{ content, want string }{
		"duplicate subscription id":         {stateJSON([]string{esim(1, "sub_a"), esim(2, "sub_a")}, []string{sub(1, "sub_a", 1), sub(2, "sub_a", 2)}), "duplicate"},
		"two subscriptions on one eSIM":     {stateJSON([]string{esim(1, "sub_a"), esim(2, "")}, []string{sub(1, "sub_a", 1), sub(2, "sub_b", 1)}), state.ICCID(1)},
		"subscription on unknown eSIM":      {stateJSON([]string{esim(1, "")}, []string{sub(1, "sub_a", 7)}), state.ICCID(7)},
		"out-of-order seq":                  {stateJSON([]string{esim(1, "sub_a"), esim(2, "sub_b")}, []string{sub(2, "sub_a", 1), sub(1, "sub_b", 2)}), "seq"},
		"eSIM names a missing subscription": {stateJSON([]string{esim(1, "sub_zz")}, nil), "sub_zz"},
		"missing parts":                     {`{"version":1}`, "cursorKey"},
		"no plans":                          {`{"version":1,` + key + `"esims":[],"subscriptions":[]}`, "plans"},
		"subscription without allowance":    {strings.Replace(stateJSON([]string{esim(1, "sub_a")}, []string{sub(1, "sub_a", 1)}), `"purchased":{"dataBytes":10000000}`, `"purchased":{}`, 1), "purchased"},
		"subscription on unknown plan":      {strings.Replace(stateJSON([]string{esim(1, "sub_a")}, []string{sub(1, "sub_a", 1)}), `"planId":"plan_a"`, `"planId":"plan_zz"`, 1), "plan_zz"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(c.content), 0o600); err != nil {
				t.Fatal(err)
			}
			e, err := emulator.New(emulator.Options{Token: "t", StatePath: path})
			if err == nil {
				e.Close()
				t.Fatal("New accepted an inconsistent state")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not name %q", err, c.want)
			}
		})
	}
}

func itoa(n int) string { return jsonNumber(n) }

func jsonNumber(n int) string { b, _ := json.Marshal(n); return string(b) }

// Control operations refuse what a browser page on
// another site could send: no JSON content type, or an Origin or Host that
// is not loopback (DNS rebinding).
func TestControlRefusesCrossSiteRequests(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(3, 0)})
	create(t, srv, planBasic)
	call := func(method, path, contentType, origin, host, body string) int {
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if host != "" {
			req.Host = host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body2 emulator.ErrorBody
		if resp.StatusCode >= 400 {
			if err := json.NewDecoder(resp.Body).Decode(&body2); err != nil || body2.Code == "" {
				t.Errorf("%s %s: %d without an Error body", method, path, resp.StatusCode)
			}
		}
		return resp.StatusCode
	}
	for _, c := range []struct {
		name                              string
		method, path, ctype, origin, host string
	}{
		{"text/plain reset", "POST", "/_emulator/reset", "text/plain", "", ""},
		{"form reset", "POST", "/_emulator/reset", "application/x-www-form-urlencoded", "", ""},
		{"no content type", "POST", "/_emulator/clock/advance", "", "", ""},
		{"foreign origin", "POST", "/_emulator/reset", "application/json", "http://evil.example", ""},
		{"null origin", "POST", "/_emulator/reset", "application/json", "null", ""},
		{"foreign host (rebinding)", "POST", "/_emulator/reset", "application/json", "", "evil.example:8089"},
		{"foreign host on GET", "GET", "/_emulator/stats", "", "", "evil.example"},
		{"foreign origin on PUT", "PUT", "/_emulator/faults", "application/json", "https://evil.example", ""},
	} {
		if got := call(c.method, c.path, c.ctype, c.origin, c.host, `{"seconds":60}`); got != http.StatusForbidden && got != http.StatusUnsupportedMediaType {
			t.Errorf("%s: %d, want 403 or 415", c.name, got)
		}
	}
	if st := srv.Stats(); st.Subscriptions != 1 {
		t.Errorf("a refused request changed the state: %+v", st)
	}
	// What scripts and tests send is still accepted, from loopback names.
	for _, host := range []string{"", "localhost", "localhost:8089", "127.0.0.2:1", "[::1]:8089"} {
		if got := call("POST", "/_emulator/clock/advance", "application/json; charset=utf-8", "", host, `{"seconds":60}`); got != 200 {
			t.Errorf("JSON advance with Host %q: %d, want 200", host, got)
		}
	}
	if got := call("POST", "/_emulator/reset", "application/json", "http://localhost:3000", "", ""); got != 204 {
		t.Errorf("loopback origin: %d, want 204", got)
	}
}

// Fault settings are validated, and GET shows what is
// left of the rules.
func TestFaultSettingsValidated(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(3, 0)})
	for _, body := range []string{
		`{"rules":[{"action":"status","status":1}]}`,
		`{"rules":[{"action":"status","status":42}]}`,
		`{"rules":[{"action":"status","status":99}]}`,
		`{"rules":[{"action":"status","status":1000}]}`,
		`{"rules":[{"action":"status","status":302}]}`,
		`{"rules":[{"action":"html","status":600}]}`,
		`{"rules":[{"action":"empty","status":-1}]}`,
		`{"rules":[{"action":"explode"}]}`,
		`{"rules":[{"action":"status","status":500,"times":-1}]}`,
		`{"errorRate":0.5,"statuses":[1]}`,
		`{"errorRate":0.5,"postStatuses":[200]}`,
		`{"errorRate":2}`,
		`{"latencyMs":-5}`,
	} {
		r := ctl(t, srv, "PUT", "/_emulator/faults", body)
		if r.Status != 400 {
			t.Errorf("PUT %s: %s, want 400", body, r)
			continue
		}
		requireError(t, r, 400, "invalidRequest")
	}
	// Nothing invalid was kept: requests are served normally.
	mustStatus(t, api(t, srv, "GET", "/v1/plans", ""), 200)

	mustStatus(t, ctl(t, srv, "PUT", "/_emulator/faults", `{"rules":[{"method":"GET","pathPrefix":"/v1/plans","action":"status","status":503,"after":1,"times":2}]}`), 200)
	left := func() []emulator.FaultRule {
		return decode[emulator.Faults](t, ctl(t, srv, "GET", "/_emulator/faults", "")).Rules
	}
	mustStatus(t, api(t, srv, "GET", "/v1/plans", ""), 200) // let through by "after"
	if r := left(); len(r) != 1 || r[0].After != 0 || r[0].Times != 2 {
		t.Errorf("after one request let through: %+v, want after 0, times 2", r)
	}
	mustStatus(t, api(t, srv, "GET", "/v1/plans", ""), 503)
	if r := left(); len(r) != 1 || r[0].Times != 1 {
		t.Errorf("after one firing: %+v, want times 1", r)
	}
	mustStatus(t, api(t, srv, "GET", "/v1/plans", ""), 503)
	if r := left(); len(r) != 0 {
		t.Errorf("a rule that has fired all its times is still listed: %+v", r)
	}
	mustStatus(t, api(t, srv, "GET", "/v1/plans", ""), 200)
}

// The clock advances by a bounded amount.
func TestClockAdvanceBounded(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(3, 0)})
	before := srv.Now()
	for _, s := range []int64{math.MaxInt64, math.MaxInt64 / 2, state.MaxClockOffsetSeconds + 1} {
		requireError(t, ctl(t, srv, "POST", "/_emulator/clock/advance", `{"seconds":`+jsonNumber64(s)+`}`), 400, "invalidRequest")
	}
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/clock/advance", `{"seconds":`+jsonNumber64(state.MaxClockOffsetSeconds-10)+`}`), 200)
	requireError(t, ctl(t, srv, "POST", "/_emulator/clock/advance", `{"seconds":3600}`), 400, "invalidRequest")
	if now := srv.Now(); now < before {
		t.Errorf("clock went backwards: %d < %d", now, before)
	}
	if sub := create(t, srv, planBasic); sub.CreatedAt < before {
		t.Errorf("createdAt %d is before the start %d", sub.CreatedAt, before)
	}
}

func jsonNumber64(n int64) string { b, _ := json.Marshal(n); return string(b) }

// A redirect is not followed; a 3xx is a failed
// delivery, retried, then dropped and counted as dropped.
func TestWebhookRedirectIsNotDelivery(t *testing.T) {
	t.Parallel()
	var target, redirects atomic.Int64
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			target.Add(1)
			w.WriteHeader(200)
			return
		}
		redirects.Add(1)
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	t.Cleanup(rcv.Close)
	srv := emulatortest.Start(t, emulator.Options{
		Dataset: smallDataset(3, 0),
		Webhook: emulator.WebhookOptions{URL: rcv.URL + "/hook", Secret: webhookSecret, MaxAttempts: 3, BaseBackoff: time.Millisecond},
	})
	sub := create(t, srv, planBasic)
	moveEsim(t, srv, sub.EsimICCID, "FR")
	eventually(t, 10*time.Second, "delivery given up", func() bool {
		st := srv.Stats().Webhooks
		return st != nil && st.Dropped+st.Delivered >= 1
	})
	st := srv.Stats().Webhooks
	if st.Delivered != 0 || st.Dropped != 1 || st.Failed != 3 || st.Attempts != 3 {
		t.Errorf("stats %+v, want 0 delivered, 3 attempts failed, 1 event dropped", st)
	}
	if target.Load() != 0 || redirects.Load() != 3 {
		t.Errorf("redirect target got %d calls, redirecting receiver %d; want 0 and 3", target.Load(), redirects.Load())
	}
}
