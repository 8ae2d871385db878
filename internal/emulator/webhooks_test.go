package emulator_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
	"github.com/mobileplan/terraform-provider-mobileplan/webhook"
)

const webhookSecret = "whsec-test-5d1e"

// receiver is a webhook endpoint that checks every call's signature on its
// own (crypto/hmac over the exact received bytes) and records it.
type receiver struct {
	*httptest.Server
	secret string

	mu        sync.Mutex
	calls     []receivedCall
	failFirst int           // answer 500 to this many calls first
	block     chan struct{} // when set, calls wait until it is closed
	entered   chan struct{} // receives once per call that started
}

type receivedCall struct {
	Method      string
	ContentType string
	Signature   string
	SignatureOK bool
	Body        []byte
	Status      int
}

func (rc *receiver) release() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	select {
	case <-rc.block:
	default:
		close(rc.block)
	}
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	sig := r.Header.Get("service-signature")
	mac := hmac.New(sha256.New, []byte(rc.secret))
	mac.Write(body)
	want := hex.EncodeToString(mac.Sum(nil))
	c := receivedCall{
		Method: r.Method, ContentType: r.Header.Get("Content-Type"), Signature: sig,
		SignatureOK: hmac.Equal([]byte(sig), []byte(want)), Body: body,
	}
	rc.entered <- struct{}{}
	if rc.block != nil {
		select {
		case <-rc.block:
		case <-r.Context().Done():
			return
		}
	}
	rc.mu.Lock()
	switch {
	case !c.SignatureOK:
		c.Status = http.StatusUnauthorized
	case len(rc.calls) < rc.failFirst:
		c.Status = http.StatusInternalServerError
	default:
		c.Status = http.StatusNoContent
	}
	rc.calls = append(rc.calls, c)
	rc.mu.Unlock()
	w.WriteHeader(c.Status)
}

func (rc *receiver) all() []receivedCall {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.calls)
}

// acknowledged returns the bodies answered with 2xx, in order.
func (rc *receiver) acknowledged() [][]byte {
	var out [][]byte
	for _, c := range rc.all() {
		if c.Status/100 == 2 {
			out = append(out, c.Body)
		}
	}
	return out
}

// waitEvents waits until n events were acknowledged and returns them decoded.
func (rc *receiver) waitEvents(t *testing.T, n int) []map[string]any {
	t.Helper()
	eventually(t, 10*time.Second, fmt.Sprintf("%d webhook deliveries", n), func() bool { return len(rc.acknowledged()) >= n })
	var out []map[string]any
	for _, body := range rc.acknowledged() {
		var ev map[string]any
		if err := json.Unmarshal(body, &ev); err != nil {
			t.Fatalf("event is not a JSON object: %v: %s", err, body)
		}
		out = append(out, ev)
	}
	return out
}

func startWithHooks(t *testing.T, rc *receiver, ds *state.Dataset, tune func(*emulator.WebhookOptions)) *emulatortest.Server {
	t.Helper()
	wh := emulator.WebhookOptions{URL: rc.URL, Secret: webhookSecret, BaseBackoff: 2 * time.Millisecond, MaxBackoff: 20 * time.Millisecond}
	if tune != nil {
		tune(&wh)
	}
	return emulatortest.Start(t, emulator.Options{Dataset: ds, Webhook: wh})
}

// webhookStatsOnceDelivered waits until delivered events have been
// delivered and returns the webhook statistics then.
func webhookStatsOnceDelivered(t *testing.T, srv *emulatortest.Server, delivered int64) *emulator.WebhookStats {
	t.Helper()
	eventually(t, 5*time.Second, "stats", func() bool { return srv.Stats().Webhooks.Delivered == delivered })
	return srv.Stats().Webhooks
}

// eventShape is exactly the fields of section 6 of the interface document:
// required ones and, in optional, those that may be left out.
type eventShape struct {
	schema   string // components/schemas name in the OpenAPI document
	keys     []string
	data     []string // keys of data, nil for flat events
	optional []string // data keys that may be absent
}

