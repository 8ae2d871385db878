package client

// Tests of retry.go's rule 3: a create (POST) is sent again only when the
// service cannot have acted, when its request was never written in full;
// never after a 5xx, a timeout, a dropped connection or an answer it could
// not read once it was sent. Those end as an UncertainCreateError.

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

func TestRetryPOSTConnectionRefused(t *testing.T) {
	t.Parallel()
	c := newTestClient(t, closedAddress(t), func(cfg *Config) { cfg.MaxRetries = ptr(3) })
	_, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_001"})
	var uncertain *UncertainCreateError
	if errors.As(err, &uncertain) {
		t.Errorf("a refused connection cannot have created anything; got %v", err)
	}
	var reqErr *RequestError
	if !errors.As(err, &reqErr) || reqErr.Attempts != 4 || reqErr.Method != "POST" {
		t.Fatalf("error = %v, want a RequestError after 4 attempts: nothing was sent, so retrying is safe", err)
	}
}

// uncertainCreate creates a subscription from plan_001 with c and checks
// that the error is an UncertainCreateError saying that the create may have
// taken effect; it returns that error. The advice on finding and importing it is
// the diagnostics' (TestDetailTexts in internal/diagnostics).
func uncertainCreate(t *testing.T, c *Client) error {
	t.Helper()
	_, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_001"})
	var uncertain *UncertainCreateError
	if !errors.As(err, &uncertain) {
		t.Fatalf("error = %v (%T), want *UncertainCreateError", err, err)
	}
	for _, part := range []string{"may have created", "not retried"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error text %q lacks %q", err, part)
		}
	}
	return err
}

// uncertainCreateUnder is uncertainCreate with a new client of an emulator
// whose answers follow rule.
func uncertainCreateUnder(t *testing.T, rule emulator.FaultRule) (emu *emulatortest.Server, c *Client, err error) {
	t.Helper()
	emu = startWithFaults(t, rule)
	c = newTestClient(t, emu.URL, nil)
	return emu, c, uncertainCreate(t, c)
}

func TestNoRetryPOST5xx(t *testing.T) {
	t.Parallel()
	for _, rule := range []emulator.FaultRule{
		{Action: "status", Status: 500}, {Action: "status", Status: 501}, {Action: "status", Status: 502},
		{Action: "status", Status: 503}, {Action: "status", Status: 504},
		{Action: "html"}, {Action: "empty"}, {Action: "html", Status: 504},
	} {
		t.Run(fmt.Sprintf("%s-%d", rule.Action, rule.Status), func(t *testing.T) {
			t.Parallel()
			rule.Method = "POST"
			emu, _, err := uncertainCreateUnder(t, rule)
			want := rule.Status
			if want == 0 {
				want = 502
			}
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != want || apiErr.Attempts != 1 {
				t.Errorf("wrapped APIError = %s, want status %d after 1 attempt", dump(apiErr), want)
			}
			expectOnePOST(t, emu, "a 5xx to a POST must never be retried")
		})
	}
}

func TestNoRetryPOSTDroppedAfterProcessing(t *testing.T) {
	t.Parallel()
	emu, c, err := uncertainCreateUnder(t, emulator.FaultRule{Method: "POST", Action: "drop"})
	var reqErr *RequestError
	if !errors.As(err, &reqErr) || reqErr.Attempts != 1 {
		t.Errorf("wrapped error = %v, want the RequestError of a single attempt", err)
	}
	expectOnePOST(t, emu, "want exactly one POST")
	if s := emu.Stats().Subscriptions; s != 1 {
		t.Errorf("subscriptions = %d, want 1: the service did create it", s)
	}
	// The advice works: the newest subscription is the one created.
	newest, err := Collect(c.Subscriptions(bg), nil, 1)
	if err != nil || len(newest) != 1 || newest[0].PlanID != "plan_001" {
		t.Errorf("newest subscription = %s, %v", dump(newest), err)
	}
}

func TestNoRetryPOSTTimeout(t *testing.T) {
	t.Parallel()
	var calls counter
	srv := slowServer(t, &calls)
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.RequestTimeout = 100 * time.Millisecond })
	_ = uncertainCreate(t, c) // checked inside
	if n := calls.get("POST /v1/subscriptions"); n != 1 {
		t.Errorf("POSTs = %d; a POST that timed out after being sent is not retried", n)
	}
}

func TestNoRetryPOSTUnreadableAnswer(t *testing.T) {
	t.Parallel()
	emu, _, err := uncertainCreateUnder(t, emulator.FaultRule{Method: "POST", Action: "malformed"})
	var decErr *DecodeError
	if !errors.As(err, &decErr) || decErr.StatusCode != 200 {
		t.Errorf("wrapped error = %v, want a DecodeError of the 200", err)
	}
	expectOnePOST(t, emu, "")
}
