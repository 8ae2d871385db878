package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/webhook"
)

const secret = "whsec_receiver_test"

func post(t *testing.T, h http.Handler, body, signature string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/hooks", strings.NewReader(body))
	if signature != "" {
		req.Header.Set(webhook.SignatureHeader, signature)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestHandlerAnswers(t *testing.T) {
	t.Parallel()
	activated := `{"type":"subscription.activated","timestamp":1700000000,"subscriptionId":"sub_1","esimIccid":"8900000000000000001","planId":"plan_001"}`
	var handled []webhook.Event
	h := webhook.Handler(secret, func(_ context.Context, ev webhook.Event) error {
		handled = append(handled, ev)
		if ev.(*webhook.SubscriptionActivatedEvent).SubscriptionID == "sub_fails" {
			return errors.New("database down at db.internal:5432")
		}
		return nil
	})
	for name, c := range map[string]struct {
		body, signature string
		status          int
		inBody          string
	}{
		"authentic event":     {activated, webhook.Sign(secret, []byte(activated)), 204, ""},
		"no signature":        {activated, "", 401, "missing"},
		"other secret":        {activated, webhook.Sign("whsec_other", []byte(activated)), 401, "not authentic"},
		"body changed":        {activated + " ", webhook.Sign(secret, []byte(activated)), 401, "not authentic"},
		"not an event":        {`{"type":"nope"}`, webhook.Sign(secret, []byte(`{"type":"nope"}`)), 400, "unknown event type"},
		"handler fails":       {strings.Replace(activated, "sub_1", "sub_fails", 1), webhook.Sign(secret, []byte(strings.Replace(activated, "sub_1", "sub_fails", 1))), 500, "deliver it again"},
		"body beyond a limit": {strings.Repeat("x", webhook.MaxBodyBytes+1), "00", 413, ""},
	} {
		rec := post(t, h, c.body, c.signature)
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.inBody) {
			t.Errorf("%s: %d %q, want %d with %q", name, rec.Code, rec.Body, c.status, c.inBody)
		}
		if strings.Contains(rec.Body.String(), "db.internal") {
			t.Errorf("%s: the answer shows the handler's error: %q", name, rec.Body)
		}
	}
	if len(handled) != 2 {
		t.Errorf("handle ran %d times, want 2 (only for authentic events)", len(handled))
	}
	req := httptest.NewRequest(http.MethodGet, "/hooks", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d, want 405", rec.Code)
	}
}
