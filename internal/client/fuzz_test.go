package client

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Seed corpora are committed under testdata/fuzz/<target>/; run a target
// with, e.g., go test -run='^$' -fuzz=FuzzParseEvent -fuzztime=30s ./internal/client/

func FuzzDecodeAPIError(f *testing.F) {
	f.Add(412, "", []byte(`{"code":"outOfInventory","message":"no eSIM left","docsUrl":null}`))
	f.Add(400, "", []byte(richerError))
	f.Add(429, "7", []byte(`{"code":"rateLimited","message":"slow down","docsUrl":"https://d/rateLimited"}`))
	f.Add(502, "", []byte("<html><body><h1>502 Bad Gateway</h1></body></html>"))
	f.Add(502, "", []byte{})
	f.Fuzz(func(t *testing.T, status int, retryAfter string, body []byte) {
		header := http.Header{}
		if retryAfter != "" {
			header.Set("Retry-After", retryAfter)
		}
		e := decodeAPIError(status, header, body)
		if e == nil {
			t.Fatal("nil APIError")
		}
		if e.StatusCode != status || e.RetryAfter < 0 {
			t.Errorf("StatusCode = %d, RetryAfter = %v", e.StatusCode, e.RetryAfter)
		}
		msg := e.Error()
		if msg == "" || !strings.Contains(msg, strconv.Itoa(status)) {
			t.Errorf("Error() = %q does not name the status %d", msg, status)
		}
		ex := e.BodyExcerpt
		if !utf8.ValidString(ex) || utf8.RuneCountInString(ex) > excerptLen+1 || len(ex) > 3*(excerptLen+1) {
			t.Errorf("BodyExcerpt (%d bytes, %d runes) is not bounded valid text: %q", len(ex), utf8.RuneCountInString(ex), ex)
		}
		if ex != "" && (e.Code != "" || e.Message != "") {
			t.Errorf("both a service error (%q, %q) and an excerpt", e.Code, e.Message)
		}
		for _, d := range e.Details {
			_ = d.String()
		}
		_ = e.Suggestions()
		// The wrappers format it as well.
		_ = (&UncertainCreateError{Err: e}).Error()
		_ = (&PageError{Operation: "list", Page: 1, Err: e}).Error()
	})
}

func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"type":"subscription.activated","subscriptionId":"sub_1","esimIccid":"8988247000000000013","timestamp":1767225600}`))
	f.Add([]byte(`{"type":"attachment.activated","timestamp":1,"data":{"esim":"e","planId":"plan_001","attachmentId":"a"}}`))
	f.Add([]byte(`{"type":"esim.smdp.stateChanged","timestamp":1,"data":{"esim":"e","smdpStateChange":{"state":"RELEASED","modifiedAt":1,"modificationResult":"SUCCESS"}}}`))
	f.Add([]byte(`{"type":"unknown.event","timestamp":1}`))
	f.Add([]byte(`not json`))
	known := map[string]bool{
		EventSubscriptionActivated: true, EventSubscriptionThresholdBreached: true, EventAttachmentActivated: true,
		EventAttachmentAllowanceConsumed: true, EventSubscriptionV2LocationChanged: true, EventEsimSmdpStateChanged: true,
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := ParseEvent(body)
		if err != nil {
			if ev != nil {
				t.Errorf("both an event and an error: %v", err)
			}
			if err.Error() == "" {
				t.Error("empty error text")
			}
			return
		}
		if ev == nil {
			t.Fatal("no event and no error")
		}
		typ := ev.EventType()
		if !known[typ] {
			t.Fatalf("EventType() = %q is not one of the six", typ)
		}
		_ = ev.EventTimestamp()
		// The concrete type matches the type field and holds its required fields.
		var ok bool
		switch e := ev.(type) {
		case *SubscriptionActivatedEvent:
			ok = typ == EventSubscriptionActivated && e.SubscriptionID != ""
		case *ThresholdBreachedEvent:
			ok = typ == EventSubscriptionThresholdBreached && e.SubscriptionID != "" && e.BreachedService != ""
		case *AttachmentActivatedEvent:
			ok = typ == EventAttachmentActivated && e.Data.Esim != "" && e.Data.AttachmentID != "" && (e.Data.Plan != nil || e.Data.PlanID != "")
		case *AllowanceConsumedEvent:
			ok = typ == EventAttachmentAllowanceConsumed && e.Data.Esim != "" && e.Data.AttachmentID != ""
		case *LocationChangedEvent:
			ok = typ == EventSubscriptionV2LocationChanged && e.Data.Esim != "" && e.Data.CountryISO2 != ""
		case *SmdpStateChangedEvent:
			ok = typ == EventEsimSmdpStateChanged && e.Data.Esim != "" && e.Data.SmdpStateChange.State != ""
		}
		if !ok {
			t.Errorf("%T for type %q lacks a required field: %s", ev, typ, dump(ev))
		}
	})
}

func FuzzVerifySignature(f *testing.F) {
	f.Add("whsec", []byte(`{"type":"subscription.activated"}`), "00")
	f.Add("", []byte{}, "")
	f.Fuzz(func(t *testing.T, secret string, body []byte, header string) {
		_ = VerifySignature(secret, body, header)
		good := sign(secret, body)
		if err := VerifySignature(secret, body, good); err != nil {
			t.Fatalf("a correct signature was refused: %v", err)
		}
		if header != good && strings.TrimSpace(header) != good && !strings.EqualFold(strings.TrimSpace(header), good) {
			if err := VerifySignature(secret, body, header); err == nil {
				t.Fatalf("header %q accepted, want only %q", header, good)
			}
		}
	})
}
