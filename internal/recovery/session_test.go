package recovery

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal/journaltest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// A leftover stands for a new subscription only when it was never used
// and is of the plan the create asks for, in either of its forms.
func TestLeftoverFitsOnlyAnUnusedSubscriptionOfTheSamePlan(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	str := func(v string) *string { return &v }
	byID := client.CreateSubscriptionRequest{PlanID: "plan_001"}
	inline := client.CreateSubscriptionRequest{Plan: &client.InlinePlan{CoverageID: "cov_eu", DataMBs: 1024, PeriodDays: 30}}
	ready := client.Subscription{State: client.StateReady, PlanID: "plan_001",
		Plan: client.PlanForAttachment{CoverageProfileID: str("cov_eu"), DataMegaBytes: i64(1024), PeriodDays: i64(30)}}
	for name, c := range map[string]struct {
		change func(*client.Subscription)
		body   client.CreateSubscriptionRequest
		want   bool
	}{
		"by plan id":          {body: byID, want: true},
		"inline, same values": {body: inline, want: true},
		"another plan id":     {change: func(s *client.Subscription) { s.PlanID = "plan_002" }, body: byID},
		"active":              {change: func(s *client.Subscription) { s.State = client.StateActive }, body: byID},
		"activated once":      {change: func(s *client.Subscription) { s.ActivatedAt = i64(1) }, body: byID},
		"inline, other data":  {change: func(s *client.Subscription) { s.Plan.DataMegaBytes = i64(2048) }, body: inline},
		"inline, labelled":    {change: func(s *client.Subscription) { s.Plan.Label = str("europe") }, body: inline},
		"inline, two periods": {change: func(s *client.Subscription) { s.Plan.PeriodIterations = i64(2) }, body: inline},
	} {
		sub := ready
		if c.change != nil {
			c.change(&sub)
		}
		if got := statusOf(&sub, RequestOf(c.body)) == journal.Fit; got != c.want {
			t.Errorf("%s: fit = %v, want %v", name, got, c.want)
		}
	}
}

// killedRunLeft writes, in the journal of the working directory dir, a
// killed apply that made ids and a whole plan after it that saw none of
// them in its state.
func killedRunLeft(t *testing.T, dir, service string, ids []string) {
	t.Helper()
	t.Setenv("TF_DATA_DIR", "")
	t.Setenv("TF_WORKSPACE", "")
	path, home := journal.Locate(dir)
	journaltest.KilledRun(t, path, home, service, emulatortest.Token, RequestOf(client.CreateSubscriptionRequest{PlanID: "plan_001"}), ids)
}