var eventShapes = map[string]eventShape{
	"subscription.activated": {
		schema: "SubscriptionActivatedEvent",
		keys:   []string{"esimIccid", "subscriptionId", "timestamp", "type"},
	},
	"subscription.allowance.thresholdBreached": {
		schema: "SubscriptionAllowanceThresholdBreachedEvent",
		keys:   []string{"breachedService", "esimIccid", "subscriptionId", "threshold", "timestamp", "type"},
	},
	"attachment.activated": {
		schema: "AttachmentActivatedEvent",
		keys:   []string{"data", "timestamp", "type"},
		data:   []string{"attachmentId", "esim", "plan"},
	},
	"attachment.allowanceConsumed": {
		schema:   "AttachmentAllowanceConsumedEvent",
		keys:     []string{"data", "timestamp", "type"},
		data:     []string{"attachmentId", "dataUsageBytes", "esim", "plan", "usagePercentage"},
		optional: []string{"plan"},
	},
	"subscriptionV2.esim.locationChanged": {
		schema: "EsimLocationChangedEvent",
		keys:   []string{"data", "timestamp", "type"},
		data:   []string{"countryIso2", "esim"},
	},
	"esim.smdp.stateChanged": {
		schema: "EsimSmdpStateChangedEvent",
		keys:   []string{"data", "timestamp", "type"},
		data:   []string{"esim", "smdpStateChange"},
	},
}

var eventPlanKeys = []string{"coverageProfileId", "dataMegaBytes", "label", "periodDays", "periodIterations", "throttledSpeedKbps"}

// checkShape compares an event's key sets with section 6 and validates it
// against its schema in the OpenAPI document.
func checkShape(t *testing.T, doc *openapi3.T, ev map[string]any) {
	t.Helper()
	typ, _ := ev["type"].(string)
	shape, ok := eventShapes[typ]
	if !ok {
		t.Errorf("unknown event type %q: %v", typ, ev)
		return
	}
	if got := sortedKeys(ev); !slices.Equal(got, shape.keys) {
		t.Errorf("%s: keys %v, want %v", typ, got, shape.keys)
	}
	if ts, ok := ev["timestamp"].(float64); !ok || ts != float64(int64(ts)) || ts < 1.7e9 {
		t.Errorf("%s: timestamp %v is not integer Unix seconds", typ, ev["timestamp"])
	}
	if shape.data != nil {
		data, ok := ev["data"].(map[string]any)
		if !ok {
			t.Errorf("%s: data is %T", typ, ev["data"])
			return
		}
		got := sortedKeys(data)
		want := shape.data
		if !slices.Equal(got, want) {
			// Only optional keys may be missing.
			var required []string
			for _, k := range want {
				if !slices.Contains(shape.optional, k) {
					required = append(required, k)
				}
			}
			for _, k := range got {
				if !slices.Contains(want, k) {
					t.Errorf("%s: data has %q, which section 6 does not list", typ, k)
				}
			}
			for _, k := range required {
				if !slices.Contains(got, k) {
					t.Errorf("%s: data lacks %q", typ, k)
				}
			}
		}
		if plan, ok := data["plan"]; ok {
			p, ok := plan.(map[string]any)
			if !ok || !slices.Equal(sortedKeys(p), eventPlanKeys) {
				t.Errorf("%s: data.plan %v, want keys %v", typ, plan, eventPlanKeys)
			}
		}
		if sc, ok := data["smdpStateChange"]; ok {
			m, ok := sc.(map[string]any)
			if want := []string{"modificationResult", "modifiedAt", "state"}; !ok || !slices.Equal(sortedKeys(m), want) {
				t.Errorf("%s: data.smdpStateChange %v, want keys %v", typ, sc, want)
			}
		}
	}
	if doc != nil {
		if err := doc.Components.Schemas[shape.schema].Value.VisitJSON(ev); err != nil {
			t.Errorf("%s does not match schema %s: %v", typ, shape.schema, err)
		}
	}
}

