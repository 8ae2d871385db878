package journal

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// The recovery's rules, a row each: the facts of a leftover and a run at
// instants from t0, and what the decision, or a look, makes of them. Each
// row names the rule it shows; TestRecoveryTuningIsPinned proves that each
// constant of DefaultTuning decides a row.

// row is one rule shown: check returns what goes wrong under tune.
type row struct {
	rule  string
	check func(tune Tuning) string
}

// leftover is the ordinary leftover: made by a create of this working
// directory's killed run an hour before t0, vouched for since.
func leftover(change func(*Leftover)) Leftover {
	l := Leftover{ID: "sub_a", Request: byID, Origin: OriginCreate, Given: t0.Add(-time.Hour), Run: t0.Add(-time.Hour), Service: svc, Home: here, Vouched: true}
	if change != nil {
		change(&l)
	}
	return l
}

// apply is the ordinary run: an apply at t0 of this working directory,
// with one create of the leftover's request.
func apply(change func(*Run)) Run {
	r := Run{Now: t0, Service: svc, Home: here, Creates: 1}
	if change != nil {
		change(&r)
	}
	return r
}

func decideRow(rule string, l Leftover, r Run, want Decision) row {
	return row{rule, func(tune Tuning) string {
		if got := Decide(l, r, tune); got != want {
			return fmt.Sprintf("decided %+v, want %+v", got, want)
		}
		return ""
	}}
}

var taken = Decision{Take: true}

func notTaken(reason Reason) Decision { return Decision{Reason: reason} }

func decideRows() []row {
	restored := Home{Dir: "/builds/other-checkout", Workspace: "default", Backend: "http:1234"}
	return []row{
		decideRow("the ordinary case: an unused leftover of the create's plan, vouched for, is taken", leftover(nil), apply(nil), taken),
		decideRow("the service no longer has it: not named, not taken", leftover(nil), apply(func(r *Run) { r.AtService = Gone }), notTaken(GoneAtService)),
		decideRow("this run's state holds it: neither taken nor named", leftover(nil), apply(func(r *Run) { r.Seen = true }), notTaken(SeenInState)),
		decideRow("a damaged line's id: named, never taken", leftover(func(l *Leftover) { l.Origin = OriginDamaged }), apply(nil), notTaken(DamagedLine)),
		decideRow("a create a look found nothing for: named, never taken", leftover(func(l *Leftover) { l.Origin = OriginUnfound }), apply(nil), notTaken(NothingFound)),
		decideRow("given to a process that ended as Terraform ends it: presumed held, not named", leftover(func(l *Leftover) { l.Presumed, l.Vouched = true, false }),
			apply(nil), notTaken(PresumedHeld)),
		decideRow("presumed held, and a plan of the whole state did not find it: taken", leftover(func(l *Leftover) { l.Presumed = true }), apply(nil), taken),
		decideRow("presumed held, and this plan of the whole state does not find it: taken", leftover(func(l *Leftover) { l.Presumed, l.Vouched = true, false }),
			apply(func(r *Run) { r.Plan = true }), taken),
		decideRow("presumed held, a saved state holding another of its process's: removed on purpose, neither taken nor named",
			leftover(func(l *Leftover) { l.Presumed, l.Kept = true, true }), apply(func(r *Run) { r.Plan = true }), notTaken(RemovedFromState)),
		decideRow("of a killed process, another of its process's in state: taken", leftover(func(l *Leftover) { l.Kept = true }), apply(nil), taken),
		decideRow("presumed held, and this plan sees only part of its state: not named", leftover(func(l *Leftover) { l.Presumed, l.Vouched = true, false }),
			apply(func(r *Run) { r.Plan, r.Limited = true, "-target" }), notTaken(PresumedHeld)),
		decideRow("another workspace's", leftover(func(l *Leftover) { l.Home.Workspace = "staging" }), apply(nil), notTaken(AnotherHome)),
		decideRow("another working directory's, of no known state", leftover(func(l *Leftover) { l.Home.Dir = "/elsewhere" }), apply(nil), notTaken(AnotherHome)),
		decideRow("another working directory's, of another state", leftover(func(l *Leftover) { l.Home = Home{Dir: "/elsewhere", Workspace: "default", Backend: "http:99"} }),
			apply(func(r *Run) { r.Home = restored }), notTaken(AnotherHome)),
		decideRow("a journal restored into another checkout of the same state: taken", leftover(func(l *Leftover) {
			l.Home = Home{Dir: "/builds/killed-checkout", Workspace: "default", Backend: "http:1234"}
		}),
			apply(func(r *Run) { r.Home = restored }), taken),
		decideRow("the same working directory whatever the state says", leftover(func(l *Leftover) { l.Home.Backend = "local:old" }), apply(func(r *Run) { r.Home.Backend = "local:new" }), taken),
		decideRow("made at another base_url", leftover(func(l *Leftover) { l.Service = "https://other.example.com" }), apply(nil), notTaken(AnotherService)),
		decideRow("made at another base_url that another configuration of this run serves: left to it, not named here", leftover(func(l *Leftover) { l.Service = "https://other.example.com" }),
			apply(func(r *Run) { r.Beside = []Served{{Service: "https://other.example.com"}} }), notTaken(ServedBeside)),
		decideRow("made with another token that another configuration of this run serves: left to it", leftover(func(l *Leftover) { l.Account = "another" }),
			apply(func(r *Run) { r.Beside = []Served{{Service: svc, Account: "another"}} }), notTaken(ServedBeside)),
		decideRow("this run's own service beside it: not a reason", leftover(nil), apply(func(r *Run) { r.Beside = []Served{{Service: svc}} }), taken),
		decideRow("made with another token, for another account", leftover(func(l *Leftover) { l.Account = "another" }), apply(nil), notTaken(AnotherAccount)),
		decideRow("a run an hour short of StaleAfter old: taken", leftover(func(l *Leftover) { l.Run = t0.Add(-7*24*time.Hour + time.Hour) }), apply(nil), taken),
		decideRow("a run StaleAfter old: named, never taken", leftover(func(l *Leftover) { l.Run = t0.Add(-7 * 24 * time.Hour) }), apply(nil), notTaken(Stale)),
		decideRow("found for creates, no more than they could have made: taken", leftover(func(l *Leftover) { l.Origin, l.Sends, l.Found = OriginFound, 3, 3 }), apply(nil), taken),
		decideRow("found for creates, more than they could have made: which are another configuration's cannot be told", leftover(func(l *Leftover) { l.Origin, l.Sends, l.Found = OriginFound, 3, 4 }),
			apply(nil), notTaken(MoreThanSent)),
		decideRow("a lost run's: taken, however many its window holds", leftover(func(l *Leftover) { l.Origin, l.Sends, l.Found = OriginLostRun, 0, 9 }), apply(nil), taken),
		decideRow("activated at the service", leftover(nil), apply(func(r *Run) { r.AtService = Used }), notTaken(UsedAtService)),
		decideRow("of another plan at the service", leftover(nil), apply(func(r *Run) { r.AtService = OtherPlan }), notTaken(OtherPlanAtService)),
		decideRow("a run under -target", leftover(nil), apply(func(r *Run) { r.Limited = "-target" }), notTaken(LimitedRun)),
		decideRow("an apply no whole plan vouched for", leftover(func(l *Leftover) { l.Vouched = false }), apply(nil), notTaken(NotVouched)),
		decideRow("a plan vouches for itself", leftover(func(l *Leftover) { l.Vouched = false }), apply(func(r *Run) { r.Plan = true }), taken),
		decideRow("no create of its plan needs it: named", leftover(nil), apply(func(r *Run) { r.Creates = 0 }), notTaken(NoCreate)),
	}
}

