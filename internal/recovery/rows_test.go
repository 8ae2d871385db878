package recovery

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// The session's rows: a history of earlier processes in the journal, the
// service as it stands, and one run (a plan, or the apply of one), with a
// fake service and a fake clock: each edge a CLI test once showed, in
// milliseconds. A row names its rule; what it checks is what the run
// takes, names and buys.

var (
	rowsT0  = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	rowsURL = "https://api.example.com"
	rowsTok = "token"
	plan1   = RequestOf(client.CreateSubscriptionRequest{PlanID: "plan_001"})
)

// fakeService is the service as the rows see it: its subscriptions newest
// first, its Date header's offset from this machine's clock, and the
// pages and GETs it answered.
type fakeService struct {
	mu     sync.Mutex
	subs   []client.Subscription
	offset time.Duration
	pages  int
	gets   int
}

// add makes subscription id of planID at created, by the service's clock.
func (f *fakeService) add(id, planID string, created time.Time, used bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := client.Subscription{ID: id, PlanID: planID, State: client.StateReady, CreatedAt: created.Unix()}
	if used {
		s.State = client.StateActive
		s.ActivatedAt = new(created.Unix())
	}
	f.subs = append([]client.Subscription{s}, f.subs...)
}

func (f *fakeService) List() Pager { return &fakePages{f: f} }

func (f *fakeService) Subscription(_ context.Context, id string) (*client.Subscription, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	for _, s := range f.subs {
		if s.ID == id {
			return &s, nil
		}
	}
	return nil, &client.APIError{StatusCode: 404, Code: "notFound"}
}

type fakePages struct {
	f    *fakeService
	next int
}

func (p *fakePages) Next(context.Context) ([]client.Subscription, bool, time.Duration, error) {
	p.f.mu.Lock()
	defer p.f.mu.Unlock()
	p.f.pages++
	end := min(p.next+client.MaxPageSize, len(p.f.subs))
	page := slices.Clone(p.f.subs[p.next:end])
	p.next = end
	return page, end < len(p.f.subs), p.f.offset, nil
}

// rowClock is the rows' clock: it moves only when told to, or when the
// session sleeps.
type rowClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *rowClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *rowClock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// history writes what earlier processes of a working directory left in
// its journal.
type history struct {
	t     *testing.T
	dir   string // the working directory, for a whole earlier run (do)
	path  string
	home  journal.Home
	clock *rowClock
	svc   *fakeService
	runs  int
}

func (h *history) open(service string) *journal.Journal {
	// Each earlier process of another run: a Terraform of its own.
	h.runs++
	j, err := journal.Open(h.path, h.home, service, journal.Options{Now: h.clock.Now, Token: rowsTok, Parent: 1<<30 + h.runs})
	if err != nil {
		h.t.Fatal(err)
	}
	return j
}

// killedApply is an apply killed after the service made ids for it (at
// the service too), with no answer on record for unanswered more creates.
func (h *history) killedApply(service string, ids []string, unanswered int) {
	j := h.open(service)
	for _, id := range ids {
		c := j.NewCreate(plan1, time.Minute)
		if err := c.Sending(); err != nil {
			h.t.Fatal(err)
		}
		h.svc.add(id, "plan_001", h.clock.Now().Add(h.svc.offset), false)
		h.clock.Sleep(time.Second)
		if err := c.Made(id, h.clock.Now().Add(h.svc.offset-time.Second)); err != nil {
			h.t.Fatal(err)
		}
	}
	for range unanswered {
		if err := j.NewCreate(plan1, time.Minute).Sending(); err != nil {
			h.t.Fatal(err)
		}
	}
	_ = j.Close()
	h.clock.Sleep(time.Minute)
}

// damagedLines appends a line no process wrote to the journal for each
// of ids, each showing its id (a damaged disk, another program's write).
func (h *history) damagedLines(ids ...string) {
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	defer f.Close()
	for _, id := range ids {
		if _, err := fmt.Fprintf(f, "0badc0de {\"k\":\"made\",\"id\":%q}\n", id); err != nil {
			h.t.Fatal(err)
		}
	}
}

// plan is a whole plan that ended the usual way, its state holding seen.
func (h *history) plan(seen ...string) {
	if err := h.open(rowsURL).End(true, false, seen, nil); err != nil {
		h.t.Fatal(err)
	}
	h.clock.Sleep(time.Minute)
}