func TestWebhookEventsSignedAndShaped(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	rc := newReceiver(t, 0, false)
	srv := startWithHooks(t, rc, smallDataset(2, 1), nil)
	sub := create(t, srv, planBasic) // 1000 MB, 30 days, fixed validity
	t0 := srv.Now()

	act := decode[emulator.Subscription](t, ctl(t, srv, "POST", "/_emulator/subscriptions/"+sub.ID+"/activate", ""))
	const mb = 1_000_000
	for _, use := range []int64{550 * mb, 300 * mb, 150 * mb, 1} { // 55%, 85%, 100%, still 100%
		mustStatus(t, ctl(t, srv, "POST", "/_emulator/subscriptions/"+sub.ID+"/usage", fmt.Sprintf(`{"dataBytes":%d}`, use)), 200)
	}
	moveEsim(t, srv, sub.EsimICCID, "DE")
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/esims/"+sub.EsimICCID+"/smdp-state", `{"state":"RELEASED"}`), 200)

	events := rc.waitEvents(t, 11) // as many as wantTypes below: waiting for fewer races the last delivery
	t1 := srv.Now()
	var types []string
	for _, ev := range events {
		types = append(types, ev["type"].(string))
		checkShape(t, doc, ev)
		if ts := int64(ev["timestamp"].(float64)); ts < t0 || ts > t1 {
			t.Errorf("%s: timestamp %d outside [%d, %d]", ev["type"], ts, t0, t1)
		}
	}
	wantTypes := []string{
		"subscription.activated", "attachment.activated", "esim.smdp.stateChanged", // first use installs the profile
		"subscription.allowance.thresholdBreached", "attachment.allowanceConsumed",
		"subscription.allowance.thresholdBreached", "attachment.allowanceConsumed",
		"subscription.allowance.thresholdBreached", "attachment.allowanceConsumed",
		"subscriptionV2.esim.locationChanged", "esim.smdp.stateChanged",
	}
	if !slices.Equal(types, wantTypes) {
		t.Fatalf("event types\n%v\nwant\n%v", types, wantTypes)
	}
	// Every call was a signed JSON POST, acknowledged the first time.
	for i, c := range rc.all() {
		if !c.SignatureOK || c.Method != "POST" || c.ContentType != "application/json" || c.Status != 204 {
			t.Errorf("call %d: %+v", i, c)
		}
		if c.Signature != webhook.Sign(webhookSecret, c.Body) || c.Signature == webhook.Sign("other-secret", c.Body) {
			t.Errorf("call %d: signature %s does not depend on the secret as Sign says", i, c.Signature)
		}
	}

	if d := events[2]["data"].(map[string]any); d["esim"] != sub.EsimICCID || d["smdpStateChange"].(map[string]any)["state"] != "INSTALLED" {
		t.Errorf("activation smdp.stateChanged %v", events[2])
	}
	events = slices.Delete(events, 2, 3) // the rest of the test indexes the events without it

	ev := events[0]
	if ev["subscriptionId"] != sub.ID || ev["esimIccid"] != sub.EsimICCID || int64(ev["timestamp"].(float64)) != *act.ActivatedAt {
		t.Errorf("subscription.activated %v", ev)
	}
	data := events[1]["data"].(map[string]any)
	attachmentID, _ := data["attachmentId"].(string)
	if data["esim"] != sub.EsimICCID || attachmentID == "" {
		t.Errorf("attachment.activated %v", events[1])
	}
	wantPlan := map[string]any{"dataMegaBytes": 1000.0, "periodDays": 30.0, "periodIterations": 1.0, "throttledSpeedKbps": 0.0, "coverageProfileId": nil, "label": nil}
	if fmt.Sprint(data["plan"]) != fmt.Sprint(wantPlan) {
		t.Errorf("attachment.activated data.plan %v, want %v", data["plan"], wantPlan)
	}
	for i, th := range []struct {
		threshold, percent, used float64
	}{{50, 55, 550 * mb}, {80, 85, 850 * mb}, {100, 100, 1000 * mb}} {
		v1, v2 := events[2+2*i], events[3+2*i]
		if v1["threshold"] != th.threshold || v1["breachedService"] != "data" || v1["subscriptionId"] != sub.ID || v1["esimIccid"] != sub.EsimICCID {
			t.Errorf("thresholdBreached %d: %v", i, v1)
		}
		d := v2["data"].(map[string]any)
		if d["usagePercentage"] != th.percent || d["dataUsageBytes"] != th.used || d["esim"] != sub.EsimICCID || d["attachmentId"] != attachmentID {
			t.Errorf("allowanceConsumed %d: %v, want %v%% and %v bytes", i, d, th.percent, th.used)
		}
		if p := d["usagePercentage"].(float64); p < 0 || p > 100 {
			t.Errorf("usagePercentage %v outside 0..100", p)
		}
	}
	if d := events[8]["data"].(map[string]any); d["esim"] != sub.EsimICCID || d["countryIso2"] != "DE" {
		t.Errorf("locationChanged %v", events[8])
	}
	d := events[9]["data"].(map[string]any)
	sc := d["smdpStateChange"].(map[string]any)
	if d["esim"] != sub.EsimICCID || sc["state"] != "RELEASED" || sc["modificationResult"] != "SUCCESS" || sc["modifiedAt"] != events[9]["timestamp"] {
		t.Errorf("smdp.stateChanged %v", events[9])
	}

	// Nothing else was sent: the 1-byte usage after 100% crossed no
	// threshold (delivery is in order, so its event would have come before
	// the location change), and every event was acknowledged at once.
	if n := len(rc.all()); n != 11 {
		t.Errorf("%d calls, want 11", n)
	}
	// The receiver sees a call before the emulator counts it delivered.
	eventually(t, 10*time.Second, "11 deliveries counted", func() bool {
		st := srv.Stats().Webhooks
		return st != nil && st.Delivered == 11
	})
	if st := srv.Stats().Webhooks; st == nil || st.Queued != 11 || st.Delivered != 11 || st.Attempts != 11 || st.Failed != 0 || st.Dropped != 0 {
		t.Errorf("webhook stats %+v", st)
	}
}

