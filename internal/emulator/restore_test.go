package emulator

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// validStateJSON is a consistent state in the JSON layout: a custom plan,
// an active subscription with part of its data used, a ready one, and a
// free eSIM.
func validStateJSON() string {
	raw, err := os.ReadFile("state/testdata/valid-state.json")
	if err != nil {
		panic(err)
	}
	return string(raw)
}

// exerciseAll calls every operation on every record; it fails on a 5xx,
// and a panic fails the test or fuzz run by itself.
func exerciseAll(t *testing.T, e *Emulator) {
	t.Helper()
	check := func(method, target, body string) {
		if rec := call(e, method, target, body); rec.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body)
		}
	}
	for _, list := range []string{"/v1/subscriptions", "/v1/plans", "/v1/esims"} {
		cursor := ""
		for range 100 {
			target := list + "?pageSize=1"
			if cursor != "" {
				target += "&page=" + url.QueryEscape(cursor)
			}
			rec := call(e, "GET", target, "")
			if rec.Code != 200 {
				t.Fatalf("GET %s: %d %s (a cursor the service handed out was refused)", target, rec.Code, rec.Body)
			}
			var pg page[json.RawMessage]
			if err := json.Unmarshal(rec.Body.Bytes(), &pg); err != nil {
				t.Fatal(err)
			}
			if pg.NextPage == nil {
				break
			}
			cursor = *pg.NextPage
		}
	}
	var subs, esims, plans []string
	e.state.View(func(r *state.ReadTx) {
		for s := range r.Subscriptions() {
			subs = append(subs, s.ID)
		}
		for es := range r.Esims() {
			esims = append(esims, es.ICCID)
		}
		for p := range r.Plans() {
			plans = append(plans, p.ID)
		}
	})
	for _, id := range plans {
		check("GET", "/v1/plans/"+url.PathEscape(id), "")
	}
	for _, iccid := range esims {
		check("GET", "/v1/esims/"+url.PathEscape(iccid), "")
		check("POST", "/_emulator/esims/"+url.PathEscape(iccid)+"/location", `{"countryIso2":"FR"}`)
		check("POST", "/_emulator/esims/"+url.PathEscape(iccid)+"/smdp-state", `{"state":"RELEASED"}`)
	}
	for _, id := range subs {
		check("GET", "/v1/subscriptions/"+url.PathEscape(id), "")
		check("POST", "/_emulator/subscriptions/"+url.PathEscape(id)+"/usage", `{"dataBytes":1000000}`)
		check("POST", "/_emulator/subscriptions/"+url.PathEscape(id)+"/activate", "")
	}
	for _, id := range plans {
		check("POST", "/v1/subscriptions", `{"planId":`+string(mustJSON(id))+`}`)
	}
	check("POST", "/v1/subscriptions", `{"plan":{"coverageId":"c","dataMBs":1,"periodDays":1}}`)
	check("POST", "/_emulator/esims", `{"count":2}`)
	check("POST", "/_emulator/clock/advance", `{"seconds":86400}`)
	check("GET", "/_emulator/stats", "")
	check("GET", "/_emulator/clock", "")
}

// Whatever state passes validation, no handler panics or fails on it, and
// every cursor handed out is accepted back.
func FuzzRestoredState(f *testing.F) {
	f.Add(validStateJSON())
	f.Add(strings.Replace(validStateJSON(), `"remaining":{"dataBytes":4000000}`, `"remaining":{"dataBytes":0}`, 1))
	f.Add(strings.Replace(validStateJSON(), `"seq":2`, `"seq":3`, 1))
	f.Add(strings.Replace(validStateJSON(), `"subscriptionId":null`, `"subscriptionId":"sub_a"`, 1))
	f.Add(`{"version":1}`)
	f.Fuzz(func(t *testing.T, content string) {
		// Restored as a restart restores it: a JSON state file is checked,
		// then migrated.
		path := filepath.Join(t.TempDir(), "state")
		WriteFile(t, path, content)
		e, err := New(Options{Token: "t", Dataset: &state.Dataset{}, StatePath: path})
		if err != nil {
			return // refused: not a state that passes validation
		}
		defer e.Close()
		exerciseAll(t, e)
	})
}

// A restored valid state serves every operation, from the database.
func TestRestoredStateServesEverything(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state")
	WriteFile(t, path, validStateJSON())
	e, err := New(Options{Token: "t", StatePath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if n := e.Stats().Subscriptions; n != 2 {
		t.Fatalf("%d subscriptions migrated, want 2", n)
	}
	if kept, err := os.ReadFile(path + ".v1.json"); err != nil || string(kept) != validStateJSON() {
		t.Errorf("the JSON file was not kept as %s.v1.json: %v", path, err)
	}
	exerciseAll(t, e)
}

// mustJSON quotes a test value as JSON.
func mustJSON(v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return raw
}