// leftAtTheService is an emulator holding n subscriptions of plan_001
// that a killed run in the working directory dir made, with a client of
// it and their ids.
func leftAtTheService(t *testing.T, n int) (*emulatortest.Server, *client.Client, string, []string) {
	ds := emulator.DefaultDataset(emulator.DefaultPlans, 300)
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	var ids []string
	for range n {
		ids = append(ids, prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_001"}).ID)
	}
	dir := t.TempDir()
	killedRunLeft(t, dir, srv.URL, ids)
	return srv, prototest.ServiceClient(t, srv), dir, ids
}

// The recovery adapter as an apply's provider serves it with a journal,
// ten creates at once (run with -race too): every leftover is taken once,
// checked at the service by the list's pages, a request a page of 25,
// never a GET each; then creates are sent as usual.
func TestSession_takesEachLeftoverOnceByThePage(t *testing.T) {
	const n = 60
	srv, c, dir, ids := leftAtTheService(t, n)
	r := New(Config{Dir: dir})
	if diags := r.Open(t.Context(), srv.URL, srv.Token, LostRun{}, nil, ServiceOf(c)); diags.HasError() {
		t.Fatal(diags)
	}
	before := srv.RequestCounts()
	body := client.CreateSubscriptionRequest{PlanID: "plan_001"}
	var mu sync.Mutex
	taken := map[string]int{}
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for range n / 10 {
				sub, err := r.Take(t.Context(), body)
				if err != nil || sub == nil {
					t.Errorf("take: %v, %v", sub, err)
					return
				}
				mu.Lock()
				taken[sub.ID]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if sub, err := r.Take(t.Context(), body); sub != nil || err != nil {
		t.Errorf("a %dth take took %v (%v): there were %d leftovers", n+1, sub, err, n)
	}
	for _, id := range ids {
		if taken[id] != 1 {
			t.Errorf("%s taken %d times", id, taken[id])
		}
	}
	after := srv.RequestCounts()
	pages, gets := after["GET /v1/subscriptions"]-before["GET /v1/subscriptions"], after["GET /v1/subscriptions/{id}"]-before["GET /v1/subscriptions/{id}"]
	if pages > (n+24)/25 || gets != 0 {
		t.Errorf("the checks cost %d pages and %d GETs; want at most %d pages and no GET", pages, gets, (n+24)/25)
	}
	diags := r.Report(t.Context(), true)
	if len(diags) != 1 || !strings.HasPrefix(diags[0].Summary(), fmt.Sprintf("Took %d subscriptions", n)) {
		t.Errorf("the apply's report: %v", diags)
	}
	for _, id := range ids {
		if !strings.Contains(diags[0].Detail(), id) {
			t.Errorf("the report does not name %s", id)
		}
	}
}

// A journal that cannot be written stops creates before anything is
// sent, at plan time and at apply; off, creates go on without it.
func TestSession_aJournalThatCannotBeWrittenSendsNothing(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{})
	c := prototest.ServiceClient(t, srv)
	dir := t.TempDir()
	t.Setenv("TF_DATA_DIR", "")
	t.Setenv("TF_WORKSPACE", "")
	path, _ := journal.Locate(dir)
	if err := os.MkdirAll(path, 0o700); err != nil { // a directory where the file would be: no one can write it
		t.Fatal(err)
	}
	r := New(Config{Dir: dir})
	_ = r.Open(t.Context(), srv.URL, srv.Token, LostRun{}, nil, ServiceOf(c))
	body := client.CreateSubscriptionRequest{PlanID: "plan_001"}
	sub, diags, err := r.Create(t.Context(), body, time.Minute, func(ctx context.Context) (*client.Subscription, error) { return c.CreateSubscription(ctx, body) })
	if sub != nil || err != nil || !diags.HasError() || diags[0].Summary() != "The journal of creates cannot be written" || !strings.Contains(diags[0].Detail(), "MOBILEPLAN_JOURNAL=off") {
		t.Errorf("create: %v, %v, %v", sub, err, diags)
	}
	if n := srv.RequestCounts()["POST /v1/subscriptions"]; n != 0 {
		t.Errorf("%d creates sent without a journal to record them", n)
	}
	// Every later create stopped fails too, in a line that points to the
	// first error; a plan's creates fail on the first alone.
	sub, diags, _ = r.Create(t.Context(), body, time.Minute, func(ctx context.Context) (*client.Subscription, error) { return c.CreateSubscription(ctx, body) })
	if sub != nil || len(diags) != 1 || !diags.HasError() || diags[0].Summary() != "Not created: the journal of creates cannot be written" {
		t.Errorf("the second create: %v, %v", sub, diags)
	}
	planner := New(Config{Dir: dir})
	_ = planner.Open(t.Context(), srv.URL, srv.Token, LostRun{}, nil, ServiceOf(c))
	var errs int
	for range 5 {
		errs += len(planner.PlanCreate(func() string { return "" }).Errors())
	}
	if errs != 1 {
		t.Errorf("five creates planned without a journal gave %d errors, want the one that says why", errs)
	}
	t.Setenv(EnvJournal, "off")
	off := New(Config{Dir: dir})
	_ = off.Open(t.Context(), srv.URL, srv.Token, LostRun{}, nil, ServiceOf(c))
	if sub, diags, err := off.Create(t.Context(), body, time.Minute, func(ctx context.Context) (*client.Subscription, error) { return c.CreateSubscription(ctx, body) }); sub == nil || err != nil || len(diags) > 0 {
		t.Errorf("with the journal off: %v, %v, %v", sub, err, diags)
	}
}

// A create sent with no answer on record, for which the service lists
// nothing: the look names it, by its name, at every plan after, until
// dismissed_leftovers names it; nothing is bought in its stead silently.
func TestSession_aCreateALookFindsNothingForIsNamedUntilDismissed(t *testing.T) {
	srv := emulatortest.Start(t, emulator.Options{})
	c := prototest.ServiceClient(t, srv)
	dir := t.TempDir()
	t.Setenv("TF_DATA_DIR", "")
	t.Setenv("TF_WORKSPACE", "")
	path, home := journal.Locate(dir)
	journaltest.KilledBeforeItsAnswer(t, path, home, srv.URL, srv.Token, RequestOf(client.CreateSubscriptionRequest{PlanID: "plan_001"}))
	var name string
	for run := range 3 {
		var dismissed []string
		if run == 2 {
			dismissed = []string{name}
		}
		r := New(Config{Dir: dir})
		if diags := r.Open(t.Context(), srv.URL, srv.Token, LostRun{}, dismissed, ServiceOf(c)); diags.HasError() || len(diags) > 0 {
			t.Fatalf("run %d opened with %v", run, diags)
		}
		diags := r.Report(t.Context(), false)
		r.End()
		if run == 2 {
			if len(diags) > 0 {
				t.Errorf("once dismissed, the plan says %v", diags)
			}
			continue
		}
		if len(diags) != 1 || diags[0].Summary() != "1 subscription billed and in no state" {
			t.Fatalf("run %d: %v, want one warning naming the create", run, diags)
		}
		detail := diags[0].Detail()
		m := regexp.MustCompile(`create:[0-9a-f]+:1`).FindString(detail)
		if m == "" || !strings.Contains(detail, "plan_id plan_001") || !strings.Contains(detail, "sent ") || !strings.Contains(detail, "Date header") ||
			!strings.Contains(detail, `dismissed_leftovers = ["`+m+`"]`) {
			t.Fatalf("run %d: the warning does not name the create, its plan, when it was sent, the clocks and how to dismiss it:\n%s", run, detail)
		}
		name = m
	}
}

// A process reads the service's list once: the look at Open for what a
// create with no answer made, and the check of the leftovers its creates
// take, share the pages read (here 3 pages of 25 for 60 subscriptions,
// where each read them from the top: 6).
func TestSession_readsEachPageOfTheListOnce(t *testing.T) {
	const n = 60
	srv, c, dir, _ := leftAtTheService(t, n)
	path, home := journal.Locate(dir)
	journaltest.KilledBeforeItsAnswer(t, path, home, srv.URL, srv.Token, RequestOf(client.CreateSubscriptionRequest{PlanID: "plan_002"}))
	before := srv.RequestCounts()["GET /v1/subscriptions"]
	r := New(Config{Dir: dir})
	if diags := r.Open(t.Context(), srv.URL, srv.Token, LostRun{}, nil, ServiceOf(c)); diags.HasError() {
		t.Fatal(diags)
	}
	for range n {
		if sub, err := r.Take(t.Context(), client.CreateSubscriptionRequest{PlanID: "plan_001"}); sub == nil || err != nil {
			t.Fatalf("take: %v, %v", sub, err)
		}
	}
	if pages := srv.RequestCounts()["GET /v1/subscriptions"] - before; pages != 3 {
		t.Errorf("the look and the takes read %d pages of the list; want its 3, each once", pages)
	}
}

// A process whose Terraform is gone exits as soon as its creates are
// answered: each answer is in the journal's file when Create returns,
// not a fifth of a second later with the writer's clock.
func TestSession_aStoppingProcessWritesItsAnswersAtOnce(t *testing.T) {
	for _, stopping := range []bool{false, true} {
		dir := t.TempDir()
		t.Setenv("TF_DATA_DIR", "")
		t.Setenv("TF_WORKSPACE", "")
		svc := &fakeService{}
		r := New(Config{Dir: dir, Stopping: func() bool { return stopping }})
		if diags := r.Open(t.Context(), rowsURL, rowsTok, LostRun{}, nil, svc); diags.HasError() {
			t.Fatal(diags)
		}
		body := client.CreateSubscriptionRequest{PlanID: "plan_001"}
		if _, _, err := r.Create(t.Context(), body, time.Minute, func(context.Context) (*client.Subscription, error) {
			return &client.Subscription{ID: "sub_answered", PlanID: "plan_001", State: client.StateReady}, nil
		}); err != nil {
			t.Fatal(err)
		}
		path, _ := journal.Locate(dir)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if written := strings.Contains(string(b), `"sub_answered"`); written != stopping {
			t.Errorf("stopping %v: the answer is in the file at once: %v", stopping, written)
		}
		r.End()
	}
}

// A plan whose report came before Terraform read every instance (a pause
// in the walk longer than the seam's grace) named a subscription this
// state holds: once the Read shows it, the next report says so, in one
// warning, once.
func TestSession_aReportBeforeTheLastReadIsCorrected(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TF_DATA_DIR", "")
	t.Setenv("TF_WORKSPACE", "")
	path, home := journal.Locate(dir)
	h := &history{t: t, path: path, home: home, clock: &rowClock{now: rowsT0}, svc: &fakeService{}}
	h.killedApply(rowsURL, []string{"sub_a", "sub_b"}, 0)
	h.plan()
	r := New(Config{Dir: dir, Now: h.clock.Now, Sleep: h.clock.Sleep})
	if diags := r.Open(t.Context(), rowsURL, rowsTok, LostRun{}, nil, h.svc); diags.HasError() {
		t.Fatal(diags)
	}
	r.Planning()
	first := r.Report(t.Context(), false)
	if len(first) != 1 || !slices.Equal(idsIn(first[0]), []string{"sub_a", "sub_b"}) {
		t.Fatalf("the report: %v; want sub_a and sub_b named", first)
	}
	if r.HasReport() {
		t.Error("nothing new, and more to say")
	}
	r.Saw("sub_a")
	if !r.HasReport() {
		t.Fatal("a named subscription seen in state after the report, and nothing to say")
	}
	second := r.Report(t.Context(), false)
	if len(second) != 1 || second[0].Summary() != "1 subscription named above is in this state" || !strings.Contains(second[0].Detail(), "sub_a") || strings.Contains(second[0].Detail(), "sub_b") {
		t.Errorf("the correction: %v", second)
	}
	r.Saw("sub_a")
	if r.HasReport() || len(r.Report(t.Context(), false)) > 0 {
		t.Error("the correction is said twice")
	}
	r.End()
}