// One usage record that crosses all thresholds fires every V1 event but,
// as the interface document allows, only the highest attachment event; a
// recurring plan gets no attachment usage events at all.
func TestWebhookThresholdsInOneStepAndRecurring(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	rc := newReceiver(t, 0, false)
	srv := startWithHooks(t, rc, smallDataset(1, 1), nil)
	fixed := create(t, srv, planBasic)
	recurring := create(t, srv, planRecurring)
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/subscriptions/"+fixed.ID+"/usage", `{"dataBytes":5000000000}`), 200)
	events := rc.waitEvents(t, 7)
	var types []string
	for _, ev := range events {
		checkShape(t, doc, ev)
		types = append(types, ev["type"].(string))
	}
	want := []string{
		"subscription.activated", "attachment.activated", "esim.smdp.stateChanged", // usage activates a ready subscription
		"subscription.allowance.thresholdBreached", "subscription.allowance.thresholdBreached", "subscription.allowance.thresholdBreached",
		"attachment.allowanceConsumed",
	}
	if !slices.Equal(types, want) {
		t.Fatalf("types %v, want %v", types, want)
	}
	var thresholds []float64
	for _, ev := range events[3:6] {
		thresholds = append(thresholds, ev["threshold"].(float64))
	}
	if !slices.Equal(thresholds, []float64{50, 80, 100}) {
		t.Errorf("thresholds %v", thresholds)
	}
	if d := events[6]["data"].(map[string]any); d["usagePercentage"] != 100.0 {
		t.Errorf("allowanceConsumed %v", d)
	}

	mustStatus(t, ctl(t, srv, "POST", "/_emulator/subscriptions/"+recurring.ID+"/activate", ""), 200)
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/subscriptions/"+recurring.ID+"/usage", `{"dataBytes":60000000}`), 200)  // 60%
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/subscriptions/"+recurring.ID+"/usage", `{"dataBytes":400000000}`), 200) // 100%
	events = rc.waitEvents(t, 7+3+3)
	types = nil
	for _, ev := range events[7:] {
		checkShape(t, doc, ev)
		types = append(types, ev["type"].(string))
		if ev["type"] == "subscription.allowance.thresholdBreached" && ev["subscriptionId"] != recurring.ID {
			t.Errorf("event for the wrong subscription: %v", ev)
		}
	}
	want = []string{
		"subscription.activated", "attachment.activated", "esim.smdp.stateChanged",
		"subscription.allowance.thresholdBreached", "subscription.allowance.thresholdBreached", "subscription.allowance.thresholdBreached",
	}
	if !slices.Equal(types, want) {
		t.Errorf("recurring plan: types %v, want %v", types, want)
	}
	if d := events[8]["data"].(map[string]any)["plan"].(map[string]any); d["periodIterations"] != 3.0 || d["label"] != "europe" || d["coverageProfileId"] != "cov-eu" || d["throttledSpeedKbps"] != 512.0 {
		t.Errorf("recurring attachment.activated plan %v", d)
	}
}