// run is the run a row makes: a plan, or the apply of a saved plan.
type run struct {
	apply     bool
	creates   int      // of plan_001
	seen      []string // what the state holds
	dismissed []string
	beside    string  // the base_url of another configuration of the run
	lost      LostRun // a run lost with its working directory, to recover
	off       bool    // MOBILEPLAN_JOURNAL=off
}

// outcome is what a run did: the ids it took (an apply) or says the apply
// takes (a plan), those it names as billed and in no state, and how many
// it bought.
type outcome struct {
	taken, named []string
	bought       int
}

func (o outcome) String() string {
	return fmt.Sprintf("taken %v, named %v, bought %d", o.taken, o.named, o.bought)
}

var idPattern = regexp.MustCompile(`\n  - (\S+) \(`)

// idsIn are the ids a warning lists, sorted.
func idsIn(d diag.Diagnostic) []string {
	var ids []string
	for _, m := range idPattern.FindAllStringSubmatch(d.Detail(), -1) {
		ids = append(ids, m[1])
	}
	sort.Strings(ids)
	return ids
}

// do runs r in the working directory dir against svc.
func (h *history) do(dir string, r run) outcome {
	ctx := context.Background()
	if r.beside != "" {
		// Another configuration of this run: a process of the same
		// Terraform, started first.
		j, err := journal.Open(h.path, h.home, r.beside, journal.Options{Now: h.clock.Now, Token: rowsTok, Parent: os.Getppid()})
		if err != nil {
			h.t.Fatal(err)
		}
		defer j.Close()
	}
	if r.off {
		h.t.Setenv(EnvJournal, "off")
	}
	s := New(Config{Dir: dir, Now: h.clock.Now, Sleep: h.clock.Sleep, AppliesPlanFile: func() bool { return r.apply }})
	var out outcome
	// Terraform configures the provider once for each of its blocks: the
	// second block of the same service is told nothing the first was.
	var said diag.Diagnostics
	for range 2 {
		diags := s.Open(ctx, rowsURL, rowsTok, r.lost, r.dismissed, h.svc)
		if diags.HasError() {
			h.t.Fatalf("open: %v", diags)
		}
		said = append(said, diags...) // each, as Terraform shows each block's
	}
	s.Planning()
	for _, id := range r.seen {
		s.Saw(id)
	}
	for range r.creates {
		if d := s.PlanCreate(func() string { return plan1 }); d.HasError() {
			h.t.Fatalf("plan create: %v", d)
		}
	}
	if r.apply {
		s.Applied()
		body := client.CreateSubscriptionRequest{PlanID: "plan_001"}
		for range r.creates {
			sub, err := s.Take(ctx, body)
			if err != nil {
				h.t.Fatalf("take: %v", err)
			}
			if sub == nil {
				out.bought++
				id := fmt.Sprintf("sub_new_%d", len(h.svc.subs)) // unique at the service
				sub, d, err := s.Create(ctx, body, time.Minute, func(context.Context) (*client.Subscription, error) {
					h.svc.add(id, "plan_001", h.clock.Now().Add(h.svc.offset), false)
					return &client.Subscription{ID: id, PlanID: "plan_001", State: client.StateReady, CreatedAt: h.clock.Now().Add(h.svc.offset).Unix()}, nil
				})
				if err != nil || d.HasError() {
					h.t.Fatalf("create: %v, %v", err, d)
				}
				s.Saw(sub.ID)
				continue
			}
			s.Saw(sub.ID)
		}
	}
	for _, d := range append(said, s.Report(ctx, r.apply)...) {
		switch summary := d.Summary(); {
		case strings.HasPrefix(summary, "Taking ") || strings.HasPrefix(summary, "Took "):
			out.taken = append(out.taken, idsIn(d)...)
		case strings.Contains(summary, "billed and in no state") || strings.HasPrefix(summary, "The journal of creates is off, and names "):
			out.named = append(out.named, idsIn(d)...)
		}
	}
	s.End()
	h.clock.Sleep(time.Minute)
	return out
}

