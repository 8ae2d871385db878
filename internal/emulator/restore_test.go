package emulator

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// validStateJSON is a consistent state in the JSON layout: a custom plan,
// an active subscription with part of its data used, a ready one, and a
// free eSIM.
func validStateJSON() string {
	return `{"version":1,"cursorKey":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=","clockOffset":60,"customPlans":1,
"plans":[{"id":"plan_a","name":"a","dataMegaBytes":10,"periodDays":1,"periodIterations":1},
 {"id":"plan_custom_000001","name":"c","dataMegaBytes":5,"periodDays":2,"periodIterations":1}],
"esims":[{"iccid":"` + ICCID(1) + `","smdpState":"INSTALLED","subscriptionId":"sub_a"},
 {"iccid":"` + ICCID(2) + `","smdpState":"AVAILABLE","subscriptionId":"sub_b"},
 {"iccid":"` + ICCID(3) + `","smdpState":"AVAILABLE","subscriptionId":null}],
"subscriptions":[
 {"seq":1,"id":"sub_a","attachmentId":"att_a","esimIccid":"` + ICCID(1) + `","planId":"plan_a","plan":{"name":"a","dataMegaBytes":10,"periodDays":1,"periodIterations":1},
  "createdAt":1,"activatedAt":2,"expireAt":86402,"purchased":{"dataBytes":10000000},"remaining":{"dataBytes":4000000},"metadata":{},"thresholdsNotified":[50]},
 {"seq":2,"id":"sub_b","attachmentId":"att_b","esimIccid":"` + ICCID(2) + `","planId":"plan_custom_000001","plan":{"name":"c","dataMegaBytes":5,"periodDays":2,"periodIterations":1},
  "createdAt":3,"purchased":{"dataBytes":5000000},"remaining":{"dataBytes":5000000}}]}`
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
	e.store.mu.Lock()
	var subs, esims, plans []string
	for _, s := range e.store.subs {
		subs = append(subs, s.ID)
	}
	for _, es := range e.store.esims {
		esims = append(esims, es.ICCID)
	}
	for _, p := range e.store.plans {
		plans = append(plans, p.ID)
	}
	e.store.mu.Unlock()
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

// Issue 10, point 9: whatever state passes validation, no handler panics
// or fails on it, and every cursor handed out is accepted back.
func FuzzRestoredState(f *testing.F) {
	f.Add(validStateJSON())
	f.Add(strings.Replace(validStateJSON(), `"remaining":{"dataBytes":4000000}`, `"remaining":{"dataBytes":0}`, 1))
	f.Add(strings.Replace(validStateJSON(), `"seq":2`, `"seq":3`, 1))
	f.Add(strings.Replace(validStateJSON(), `"subscriptionId":null`, `"subscriptionId":"sub_a"`, 1))
	f.Add(`{"version":1}`)
	f.Fuzz(func(t *testing.T, state string) {
		var snap snapshot
		if json.Unmarshal([]byte(state), &snap) != nil || snap.validate() != nil {
			return
		}
		e, err := New(Options{Token: "t", Dataset: &Dataset{}})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		snap.loadInto(e.store) // what a restart does after validate
		exerciseAll(t, e)
	})
}

// A restored valid state serves every operation, from the database.
func TestRestoredStateServesEverything(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state")
	writeFile(t, path, validStateJSON())
	e, err := New(Options{Token: "t", StatePath: path})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if n := len(e.store.subs); n != 2 {
		t.Fatalf("%d subscriptions migrated, want 2", n)
	}
	if kept, err := os.ReadFile(path + ".v1.json"); err != nil || string(kept) != validStateJSON() {
		t.Errorf("the JSON file was not kept as %s.v1.json: %v", path, err)
	}
	exerciseAll(t, e)
}

// Issue 10, point 9, in the database layout: gaps in record keys, a
// foreign format and missing parts are refused with the problem named.
func TestStateDatabaseInconsistentRefused(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		edit func(tx *bolt.Tx) error
		want string
	}{
		"gap in subscription keys": {func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketSubs)
			v := b.Get(indexKey(2))
			if err := b.Delete(indexKey(2)); err != nil {
				return err
			}
			return b.Put(indexKey(9), v)
		}, "out of sequence"},
		"foreign format": {func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(metaFormat, []byte("other/1")) }, "format"},
		// The JSON records of the unreleased /2 layout are not misread.
		"earlier format": {func(tx *bolt.Tx) error {
			return tx.Bucket(bucketMeta).Put(metaFormat, []byte("mobileplan-emulator-state/2"))
		}, `database format "mobileplan-emulator-state/2" is not the one this emulator reads`},
		"record of the wrong layout": {func(tx *bolt.Tx) error {
			return tx.Bucket(bucketEsims).Put(indexKey(1), encodeRecord(&Plan{ID: "p"}))
		}, "esims[1]"},
		"trailing bytes": {func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketSubs)
			return b.Put(indexKey(1), append(bytes.Clone(b.Get(indexKey(1))), 0))
		}, "subscriptions[0]: trailing bytes"},
		"JSON record": {func(tx *bolt.Tx) error {
			return tx.Bucket(bucketPlans).Put(indexKey(0), []byte(`{"id":"p"}`))
		}, "plans[0]"},
		"no clock offset": {func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Delete(metaClockOffset) }, "clockOffset"},
		"no eSIM records": {func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketEsims) }, "esims"},
		"no meta records": {func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketMeta) }, "meta"},
		"broken record":   {func(tx *bolt.Tx) error { return tx.Bucket(bucketEsims).Put(indexKey(0), []byte("{")) }, "esims[0]"},
		"two subscriptions on one eSIM": {func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketSubs)
			var sub subscription
			if err := newRecordDecoder().decode(b.Get(indexKey(2)), &sub); err != nil {
				return err
			}
			sub.EsimICCID = ICCID(1)
			return b.Put(indexKey(2), encodeRecord(&sub))
		}, "already has subscription"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "state")
			writeFile(t, path, validStateJSON())
			e, err := New(Options{Token: "t", StatePath: path}) // migrates
			if err != nil {
				t.Fatal(err)
			}
			e.Close()
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(c.edit); err != nil {
				t.Fatal(err)
			}
			_ = db.Close()
			e, err = New(Options{Token: "t", StatePath: path})
			if err == nil {
				e.Close()
				t.Fatal("New accepted the state")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not name %q", err, c.want)
			}
		})
	}

}

// mustJSON quotes a test value as JSON.
func mustJSON(v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return raw
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
