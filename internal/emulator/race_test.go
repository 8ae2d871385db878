package emulator_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// TestConcurrentCreatesNeverShareAnEsim: 200 creates at once against fewer
// free eSIMs. Each eSIM goes to exactly one subscription; the rest are told
// outOfInventory. Run with -race.
func TestConcurrentCreatesNeverShareAnEsim(t *testing.T) {
	t.Parallel()
	const requests, free = 200, 73
	ds := smallDataset(free-10, 10) // plan without a label: any of the 73
	srv := emulatortest.Start(t, emulator.Options{Dataset: ds})
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: requests}, Timeout: 30 * time.Second}

	type result struct {
		status int
		code   string
		iccid  string
		id     string
		err    error
	}
	results := make([]result, requests)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range requests {
		wg.Go(func() {
			<-start
			body := createBody(planBasic)
			if i%4 == 0 { // some inline plans too
				body = `{"plan":{"coverageId":"c","dataMBs":1,"periodDays":1}}`
			}
			r, err := trySend(hc, "POST", srv.URL+"/v1/subscriptions", "Bearer "+srv.Token, body)
			res := result{status: r.Status, err: err}
			var v struct {
				Code      string `json:"code"`
				ID        string `json:"id"`
				EsimICCID string `json:"esimIccid"`
			}
			if err == nil {
				res.err = json.Unmarshal(r.Body, &v)
			}
			res.code, res.id, res.iccid = v.Code, v.ID, v.EsimICCID
			results[i] = res
		})
	}
	close(start)
	wg.Wait()

	byIccid := map[string]string{}
	ok, out := 0, 0
	for i, r := range results {
		switch {
		case r.err != nil:
			t.Errorf("request %d: %v", i, r.err)
		case r.status == 200:
			ok++
			if prev, dup := byIccid[r.iccid]; dup {
				t.Errorf("eSIM %s given to both %s and %s", r.iccid, prev, r.id)
			}
			byIccid[r.iccid] = r.id
		case r.status == 412 && r.code == "outOfInventory":
			out++
		default:
			t.Errorf("request %d: %d %q", i, r.status, r.code)
		}
	}
	if ok != free || out != requests-free {
		t.Errorf("%d created and %d outOfInventory, want %d and %d", ok, out, free, requests-free)
	}
	st := srv.Stats()
	if st.Subscriptions != free || st.FreeEsims != 0 {
		t.Errorf("stats %+v", st)
	}
	// The eSIM records agree with the answers.
	for _, es := range listAll[state.Esim](t, srv, "/v1/esims", 25) {
		if es.SubscriptionID == nil || byIccid[es.ICCID] != *es.SubscriptionID {
			t.Errorf("eSIM %s assigned to %v, the create answer said %q", es.ICCID, deref(es.SubscriptionID), byIccid[es.ICCID])
		}
	}
	// Failed inline creates left no custom plan behind.
	plans := listAll[state.Plan](t, srv, "/v1/plans", 25)
	custom := 0
	for _, r := range results {
		if r.status == 200 {
			sub := getSub(t, srv, r.id)
			if sub.Plan.CoverageProfileID != nil && *sub.Plan.CoverageProfileID == "c" {
				custom++
			}
		}
	}
	if len(plans) != 6+custom {
		t.Errorf("%d plans, want the 6 of the data set and %d custom ones", len(plans), custom)
	}
}

// TestConcurrentEverything runs every kind of operation at once, with state
// persistence and webhooks on, for the race detector.
func TestConcurrentEverything(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, 0, false)
	srv := emulatortest.Start(t, emulator.Options{
		Dataset:   smallDataset(60, 20),
		StatePath: filepath.Join(t.TempDir(), "state.json"),
		Webhook:   emulator.WebhookOptions{URL: rc.URL, Secret: webhookSecret, BaseBackoff: time.Millisecond, QueueSize: 4},
	})
	seed := []emulator.Subscription{create(t, srv, planBasic), create(t, srv, planEurope)}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}
	do := func(method, path, authz, body string) {
		if _, err := trySend(hc, method, srv.URL+path, authz, body); err != nil {
			t.Errorf("%s %s: %v", method, path, err)
		}
	}
	bearer := "Bearer " + srv.Token
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for i := range 15 {
				switch (w + i) % 12 {
				case 0:
					do("POST", "/v1/subscriptions", bearer, createBody(planBasic))
				case 1:
					do("POST", "/v1/subscriptions", bearer, createBody(planEurope))
				case 2:
					do("GET", "/v1/subscriptions?pageSize=3", bearer, "")
				case 3:
					do("GET", "/v1/esims/"+seed[i%2].EsimICCID, bearer, "")
				case 4:
					do("POST", "/_emulator/subscriptions/"+seed[i%2].ID+"/usage", noAuth, `{"dataBytes":1000000}`)
				case 5:
					do("POST", "/_emulator/esims/"+seed[i%2].EsimICCID+"/location", noAuth, fmt.Sprintf(`{"countryIso2":"%c%c"}`, 'A'+w%26, 'A'+i%26))
				case 6:
					do("POST", "/_emulator/esims/"+seed[i%2].EsimICCID+"/smdp-state", noAuth, `{"state":"ENABLED"}`)
				case 7:
					do("GET", "/_emulator/stats", noAuth, "")
				case 8:
					do("POST", "/_emulator/esims", noAuth, `{"count":1}`)
				case 9:
					do("POST", "/_emulator/clock/advance", noAuth, `{"seconds":1}`)
				case 10:
					_ = srv.RequestCounts()
					srv.SetFaults(emulator.Faults{ErrorRate: 0.1, Seed: uint64(i)})
				case 11:
					do("GET", "/v1/plans?pageSize=2", bearer, "")
					do("POST", "/_emulator/subscriptions/"+seed[(i+1)%2].ID+"/activate", noAuth, "")
				}
			}
		})
	}
	wg.Wait()
	srv.SetFaults(emulator.Faults{})
	// Whatever happened, no eSIM is assigned twice.
	seen := map[string]bool{}
	for _, s := range listAll[emulator.Subscription](t, srv, "/v1/subscriptions", 25) {
		if seen[s.EsimICCID] {
			t.Errorf("eSIM %s assigned twice", s.EsimICCID)
		}
		seen[s.EsimICCID] = true
	}
	for _, c := range rc.all() {
		if !c.SignatureOK {
			t.Errorf("badly signed call: %s", c.Body)
		}
	}
}
