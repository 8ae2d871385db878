package webhook_test

import (
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/webhook"
)

// Seed corpora are committed under testdata/fuzz/<target>/; run a target
// with, e.g., go test -run='^$' -fuzz=FuzzParse -fuzztime=30s ./webhook/

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"type":"subscription.activated","subscriptionId":"sub_1","esimIccid":"8988247000000000013","timestamp":1767225600}`))
	f.Add([]byte(`{"type":"attachment.activated","timestamp":1,"data":{"esim":"e","planId":"plan_001","attachmentId":"a"}}`))
	f.Add([]byte(`{"type":"esim.smdp.stateChanged","timestamp":1,"data":{"esim":"e","smdpStateChange":{"state":"RELEASED","modifiedAt":1,"modificationResult":"SUCCESS"}}}`))
	f.Add([]byte(`{"type":"unknown.event","timestamp":1}`))
	f.Add([]byte(`not json`))
	known := map[string]bool{
		webhook.TypeSubscriptionActivated: true, webhook.TypeSubscriptionAllowanceThresholdBreached: true, webhook.TypeAttachmentActivated: true,
		webhook.TypeAttachmentAllowanceConsumed: true, webhook.TypeSubscriptionV2EsimLocationChanged: true, webhook.TypeEsimSmdpStateChanged: true,
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := webhook.Parse(body)
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
		case *webhook.SubscriptionActivatedEvent:
			ok = typ == webhook.TypeSubscriptionActivated && e.SubscriptionID != ""
		case *webhook.SubscriptionAllowanceThresholdBreachedEvent:
			ok = typ == webhook.TypeSubscriptionAllowanceThresholdBreached && e.SubscriptionID != "" && e.BreachedService != ""
		case *webhook.AttachmentActivatedEvent:
			ok = typ == webhook.TypeAttachmentActivated && e.Data.Esim != "" && e.Data.AttachmentID != "" && (e.Data.Plan != nil || e.Data.PlanID != "")
		case *webhook.AttachmentAllowanceConsumedEvent:
			ok = typ == webhook.TypeAttachmentAllowanceConsumed && e.Data.Esim != "" && e.Data.AttachmentID != ""
		case *webhook.SubscriptionV2EsimLocationChangedEvent:
			ok = typ == webhook.TypeSubscriptionV2EsimLocationChanged && e.Data.Esim != "" && e.Data.CountryISO2 != ""
		case *webhook.EsimSmdpStateChangedEvent:
			ok = typ == webhook.TypeEsimSmdpStateChanged && e.Data.Esim != "" && e.Data.SmdpStateChange.State != ""
		}
		if !ok {
			t.Errorf("%T for type %q lacks a required field: %s", ev, typ, dump(ev))
		}
	})
}

func FuzzVerify(f *testing.F) {
	f.Add("whsec", []byte(`{"type":"subscription.activated"}`), "00")
	f.Add("", []byte{}, "")
	f.Fuzz(func(t *testing.T, secret string, body []byte, header string) {
		_ = webhook.Verify(secret, body, header)
		good := sign(secret, body)
		if err := webhook.Verify(secret, body, good); err != nil {
			t.Fatalf("a correct signature was refused: %v", err)
		}
		if header != good && strings.TrimSpace(header) != good && !strings.EqualFold(strings.TrimSpace(header), good) {
			if err := webhook.Verify(secret, body, header); err == nil {
				t.Fatalf("header %q accepted, want only %q", header, good)
			}
		}
	})
}
