package emulator_test

import (
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

// The bearer scheme name is case-insensitive (RFC 7235); the token is not.
func TestAuthSchemeCaseInsensitive(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		mustStatus(t, send(t, "GET", srv.URL+"/v1/plans", scheme+" "+srv.Token, ""), 200)
	}
	requireError(t, send(t, "GET", srv.URL+"/v1/plans", "Bearer "+srv.Token+"x", ""), 401, "unauthorized")
	requireError(t, send(t, "GET", srv.URL+"/v1/plans", "Basic "+srv.Token, ""), 401, "unauthorized")
}

// Location and SM-DP+ events say something changed: repeating the same
// value sends nothing.
func TestNoEventWithoutChange(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Webhook: emulator.WebhookOptions{URL: "http://127.0.0.1:1/unused", Secret: "s"}})
	iccid := emulator.ICCID(1)
	for range 2 {
		moveEsim(t, srv, iccid, "FR")
		mustStatus(t, ctl(t, srv, "POST", "/_emulator/esims/"+iccid+"/smdp-state", `{"state":"RELEASED"}`), 200)
	}
	if q := srv.Stats().Webhooks.Queued; q != 2 {
		t.Errorf("%d events queued for two changes repeated twice, want 2", q)
	}
}

// Unknown control operations answer with the Error body, like the API.
func TestUnknownControlOperation(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{})
	requireError(t, ctl(t, srv, "POST", "/_emulator/nothing-here", ""), 404, "notFound")
}
