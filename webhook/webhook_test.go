package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
	"github.com/mobileplan/terraform-provider-mobileplan/webhook"
)

const webhookSecret = "whsec_test_5d1c"

// sign is the tests' own HMAC-SHA256, against which webhook.Sign is checked.
func sign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Sign is HMAC-SHA256 in lowercase hex (RFC 4231-style known answer).
func TestSignKnownAnswer(t *testing.T) {
	t.Parallel()
	got := webhook.Sign("key", []byte("The quick brown fox jumps over the lazy dog"))
	if want := "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"; got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
	if webhook.SignatureHeader != "service-signature" {
		t.Errorf("SignatureHeader %q", webhook.SignatureHeader)
	}
}

func TestVerifySignature(t *testing.T) {
	t.Parallel()
	body := []byte(`{"type":"subscription.activated","subscriptionId":"sub_1","esimIccid":"8988247000000000013","timestamp":1767225600}`)
	good := sign(webhookSecret, body)
	if good != webhook.Sign(webhookSecret, body) {
		t.Fatal("test signer disagrees with webhook.Sign")
	}
	tampered := append([]byte(nil), body...)
	tampered[len(tampered)-2] = '1'
	for _, tc := range []struct {
		name   string
		secret string
		body   []byte
		header string
		want   error
	}{
		{"valid", webhookSecret, body, good, nil},
		{"valid with surrounding space", webhookSecret, body, " " + good + "\t", nil},
		{"uppercase hex", webhookSecret, body, strings.ToUpper(good), nil}, // hex.DecodeString accepts both cases
		{"tampered body", webhookSecret, tampered, good, webhook.ErrBadSignature},
		{"reformatted body", webhookSecret, []byte(strings.ReplaceAll(string(body), ",", ", ")), good, webhook.ErrBadSignature},
		{"wrong secret", "whsec_other", body, good, webhook.ErrBadSignature},
		{"empty secret", "", body, good, webhook.ErrBadSignature},
		{"missing header", webhookSecret, body, "", webhook.ErrMissingSignature},
		{"blank header", webhookSecret, body, "   ", webhook.ErrMissingSignature},
		{"truncated header", webhookSecret, body, good[:len(good)-2], webhook.ErrBadSignature},
		{"odd-length header", webhookSecret, body, good[:len(good)-1], webhook.ErrBadSignature},
		{"extended header", webhookSecret, body, good + "00", webhook.ErrBadSignature},
		{"non-hex header", webhookSecret, body, strings.Repeat("zz", 32), webhook.ErrBadSignature},
		{"prefixed header", webhookSecret, body, "sha256=" + good, webhook.ErrBadSignature},
		{"base64 header", webhookSecret, body, "3q2+7w==", webhook.ErrBadSignature},
	} {
		if err := webhook.Verify(tc.secret, tc.body, tc.header); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("%s: webhook.Verify = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// The events below are written from the field lists of section 6 of the
// interface document.

func TestParseEventSubscriptionActivated(t *testing.T) {
	t.Parallel()
	ev, err := webhook.Parse([]byte(`{"type":"subscription.activated","subscriptionId":"sub_1a2b","esimIccid":"8988247000000000013","timestamp":1767225600}`))
	if err != nil {
		t.Fatal(err)
	}
	e, ok := ev.(*webhook.SubscriptionActivatedEvent)
	if !ok || e.SubscriptionID != "sub_1a2b" || e.EsimICCID != "8988247000000000013" || e.EventType() != webhook.TypeSubscriptionActivated || e.EventTimestamp() != 1767225600 {
		t.Errorf("ParseEvent = %T %s", ev, dump(ev))
	}
	// The document's sample omits esimIccid although it is declared required.
	ev, err = webhook.Parse([]byte(`{"type":"subscription.activated","subscriptionId":"sub_1a2b","timestamp":1767225600}`))
	if err != nil {
		t.Fatalf("V1 event without esimIccid: %v", err)
	}
	if e := ev.(*webhook.SubscriptionActivatedEvent); e.EsimICCID != "" || e.SubscriptionID != "sub_1a2b" {
		t.Errorf("ParseEvent = %s", dump(e))
	}
}

func TestParseEventThresholdBreached(t *testing.T) {
	t.Parallel()
	for _, service := range []string{"data", "voice", "sms"} {
		ev, err := webhook.Parse([]byte(`{"type":"subscription.allowance.thresholdBreached","subscriptionId":"sub_1a2b","breachedService":"` + service + `","threshold":80,"esimIccid":"8988247000000000013","timestamp":1767229200}`))
		if err != nil {
			t.Fatal(err)
		}
		e, ok := ev.(*webhook.SubscriptionAllowanceThresholdBreachedEvent)
		if !ok || e.SubscriptionID != "sub_1a2b" || e.BreachedService != service || e.Threshold != 80 || e.EsimICCID != "8988247000000000013" || e.Timestamp != 1767229200 {
			t.Errorf("ParseEvent = %T %s", ev, dump(ev))
		}
	}
	// As in the sample: no esimIccid.
	ev, err := webhook.Parse([]byte(`{"type":"subscription.allowance.thresholdBreached","subscriptionId":"sub_1a2b","breachedService":"data","threshold":50,"timestamp":1767229200}`))
	if err != nil {
		t.Fatalf("V1 event without esimIccid: %v", err)
	}
	if e := ev.(*webhook.SubscriptionAllowanceThresholdBreachedEvent); e.Threshold != 50 || e.EsimICCID != "" {
		t.Errorf("ParseEvent = %s", dump(e))
	}
}

func TestParseEventAttachmentActivated(t *testing.T) {
	t.Parallel()
	ev, err := webhook.Parse([]byte(`{
	  "type": "attachment.activated",
	  "timestamp": 1767225600,
	  "data": {
	    "esim": "8988247000000000013",
	    "plan": {"dataMegaBytes": 1024, "periodDays": 7, "periodIterations": 1, "throttledSpeedKbps": 0, "coverageProfileId": "cov-global", "label": "global"},
	    "attachmentId": "att_77aa"
	  }
	}`))
	if err != nil {
		t.Fatal(err)
	}
	e, ok := ev.(*webhook.AttachmentActivatedEvent)
	if !ok || e.Data.Esim != "8988247000000000013" || e.Data.AttachmentID != "att_77aa" || e.Data.Plan == nil || e.Timestamp != 1767225600 {
		t.Fatalf("ParseEvent = %T %s", ev, dump(ev))
	}
	p := e.Data.Plan
	if *p.DataMegaBytes != 1024 || *p.PeriodDays != 7 || *p.PeriodIterations != 1 || *p.ThrottledSpeedKbps != 0 || *p.CoverageProfileID != "cov-global" || *p.Label != "global" {
		t.Errorf("data.plan = %s", dump(p))
	}
	// The sample carries data.planId instead of data.plan.
	ev, err = webhook.Parse([]byte(`{"type":"attachment.activated","timestamp":1767225600,"data":{"esim":"8988247000000000013","planId":"plan_001","attachmentId":"att_77aa"}}`))
	if err != nil {
		t.Fatalf("attachment event with data.planId: %v", err)
	}
	if e := ev.(*webhook.AttachmentActivatedEvent); e.Data.PlanID != "plan_001" || e.Data.Plan != nil {
		t.Errorf("ParseEvent = %s", dump(e))
	}
	// Neither plan nor planId.
	_, err = webhook.Parse([]byte(`{"type":"attachment.activated","timestamp":1767225600,"data":{"esim":"8988247000000000013","attachmentId":"att_77aa"}}`))
	if err == nil || !strings.Contains(err.Error(), "data.plan") {
		t.Errorf("without a plan: error = %v, want one naming data.plan", err)
	}
}

func TestParseEventAllowanceConsumed(t *testing.T) {
	t.Parallel()
	ev, err := webhook.Parse([]byte(`{
	  "type": "attachment.allowanceConsumed",
	  "timestamp": 1767229200,
	  "data": {
	    "usagePercentage": 80.5,
	    "dataUsageBytes": 824320000,
	    "esim": "8988247000000000013",
	    "plan": {"dataMegaBytes": 1024, "periodDays": 7, "periodIterations": 1, "throttledSpeedKbps": 0, "coverageProfileId": null, "label": null},
	    "attachmentId": "att_77aa"
	  }
	}`))
	if err != nil {
		t.Fatal(err)
	}
	e, ok := ev.(*webhook.AttachmentAllowanceConsumedEvent)
	if !ok || e.Data.UsagePercentage != 80.5 || e.Data.DataUsageBytes != 824320000 || e.Data.Esim != "8988247000000000013" ||
		e.Data.AttachmentID != "att_77aa" || e.Data.Plan == nil || e.Data.Plan.Label != nil || e.Data.Plan.CoverageProfileID != nil {
		t.Errorf("ParseEvent = %T %s", ev, dump(ev))
	}
	// data.plan is optional; the sample carries data.planId.
	for _, body := range []string{
		`{"type":"attachment.allowanceConsumed","timestamp":1767229200,"data":{"usagePercentage":100,"dataUsageBytes":1024000000,"esim":"8988247000000000013","planId":"plan_001","attachmentId":"att_77aa"}}`,
		`{"type":"attachment.allowanceConsumed","timestamp":1767229200,"data":{"usagePercentage":50,"dataUsageBytes":512000000,"esim":"8988247000000000013","attachmentId":"att_77aa"}}`,
	} {
		if _, err := webhook.Parse([]byte(body)); err != nil {
			t.Errorf("ParseEvent(%s): %v", body, err)
		}
	}
}

func TestParseEventLocationChanged(t *testing.T) {
	t.Parallel()
	ev, err := webhook.Parse([]byte(`{"type":"subscriptionV2.esim.locationChanged","timestamp":1767232800,"data":{"esim":"8988247000000000013","countryIso2":"DE"}}`))
	if err != nil {
		t.Fatal(err)
	}
	e, ok := ev.(*webhook.SubscriptionV2EsimLocationChangedEvent)
	if !ok || e.Data.Esim != "8988247000000000013" || e.Data.CountryISO2 != "DE" || e.EventType() != webhook.TypeSubscriptionV2EsimLocationChanged {
		t.Errorf("ParseEvent = %T %s", ev, dump(ev))
	}
}

func TestParseEventSmdpStateChanged(t *testing.T) {
	t.Parallel()
	ev, err := webhook.Parse([]byte(`{"type":"esim.smdp.stateChanged","timestamp":1767236400,"data":{"esim":"8988247000000000013","smdpStateChange":{"state":"RELEASED","modifiedAt":1767236399,"modificationResult":"SUCCESS"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	e, ok := ev.(*webhook.EsimSmdpStateChangedEvent)
	if !ok || e.Data.Esim != "8988247000000000013" || e.Data.SmdpStateChange.State != "RELEASED" ||
		e.Data.SmdpStateChange.ModifiedAt != 1767236399 || e.Data.SmdpStateChange.ModificationResult != "SUCCESS" {
		t.Errorf("ParseEvent = %T %s", ev, dump(ev))
	}
}

func TestParseEventRejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ body, wantInError string }{
		{`{"type":"subscription.deleted","timestamp":1}`, `"subscription.deleted"`},
		{`{"type":"Subscription.Activated","subscriptionId":"s","timestamp":1}`, `"Subscription.Activated"`},
		{`{"timestamp":1,"subscriptionId":"s"}`, "no type"},
		{`{"type":"subscription.activated","esimIccid":"8988247000000000013","timestamp":1}`, "subscriptionId"},
		{`{"type":"subscription.allowance.thresholdBreached","subscriptionId":"s","threshold":50,"timestamp":1}`, "breachedService"},
		{`{"type":"subscription.allowance.thresholdBreached","breachedService":"data","threshold":50,"timestamp":1}`, "subscriptionId"},
		{`{"type":"attachment.activated","timestamp":1,"data":{"planId":"p","attachmentId":"a"}}`, "data.esim"},
		{`{"type":"attachment.activated","timestamp":1,"data":{"esim":"e","planId":"p"}}`, "data.attachmentId"},
		{`{"type":"attachment.allowanceConsumed","timestamp":1,"data":{"usagePercentage":50,"dataUsageBytes":1,"esim":"e"}}`, "data.attachmentId"},
		{`{"type":"subscriptionV2.esim.locationChanged","timestamp":1,"data":{"esim":"e"}}`, "data.countryIso2"},
		{`{"type":"subscriptionV2.esim.locationChanged","timestamp":1}`, "data.esim"},
		{`{"type":"esim.smdp.stateChanged","timestamp":1,"data":{"esim":"e","smdpStateChange":{}}}`, "data.smdpStateChange.state"},
		{`{"type":"subscription.allowance.thresholdBreached","subscriptionId":"s","breachedService":"data","threshold":"80","timestamp":1}`, "thresholdBreached"},
		{`{"type":"subscription.activated","subscriptionId":"s","timestamp":"yesterday"}`, "not a JSON event"},
		{`{"type":"subscription.activated"`, "not a JSON event"},
		{`[]`, "not a JSON event"},
		{``, "not a JSON event"},
	} {
		ev, err := webhook.Parse([]byte(tc.body))
		if err == nil {
			t.Errorf("ParseEvent(%s) = %s, want an error", tc.body, dump(ev))
			continue
		}
		if !strings.Contains(err.Error(), tc.wantInError) {
			t.Errorf("ParseEvent(%s) error = %q, want it to name %q", tc.body, err, tc.wantInError)
		}
	}
	// A missing field error names every missing field.
	_, err := webhook.Parse([]byte(`{"type":"attachment.activated","timestamp":1,"data":{}}`))
	if err == nil || !strings.Contains(err.Error(), "data.esim, data.plan, data.attachmentId") {
		t.Errorf("error = %v", err)
	}
}

func TestParseEventIgnoresUnknownFields(t *testing.T) {
	t.Parallel()
	ev, err := webhook.Parse([]byte(`{"type":"subscriptionV2.esim.locationChanged","timestamp":1,"id":"evt_1","apiVersion":"2","data":{"esim":"e","countryIso2":"FR","previousCountryIso2":"DE"}}`))
	if err != nil || ev.(*webhook.SubscriptionV2EsimLocationChangedEvent).Data.CountryISO2 != "FR" {
		t.Errorf("ParseEvent = %s, %v", dump(ev), err)
	}
}

// TestWebhookEndToEnd: the emulator delivers signed events to a receiver
// that verifies and parses them with the client's functions.
func TestWebhookEndToEnd(t *testing.T) {
	t.Parallel()
	var (
		mu       sync.Mutex
		events   []webhook.Event
		problems []string
	)
	// The receiver a team would write: webhook.Handler, with a record of
	// every call it refused.
	handler := webhook.Handler(webhookSecret, func(_ context.Context, ev webhook.Event) error {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, ev)
		return nil
	})
	receiver := startServer(t, func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, r)
		if rec.Code != http.StatusNoContent {
			mu.Lock()
			problems = append(problems, fmt.Sprintf("%d %s", rec.Code, rec.Body))
			mu.Unlock()
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
	emu := emulatortest.Start(t, emulator.Options{Webhook: emulator.WebhookOptions{
		URL: receiver.URL, Secret: webhookSecret, BaseBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond,
	}})
	c, err := client.New(client.Config{BaseURL: emu.URL, Token: emulatortest.Token})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := c.CreateSubscription(context.Background(), client.CreateSubscriptionRequest{PlanID: "plan_001"})
	if err != nil {
		t.Fatal(err)
	}
	if err := emu.Activate(sub.ID); err != nil {
		t.Fatal(err)
	}
	if err := emu.MoveEsim(sub.EsimICCID, "DE"); err != nil {
		t.Fatal(err)
	}
	if err := emu.SetSmdpState(sub.EsimICCID, "RELEASED"); err != nil {
		t.Fatal(err)
	}
	if err := emu.RecordUsage(sub.ID, 600_000_000); err != nil { // 58% of 1024 MB
		t.Fatal(err)
	}

	deadline := time.Now().Add(10 * time.Second)
	var got []webhook.Event
	for {
		mu.Lock()
		got = append(got[:0], events...)
		bad := append([]string(nil), problems...)
		mu.Unlock()
		if len(bad) > 0 {
			t.Fatalf("receiver rejected deliveries: %q", bad)
		}
		if len(got) >= 7 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	byType := map[string]webhook.Event{}
	for _, ev := range got {
		byType[ev.EventType()] = ev
	}
	act, ok := byType[webhook.TypeSubscriptionActivated].(*webhook.SubscriptionActivatedEvent)
	if !ok || act.SubscriptionID != sub.ID || act.EsimICCID != sub.EsimICCID || act.Timestamp == 0 {
		t.Errorf("subscription.activated = %s", dump(byType[webhook.TypeSubscriptionActivated]))
	}
	att, ok := byType[webhook.TypeAttachmentActivated].(*webhook.AttachmentActivatedEvent)
	if !ok || att.Data.Esim != sub.EsimICCID || att.Data.AttachmentID == "" || att.Data.Plan == nil || *att.Data.Plan.DataMegaBytes != 1024 || *att.Data.Plan.Label != "global" {
		t.Errorf("attachment.activated = %s", dump(byType[webhook.TypeAttachmentActivated]))
	}
	loc, ok := byType[webhook.TypeSubscriptionV2EsimLocationChanged].(*webhook.SubscriptionV2EsimLocationChangedEvent)
	if !ok || loc.Data.CountryISO2 != "DE" || loc.Data.Esim != sub.EsimICCID {
		t.Errorf("location changed = %s", dump(byType[webhook.TypeSubscriptionV2EsimLocationChanged]))
	}
	smdp, ok := byType[webhook.TypeEsimSmdpStateChanged].(*webhook.EsimSmdpStateChangedEvent)
	if !ok || smdp.Data.SmdpStateChange.State != "RELEASED" || smdp.Data.SmdpStateChange.ModificationResult != "SUCCESS" {
		t.Errorf("SM-DP+ state changed = %s", dump(byType[webhook.TypeEsimSmdpStateChanged]))
	}
	thr, ok := byType[webhook.TypeSubscriptionAllowanceThresholdBreached].(*webhook.SubscriptionAllowanceThresholdBreachedEvent)
	if !ok || thr.SubscriptionID != sub.ID || thr.Threshold != 50 || thr.BreachedService != "data" {
		t.Errorf("threshold breached = %s", dump(byType[webhook.TypeSubscriptionAllowanceThresholdBreached]))
	}
	used, ok := byType[webhook.TypeAttachmentAllowanceConsumed].(*webhook.AttachmentAllowanceConsumedEvent)
	if !ok || used.Data.AttachmentID != att.Data.AttachmentID || used.Data.UsagePercentage < 50 || used.Data.DataUsageBytes != 600_000_000 {
		t.Errorf("allowance consumed = %s", dump(byType[webhook.TypeAttachmentAllowanceConsumed]))
	}
	// Activation also installs the eSIM's profile: a second SM-DP+ event.
	if len(got) != 7 {
		t.Errorf("received %d events, want 7: %s", len(got), dump(got))
	}
}

func TestWebhookEndToEndRejectsWrongSecret(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var results []error
	receiver := startServer(t, func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		err := webhook.Verify("not-the-secret", body, r.Header.Get(webhook.SignatureHeader))
		mu.Lock()
		results = append(results, err)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent) // acknowledge so that the emulator does not retry
	})
	emu := emulatortest.Start(t, emulator.Options{Webhook: emulator.WebhookOptions{URL: receiver.URL, Secret: webhookSecret}})
	if err := emu.MoveEsim(state.ICCID(1), "FR"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(results)
		mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(results) != 1 || !errors.Is(results[0], webhook.ErrBadSignature) {
		t.Errorf("verification results = %v, want one webhook.ErrBadSignature", results)
	}
}

func startServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