func TestSessionRows(t *testing.T) {
	for _, row := range []struct {
		rule   string
		before func(h *history)
		run    run
		want   outcome
	}{
		{
			rule:   "the kill: what a killed apply made is taken by the next apply's creates",
			before: func(h *history) { h.killedApply(rowsURL, []string{"sub_a", "sub_b"}, 0); h.plan() },
			run:    run{apply: true, creates: 2},
			want:   outcome{taken: []string{"sub_a", "sub_b"}},
		},
		{
			rule:   "the lowered count: what no create needs is named, with its id",
			before: func(h *history) { h.killedApply(rowsURL, []string{"sub_a", "sub_b", "sub_c"}, 0); h.plan() },
			run:    run{apply: true, creates: 1},
			want:   outcome{taken: []string{"sub_a"}, named: []string{"sub_b", "sub_c"}},
		},
		{
			rule: "the late answer: a create killed before its answer made a subscription the plan finds, and the apply takes",
			before: func(h *history) {
				h.killedApply(rowsURL, nil, 1)
				h.svc.add("sub_late", "plan_001", rowsT0.Add(h.svc.offset+time.Second), false)
			},
			run:  run{creates: 1},
			want: outcome{taken: []string{"sub_late"}},
		},
		{
			rule: "the late answer, createdAt a day behind the Date header: the run's answers place its clock",
			before: func(h *history) {
				h.svc.offset = -24 * time.Hour
				h.killedApply(rowsURL, []string{"sub_a"}, 1)
				h.svc.add("sub_late", "plan_001", h.clock.Now().Add(-time.Minute+h.svc.offset), false)
				h.svc.offset = 0 // the Date header's clock is this machine's
			},
			run:  run{creates: 2},
			want: outcome{taken: []string{"sub_a", "sub_late"}},
		},
		{
			rule:   "the state holds it: neither taken nor named",
			before: func(h *history) { h.killedApply(rowsURL, []string{"sub_a", "sub_b"}, 0); h.plan() },
			run:    run{apply: true, creates: 1, seen: []string{"sub_a"}},
			want:   outcome{taken: []string{"sub_b"}},
		},
		{
			rule: "used at the service: named, and a new one bought",
			before: func(h *history) {
				h.killedApply(rowsURL, []string{"sub_a"}, 0)
				h.plan()
				h.svc.subs[0].State = client.StateActive
			},
			run:  run{apply: true, creates: 1},
			want: outcome{named: []string{"sub_a"}, bought: 1},
		},
		{
			rule:   "dismissed: neither taken nor named, and a new one bought",
			before: func(h *history) { h.killedApply(rowsURL, []string{"sub_a"}, 0); h.plan() },
			run:    run{apply: true, creates: 1, dismissed: []string{"sub_a"}},
			want:   outcome{bought: 1},
		},
		{
			rule:   "two services: another service's leftover is named, never taken",
			before: func(h *history) { h.killedApply("https://staging.example.com", []string{"sub_a"}, 0); h.plan() },
			run:    run{apply: true, creates: 1},
			want:   outcome{named: []string{"sub_a"}, bought: 1},
		},
		{
			rule:   "two services in one run: another service's leftover is left to its configuration",
			before: func(h *history) { h.killedApply("https://staging.example.com", []string{"sub_a"}, 0); h.plan() },
			run:    run{apply: true, creates: 1, beside: "https://staging.example.com"},
			want:   outcome{bought: 1},
		},
		{
			rule: "two workspaces: another workspace's leftover is named, never taken",
			before: func(h *history) {
				h.home.Workspace = "staging"
				h.killedApply(rowsURL, []string{"sub_a"}, 0)
				h.home.Workspace = "default"
				h.plan()
			},
			run:  run{apply: true, creates: 1},
			want: outcome{named: []string{"sub_a"}, bought: 1},
		},
		{
			rule: "the lost run: a new checkout of its state names the run, and takes what its window holds that the state does not",
			before: func(h *history) {
				for _, id := range []string{"sub_held_1", "sub_held_2", "sub_lost_1", "sub_lost_2"} {
					h.svc.add(id, "plan_001", rowsT0.Add(time.Minute), false)
				}
				h.svc.add("sub_before", "plan_001", rowsT0.Add(-time.Hour), false)
				h.clock.Sleep(time.Hour)
			},
			run:  run{creates: 2, seen: []string{"sub_held_1", "sub_held_2"}, lost: LostRun{Started: rowsT0}},
			want: outcome{taken: []string{"sub_lost_1", "sub_lost_2"}},
		},
		{
			// The window's finds are in the list's order, newest first,
			// and a create takes the first that serves it.
			rule: "the lost run, the count lowered: what no create needs is named, never what the state holds",
			before: func(h *history) {
				for i, id := range []string{"sub_held_1", "sub_lost_1", "sub_lost_2"} {
					h.svc.add(id, "plan_001", rowsT0.Add(time.Duration(i+1)*time.Minute), false)
				}
				h.clock.Sleep(time.Hour)
			},
			run:  run{creates: 1, seen: []string{"sub_held_1"}, lost: LostRun{Started: rowsT0}},
			want: outcome{taken: []string{"sub_lost_2"}, named: []string{"sub_lost_1"}},
		},
		{
			// The apply's state was saved (a later plan reads one of its
			// subscriptions); the other was taken out of it on purpose,
			// right after the apply, with no plan between.
			rule: "state rm after an apply: what the saved state no longer holds is neither taken nor named",
			before: func(h *history) {
				if got := h.do(h.dir, run{apply: true, creates: 2}); got.bought != 2 {
					h.t.Fatalf("the apply before: %s", got)
				}
				h.plan("sub_new_1") // the run's plan: the whole state, one of the two
			},
			run:  run{apply: true, creates: 1, seen: []string{"sub_new_1"}},
			want: outcome{bought: 1},
		},
		{
			rule: "the restored journal: another checkout of the same state takes what the killed one left",
			before: func(h *history) {
				h.home = journal.Home{Dir: "/builds/killed-job", Workspace: "default", Backend: "http:1234"}
				h.killedApply(rowsURL, []string{"sub_a", "sub_b"}, 0)
			},
			run:  run{creates: 2},
			want: outcome{taken: []string{"sub_a", "sub_b"}},
		},
		{
			rule: "the restored journal of another state: named, never taken",
			before: func(h *history) {
				h.home = journal.Home{Dir: "/builds/killed-job", Workspace: "default", Backend: "http:99"}
				h.killedApply(rowsURL, []string{"sub_a"}, 0)
			},
			run:  run{creates: 1},
			want: outcome{named: []string{"sub_a"}},
		},
		{
			rule: "a damaged line: an id the service does not have is named no more; one it has is named, never taken",
			before: func(h *history) {
				h.killedApply(rowsURL, []string{"sub_a"}, 0)
				h.svc.add("sub_b", "plan_001", rowsT0, false)
				h.damagedLines("sub_from_nowhere", "sub_b")
				h.plan()
			},
			run:  run{apply: true, creates: 2},
			want: outcome{taken: []string{"sub_a"}, named: []string{"sub_b"}, bought: 1},
		},
		{
			rule:   "the journal off: what it names is named once, nothing is taken, and a create buys",
			before: func(h *history) { h.killedApply(rowsURL, []string{"sub_a", "sub_b"}, 0); h.plan() },
			run:    run{apply: true, creates: 1, off: true},
			want:   outcome{named: []string{"sub_a", "sub_b"}, bought: 1},
		},
		{
			rule:   "the journal off, naming nothing: nothing said",
			before: func(h *history) { h.plan() },
			run:    run{apply: true, creates: 1, off: true},
			want:   outcome{bought: 1},
		},
		{
			rule:   "the journal off, naming another service's: nothing said to this one",
			before: func(h *history) { h.killedApply("https://staging.example.com", []string{"sub_a"}, 0); h.plan() },
			run:    run{apply: true, creates: 1, off: true},
			want:   outcome{bought: 1},
		},
	} {
		t.Run(row.rule, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("TF_DATA_DIR", "")
			t.Setenv("TF_WORKSPACE", "")
			// The state of the working directory: an http backend.
			data := filepath.Join(dir, ".terraform")
			if err := os.MkdirAll(data, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(data, "terraform.tfstate"), []byte(`{"backend":{"type":"http","hash":1234}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			path, home := journal.Locate(dir)
			h := &history{t: t, dir: dir, path: path, home: home, clock: &rowClock{now: rowsT0}, svc: &fakeService{}}
			row.before(h)
			_, h.home = journal.Locate(dir)
			got := h.do(dir, row.run)
			sort.Strings(got.taken)
			sort.Strings(got.named)
			if !slices.Equal(got.taken, row.want.taken) || !slices.Equal(got.named, row.want.named) || got.bought != row.want.bought {
				t.Errorf("%s; want %s", got, row.want)
			}
		})
	}
}
