package emulator

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// call serves one request from a local client, as curl on the same host
// would send it.
func call(e *Emulator, method, target, body string) *httptest.ResponseRecorder {
	return Serve(e, method, target, "127.0.0.1:40000", "Bearer t", body)
}

type memoryView struct {
	Subs  []Subscription
	Plans []state.Plan
	Esims []state.Esim
	Clock int64
}

func viewOf(e *Emulator) memoryView {
	var v memoryView
	e.state.View(func(r *state.ReadTx) {
		now := r.Now()
		for s := range r.Subscriptions() {
			v.Subs = append(v.Subs, wire(&s, now))
		}
		v.Plans = slices.Collect(r.Plans())
		v.Esims = slices.Collect(r.Esims())
		v.Clock = r.ClockOffset()
	})
	return v
}

// A change is acknowledged only once stored. When the
// commit fails, the client gets 500 with the Error body, memory is as
// before the change, and a restart shows the same.
func TestStorageFailureIsNotAcknowledged(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.db")
	ds := DefaultDataset(8, 40)
	var failing atomic.Bool
	diskFull := func() error {
		if failing.Load() {
			return errors.New("no space left on device")
		}
		return nil
	}
	e, err := New(Options{Token: "t", StatePath: path, Dataset: &ds, beforeCommit: diskFull})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { e.Close() }()
	const create = `{"planId":"plan_004"}` // no label: an unlabelled eSIM first
	rec := call(e, "POST", "/v1/subscriptions", create)
	if rec.Code != 200 {
		t.Fatalf("first create: %d %s", rec.Code, rec.Body)
	}
	var first Subscription
	_ = json.Unmarshal(rec.Body.Bytes(), &first)
	before := viewOf(e)

	failing.Store(true)
	var wg sync.WaitGroup
	for range 10 { // several in one commit: all of them are undone
		wg.Go(func() {
			if rec := call(e, "POST", "/v1/subscriptions", create); rec.Code != 500 {
				t.Errorf("create while storage fails: %d %s", rec.Code, rec.Body)
			}
		})
	}
	wg.Wait()
	for _, c := range []struct{ method, target, body string }{
		{"POST", "/v1/subscriptions", create},
		{"POST", "/v1/subscriptions", `{"plan":{"coverageId":"c","dataMBs":5,"periodDays":2}}`},
		{"POST", "/_emulator/subscriptions/" + first.ID + "/activate", ""},
		{"POST", "/_emulator/subscriptions/" + first.ID + "/usage", `{"dataBytes":600000000}`},
		{"POST", "/_emulator/esims/" + first.EsimICCID + "/location", `{"countryIso2":"FR"}`},
		{"POST", "/_emulator/esims/" + first.EsimICCID + "/smdp-state", `{"state":"RELEASED"}`},
		{"POST", "/_emulator/esims", `{"count":3,"label":"europe"}`},
		{"POST", "/_emulator/clock/advance", `{"seconds":86400}`},
		{"POST", "/_emulator/reset", ""},
	} {
		rec := call(e, c.method, c.target, c.body)
		var body ErrorBody
		if rec.Code != 500 || json.Unmarshal(rec.Body.Bytes(), &body) != nil || body.Code != codeInternal || !strings.Contains(body.Message, "no space left") || body.DocsURL == nil {
			t.Errorf("%s %s while storage fails: %d %s, want 500 with the Error body", c.method, c.target, rec.Code, rec.Body)
		}
	}
	if after := viewOf(e); !reflect.DeepEqual(before, after) {
		t.Errorf("memory kept changes that storage refused:\nbefore %+v\nafter  %+v", before, after)
	}

	// Storage works again: the next create gets the eSIM the refused ones
	// would have taken, the second unlabelled one (every tenth eSIM of the
	// default data set has no label).
	failing.Store(false)
	rec = call(e, "POST", "/v1/subscriptions", create)
	var second Subscription
	_ = json.Unmarshal(rec.Body.Bytes(), &second)
	if first.EsimICCID != state.ICCID(10) || rec.Code != 200 || second.EsimICCID != state.ICCID(20) {
		t.Errorf("creates %s, then after recovery %d %s; want eSIMs %s and %s, the free unlabelled ones", first.EsimICCID, rec.Code, rec.Body, state.ICCID(10), state.ICCID(20))
	}
	want := viewOf(e)
	e.Close()
	restarted, err := New(Options{Token: "t", StatePath: path})
	if err != nil {
		t.Fatal(err)
	}
	e = restarted
	if got := viewOf(restarted); !reflect.DeepEqual(got.Subs, want.Subs) || !reflect.DeepEqual(got.Esims, want.Esims) || !reflect.DeepEqual(got.Plans, want.Plans) || got.Clock != want.Clock {
		t.Errorf("after restart:\n got %+v\nwant %+v", got, want)
	}
	if n := restarted.Stats().Subscriptions; n != 2 {
		t.Errorf("%d subscriptions after restart, want the 2 acknowledged", n)
	}
}