func TestDecide(t *testing.T) {
	t.Parallel()
	for _, r := range decideRows() {
		if problem := r.check(DefaultTuning); problem != "" {
			t.Errorf("%s: %s", r.rule, problem)
		}
	}
}

// Only what the decision leaves billed and in no state is named: a
// subscription gone at the service is not.
func TestNamed(t *testing.T) {
	t.Parallel()
	for d, want := range map[Decision]bool{taken: false, notTaken(GoneAtService): false, notTaken(SeenInState): false, notTaken(PresumedHeld): false, notTaken(RemovedFromState): false, notTaken(ServedBeside): false,
		notTaken(NoCreate): true, notTaken(Stale): true, notTaken(AnotherService): true} {
		if d.Named() != want {
			t.Errorf("%+v named %v, want %v", d, d.Named(), want)
		}
	}
}

// unpinned are the constants of Tuning no row can pin, each with why.
var unpinned = map[string]string{
	"OrphanWait": "it bounds a wait for another provider process, alive with its Terraform gone, which only a real kill makes (TestCLI_killedApplyIsRecoveredByTheNextApply, at once)",
	"OrphanPoll": "how often a waiting session looks again changes when it stops waiting by at most this much, which no outcome a test can observe depends on",
}

// Each constant of DefaultTuning decides a row: doubled or halved, one
// fails; or it is among unpinned, with the reason.
func TestRecoveryTuningIsPinned(t *testing.T) {
	t.Parallel()
	rows := append(append(append(decideRows(), lookRows()...), writerRows()...), orphanRows()...)
	fields := reflect.TypeOf(DefaultTuning)
	for i := range fields.NumField() {
		name := fields.Field(i).Name
		if why, ok := unpinned[name]; ok {
			t.Logf("%s is not pinned: %s", name, why)
			continue
		}
		for _, factor := range []float64{2, 0.5} {
			tune := DefaultTuning
			v := reflect.ValueOf(&tune).Elem().Field(i)
			if v.Kind() != reflect.Int64 {
				t.Fatalf("%s: a %v, which this test cannot scale", name, v.Kind())
			}
			v.SetInt(int64(float64(v.Int()) * factor))
			failed := 0
			for _, r := range rows {
				if r.check(tune) != "" {
					failed++
				}
			}
			t.Logf("%s × %v: %d rows fail", name, factor, failed)
			if failed == 0 {
				t.Errorf("%s × %v: every row still passes", name, factor)
			}
		}
	}
}
