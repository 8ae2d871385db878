package emulator_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// onlyStateFile fails unless dir holds exactly the state file: storage
// leaves no temporary or lock file behind.
func onlyStateFile(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != "state.json" {
		t.Errorf("state dir holds %v, want only state.json", names)
	}
}

type everything struct {
	Subs  []emulator.Subscription
	Plans []state.Plan
	Esims []state.Esim
}

func snapshotOf(t *testing.T, srv *emulatortest.Server) everything {
	t.Helper()
	return everything{
		Subs:  listAll[emulator.Subscription](t, srv, "/v1/subscriptions", 25),
		Plans: listAll[state.Plan](t, srv, "/v1/plans", 25),
		Esims: listAll[state.Esim](t, srv, "/v1/esims", 25),
	}
}

func TestStateSurvivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	first := emulatortest.Start(t, emulator.Options{StatePath: path, Dataset: smallDataset(8, 3)})
	onlyStateFile(t, dir) // written at start already

	var subs []emulator.Subscription
	for range 5 {
		subs = append(subs, create(t, first, planBasic))
	}
	subs = append(subs, create(t, first, planEurope))
	inline := decode[emulator.Subscription](t, api(t, first, "POST", "/v1/subscriptions", `{"plan":{"coverageId":"cov-z","dataMBs":10,"periodDays":3}}`))
	activated := decode[emulator.Subscription](t, ctl(t, first, "POST", "/_emulator/subscriptions/"+subs[0].ID+"/activate", ""))
	mustStatus(t, ctl(t, first, "POST", "/_emulator/subscriptions/"+subs[1].ID+"/usage", `{"dataBytes":600000000}`), 200)
	moveEsim(t, first, subs[2].EsimICCID, "JP")
	mustStatus(t, ctl(t, first, "POST", "/_emulator/esims/"+subs[3].EsimICCID+"/smdp-state", `{"state":"RELEASED"}`), 200)
	mustStatus(t, ctl(t, first, "POST", "/_emulator/esims", `{"count":2,"label":"europe"}`), 200)
	mustStatus(t, ctl(t, first, "POST", "/_emulator/clock/advance", `{"seconds":18000}`), 200)
	onlyStateFile(t, dir)

	page1 := getPage[emulator.Subscription](t, first, "/v1/subscriptions", "", 2)
	page2 := getPage[emulator.Subscription](t, first, "/v1/subscriptions", *page1.NextPage, 2)
	plansPage1 := getPage[state.Plan](t, first, "/v1/plans", "", 4)
	before := snapshotOf(t, first)
	clockBefore := first.Now()

	// The second emulator gets another data set: the state file wins. The
	// first one must stop first: it holds the file.
	first.Close()
	second := emulatortest.Start(t, emulator.Options{StatePath: path})
	after := snapshotOf(t, second)
	if !reflect.DeepEqual(before, after) {
		t.Errorf("state after restart differs:\nbefore %+v\nafter  %+v", before, after)
	}
	if d := second.Now() - clockBefore; d < 0 || d > 2 {
		t.Errorf("clock after restart %d, before %d: offset lost", second.Now(), clockBefore)
	}
	if wall := time.Now().Unix(); second.Now() < wall+18000-1 {
		t.Errorf("clock %d is not 18000 s ahead of the wall clock %d", second.Now(), wall)
	}
	got := decode[emulator.Subscription](t, api(t, second, "GET", "/v1/subscriptions/"+subs[0].ID, ""))
	if got.State != emulator.StateActive || !equalPtr(got.ActivatedAt, activated.ActivatedAt) || !equalPtr(got.ExpireAt, activated.ExpireAt) {
		t.Errorf("activated subscription after restart: %+v, want activatedAt %v expireAt %v", got, deref(activated.ActivatedAt), deref(activated.ExpireAt))
	}
	requireError(t, ctl(t, second, "POST", "/_emulator/subscriptions/"+subs[0].ID+"/activate", ""), 409, "conflict")
	if p := decode[state.Plan](t, api(t, second, "GET", "/v1/plans/"+inline.PlanID, "")); p.ID != inline.PlanID {
		t.Errorf("custom plan lost: %+v", p)
	}

	// Cursors handed out before the restart still work.
	again := getPage[emulator.Subscription](t, second, "/v1/subscriptions", *page1.NextPage, 2)
	if !reflect.DeepEqual(ids(again.Items, subID), ids(page2.Items, subID)) {
		t.Errorf("old cursor after restart: %v, want %v", ids(again.Items, subID), ids(page2.Items, subID))
	}
	if pg := getPage[state.Plan](t, second, "/v1/plans", *plansPage1.NextPage, 4); !reflect.DeepEqual(pg.Items, before.Plans[4:]) {
		t.Errorf("old plans cursor after restart: %v, want %v", ids(pg.Items, planID), ids(before.Plans[4:], planID))
	}

	// New subscriptions never get an eSIM that is already assigned, and a
	// second custom plan does not reuse the first one's id.
	used := map[string]string{}
	for _, s := range before.Subs {
		used[s.EsimICCID] = s.ID
	}
	inline2 := decode[emulator.Subscription](t, api(t, second, "POST", "/v1/subscriptions", `{"plan":{"coverageId":"cov-z","dataMBs":10,"periodDays":3}}`))
	if inline2.PlanID == inline.PlanID {
		t.Errorf("custom plan id %q reused after restart", inline2.PlanID)
	}
	used[inline2.EsimICCID] = inline2.ID
	for _, plan := range []string{planEurope, planBasic} {
		for {
			r := api(t, second, "POST", "/v1/subscriptions", createBody(plan))
			if r.Status == 412 {
				requireError(t, r, 412, "outOfInventory")
				break
			}
			mustStatus(t, r, 200)
			s := decode[emulator.Subscription](t, r)
			if prev, dup := used[s.EsimICCID]; dup {
				t.Fatalf("eSIM %s given to %s after restart, but %s has it", s.EsimICCID, s.ID, prev)
			}
			used[s.EsimICCID] = s.ID
		}
	}
	if want := 8 + 3 + 2; len(used) != want {
		t.Errorf("%d eSIMs assigned in all, want every one of %d", len(used), want)
	}
	onlyStateFile(t, dir)

	// A third start sees all of it.
	second.Close()
	third := emulatortest.Start(t, emulator.Options{StatePath: path})
	if st := third.Stats(); st.Subscriptions != len(used) || st.FreeEsims != 0 {
		t.Errorf("third start: %+v, want %d subscriptions and no free eSIM", st, len(used))
	}
}

func TestStateConcurrentChanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	srv := emulatortest.Start(t, emulator.Options{StatePath: path, Dataset: smallDataset(30, 0)})
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			// No t.Fatal off the test goroutine: report and return.
			r, err := trySend(http.DefaultClient, "POST", srv.URL+"/v1/subscriptions", "Bearer "+srv.Token, createBody(planBasic))
			if err != nil || r.Status != 200 {
				t.Errorf("create: %v %v", err, r)
				return
			}
			var sub emulator.Subscription
			if err := json.Unmarshal(r.Body, &sub); err != nil {
				t.Error(err)
				return
			}
			if i%2 == 0 {
				r, err := trySend(http.DefaultClient, "POST", srv.URL+"/_emulator/subscriptions/"+sub.ID+"/activate", noAuth, "")
				if err != nil || r.Status != 200 {
					t.Errorf("activate: %v %v", err, r)
				}
			}
		})
	}
	wg.Wait()
	onlyStateFile(t, dir)
	before := snapshotOf(t, srv)
	srv.Close()
	after := snapshotOf(t, emulatortest.Start(t, emulator.Options{StatePath: path}))
	if !reflect.DeepEqual(before, after) {
		t.Error("state after concurrent changes and a restart differs")
	}
	active := 0
	for _, s := range after.Subs {
		if s.State == emulator.StateActive {
			active++
		}
	}
	if len(after.Subs) != 30 || active != 15 {
		t.Errorf("%d subscriptions, %d active; want 30 and 15", len(after.Subs), active)
	}
}

func TestStateReset(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	srv := emulatortest.Start(t, emulator.Options{StatePath: path, Dataset: smallDataset(3, 0)})
	create(t, srv, planBasic)
	mustStatus(t, ctl(t, srv, "POST", "/_emulator/reset", ""), 204)
	srv.Close()
	restarted := emulatortest.Start(t, emulator.Options{StatePath: path})
	if st := restarted.Stats(); st.Subscriptions != 0 || st.FreeEsims != 3 {
		t.Errorf("after reset and restart: %+v", st)
	}
}

func TestStateBadFile(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"not-json":      `{"version":1,`,
		"wrong-version": `{"version":99}`,
		"wrong-type":    `{"version":"1"}`,
	} {
		path := filepath.Join(t.TempDir(), "state.json")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := emulator.New(emulator.Options{Token: "t", StatePath: path}); err == nil {
			t.Errorf("%s: New accepted the state file", name)
		}
	}
	// A state path in a directory that does not exist fails at start, not
	// silently at the first change.
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "state.json")
	if _, err := emulator.New(emulator.Options{Token: "t", StatePath: missing}); err == nil {
		t.Error("New accepted a state path in a missing directory")
	}
}