func TestWebhookRetriesSameBody(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, 2, false)
	srv := startWithHooks(t, rc, smallDataset(1, 0), nil)
	moveEsim(t, srv, state.ICCID(1), "PT")
	rc.waitEvents(t, 1)
	calls := rc.all()
	if len(calls) != 3 {
		t.Fatalf("%d calls, want 2 refused and 1 acknowledged", len(calls))
	}
	for i, c := range calls {
		if !bytes.Equal(c.Body, calls[0].Body) || c.Signature != calls[0].Signature || !c.SignatureOK {
			t.Errorf("call %d differs from the first: %s vs %s", i, c.Body, calls[0].Body)
		}
	}
	if calls[0].Status != 500 || calls[1].Status != 500 || calls[2].Status != 204 {
		t.Errorf("statuses %d %d %d", calls[0].Status, calls[1].Status, calls[2].Status)
	}
	if st := webhookStatsOnceDelivered(t, srv, 1); st.Attempts != 3 || st.Failed != 2 || st.Dropped != 0 || st.Queued != 1 {
		t.Errorf("stats %+v", st)
	}
}

// After MaxAttempts refusals an event is dropped and counted as dropped,
// each refusal as a failed attempt; the next event is still delivered.
func TestWebhookGivesUp(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, 3, false)
	srv := startWithHooks(t, rc, smallDataset(1, 0), func(o *emulator.WebhookOptions) { o.MaxAttempts = 3 })
	iccid := state.ICCID(1)
	moveEsim(t, srv, iccid, "PT")
	moveEsim(t, srv, iccid, "ES")
	events := rc.waitEvents(t, 1)
	if d := events[0]["data"].(map[string]any); d["countryIso2"] != "ES" {
		t.Errorf("delivered %v, want the second event", events[0])
	}
	if st := webhookStatsOnceDelivered(t, srv, 1); st.Failed != 3 || st.Dropped != 1 || st.Attempts != 4 {
		t.Errorf("stats %+v, want 3 failed attempts, 1 dropped and 1 delivered", st)
	}
}

// A full queue drops events, and counts them, instead of blocking the API.
func TestWebhookFullQueueDrops(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, 0, true)
	srv := startWithHooks(t, rc, smallDataset(1, 0), func(o *emulator.WebhookOptions) { o.QueueSize = 1 })
	iccid := state.ICCID(1)
	moveEsim(t, srv, iccid, "AA")
	// The first event is being delivered: the receiver holds it.
	select {
	case <-rc.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the first event never reached the receiver")
	}
	// One more fits the queue; the other eight are dropped, and none of the
	// calls waits for the receiver.
	start := time.Now()
	for _, c := range []string{"AB", "AC", "AD", "AE", "AF", "AG", "AH", "AI", "AJ"} {
		moveEsim(t, srv, iccid, c)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("control calls took %v while the receiver was blocked", d)
	}
	st := srv.Stats().Webhooks
	if st.Dropped != 8 || st.Queued != 2 || st.Delivered != 0 {
		t.Errorf("stats while blocked %+v, want 8 dropped, 2 queued", st)
	}
	// The API answers too.
	mustStatus(t, api(t, srv, "GET", "/v1/esims/"+iccid, ""), 200)
	rc.release()
	events := rc.waitEvents(t, 2)
	var countries []any
	for _, ev := range events {
		countries = append(countries, ev["data"].(map[string]any)["countryIso2"])
	}
	if fmt.Sprint(countries) != "[AA AB]" {
		t.Errorf("delivered %v, want [AA AB]", countries)
	}
	if st := webhookStatsOnceDelivered(t, srv, 2); st.Dropped != 8 {
		t.Errorf("stats %+v", st)
	}
}

// Without a webhook URL nothing is sent and Stats has no webhook part.
func TestWebhookOff(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Dataset: smallDataset(1, 0)})
	sub := create(t, srv, planBasic)
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/subscriptions/"+sub.ID+"/activate", ""), 200)
	if st := srv.Stats(); st.Webhooks != nil {
		t.Errorf("webhook stats without a webhook: %+v", st.Webhooks)
	}
}

// Location and SM-DP+ events say something changed: repeating the same
// value sends nothing.
func TestNoEventWithoutChange(t *testing.T) {
	t.Parallel()
	srv := emulatortest.Start(t, emulator.Options{Webhook: emulator.WebhookOptions{URL: "http://127.0.0.1:1/unused", Secret: "s"}})
	iccid := state.ICCID(1)
	for range 2 {
		moveEsim(t, srv, iccid, "FR")
		mustStatus(t, ctl(t, srv, "POST", "/_emulator/esims/"+iccid+"/smdp-state", `{"state":"RELEASED"}`), 200)
	}
	if q := srv.Stats().Webhooks.Queued; q != 2 {
		t.Errorf("%d events queued for two changes repeated twice, want 2", q)
	}
}
