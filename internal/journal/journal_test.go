package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	here  = Home{Dir: "/work/config", Workspace: "default"}
	t0    = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	svc   = "https://api.example.com"
	byID  = "plan_id plan_001"
	other = "plan_id plan_002"
)

// clock is a time the tests move.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func open(t *testing.T, path string, c *clock) *Journal {
	t.Helper()
	j, err := Open(path, here, svc, Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func newPath(t *testing.T) string { return filepath.Join(t.TempDir(), "default.journal") }

// skipWithoutFlock skips where the journal has no file locks (Windows),
// where it is never compacted and the provider never takes a leftover.
func skipWithoutFlock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock: the journal is never compacted, and nothing is taken")
	}
}

func leftovers(t *testing.T, j *Journal) []Leftover {
	t.Helper()
	return must(j.Leftovers())
}

func ids(ls []Leftover) string {
	var out []string
	for _, l := range ls {
		out = append(out, l.ID)
	}
	return strings.Join(out, ",")
}

// takeFirst takes the first leftover offered, as a create finding every
// one fit at the service would.
func takeFirst(t *testing.T, j *Journal, request string) (Leftover, bool) {
	t.Helper()
	l, ok, err := j.Take(request, func(ls []Leftover) (string, error) {
		for _, l := range ls {
			if l.Vouched {
				return l.ID, nil
			}
		}
		return "", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return l, ok
}

// made records one create of request answered with id.
func made(t *testing.T, j *Journal, request, id string) {
	t.Helper()
	c := j.NewCreate(request, 30*time.Second)
	if err := c.Sending(); err != nil {
		t.Fatal(err)
	}
	if err := c.Made(id, time.Time{}); err != nil {
		t.Fatal(err)
	}
}

// killedApply is an apply that made sub_a and sub_b, sent a third create
// with no answer, and was killed: no end record.
func killedApply(t *testing.T, path string, c *clock) {
	t.Helper()
	j := open(t, path, c)
	made(t, j, byID, "sub_a")
	made(t, j, byID, "sub_b")
	if err := j.NewCreate(byID, 30*time.Second).Sending(); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// plan is a plan that ended the usual way, whole or not, its state
// holding held.
func plan(t *testing.T, path string, c *clock, whole bool, held ...string) {
	t.Helper()
	j := open(t, path, c)
	if err := j.End(whole, false, held, nil); err != nil {
		t.Fatal(err)
	}
}

func TestLeftoversAreWhatAKilledProcessWasGivenAndNoStateHeld(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	killedApply(t, path, c)

	j := open(t, path, c)
	if got := ids(leftovers(t, j)); got != "sub_a,sub_b" {
		t.Errorf("leftovers %v, want sub_a, sub_b", got)
	}
	if oc := j.OpenCreates(); len(oc) != 1 || oc[0].Request != byID || !oc[0].Sent.Equal(t0) || oc[0].Within != 30*time.Second {
		t.Errorf("open creates %+v, want the one create in flight", oc)
	}
	if _, ok := takeFirst(t, j, byID); ok {
		t.Error("a leftover was taken with no plan vouching for it")
	}
	_ = j.Close()

	plan(t, path, c, true, "sub_a")
	j = open(t, path, c)
	defer j.Close()
	if got := ids(leftovers(t, j)); got != "sub_b" {
		t.Errorf("after a plan whose state held sub_a: leftovers %v, want sub_b", got)
	}
	if _, ok := takeFirst(t, j, other); ok {
		t.Error("a leftover of another request was taken")
	}
	l, ok := takeFirst(t, j, byID)
	if !ok || l.ID != "sub_b" {
		t.Fatalf("took %+v %v, want sub_b", l, ok)
	}
	if _, ok := takeFirst(t, j, byID); ok {
		t.Error("a leftover was taken twice")
	}
}

// Only a plan that saw the whole state, applied nothing, ended the usual
// way and began after the leftover was given vouches for it.
func TestOnlyAWholePlanAfterTheKillVouches(t *testing.T) {
	for name, c := range map[string]struct {
		before  bool // the plan ran before the killed apply
		whole   bool
		ended   bool
		applied bool
		want    bool
	}{
		"whole plan after":     {whole: true, ended: true, want: true},
		"targeted plan after":  {whole: false, ended: true},
		"plan killed too":      {whole: true, ended: false},
		"an apply, not a plan": {whole: true, ended: true, applied: true},
		"whole plan before":    {before: true, whole: true, ended: true},
	} {
		t.Run(name, func(t *testing.T) {
			path := newPath(t)
			clk := &clock{now: t0}
			run := func() {
				j := open(t, path, clk)
				if c.ended {
					_ = j.End(c.whole, c.applied, nil, nil)
				} else {
					_ = j.Close()
				}
			}
			if c.before {
				run()
			}
			killedApply(t, path, clk)
			if !c.before {
				run()
			}
			j := open(t, path, clk)
			defer j.Close()
			ls := leftovers(t, j)
			if len(ls) != 2 || ls[0].Vouched != c.want {
				t.Errorf("leftovers %+v, want 2 vouched %v", ls, c.want)
			}
		})
	}
}

// What a process Terraform ended the usual way was given is presumed in
// the state it handed over, which may never have been saved: the CLI
// killed before it saved, an upload that failed, or another run applying
// at once (-lock=false) that overwrote it. It is a leftover once a whole
// plan after it did not find it, and not before.
func TestWhatAnEndedProcessGaveIsPresumedHeldUntilAPlanVouches(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	first := open(t, path, c)
	second := must(Open(path, here, svc, Options{Now: c.Now, Parent: first.ppid + 1})) // another run's, at once
	made(t, first, byID, "sub_1")
	made(t, second, byID, "sub_2")
	_ = first.End(false, true, []string{"sub_1"}, nil)
	_ = second.End(false, true, []string{"sub_2"}, nil)

	j := open(t, path, c)
	ls := leftovers(t, j)
	if got := ids(ls); got != "sub_1,sub_2" || !ls[0].Presumed || ls[0].Vouched {
		t.Errorf("leftovers %+v, want both presumed held, none vouched for", ls)
	}
	if d := Decide(ls[0], Run{Now: t0, Service: svc, Home: here, Creates: 1}, DefaultTuning); d.Named() || d.Take {
		t.Errorf("an apply decided %+v of a subscription presumed held", d)
	}
	_ = j.Close()
	plan(t, path, c, true, "sub_2") // the state the last writer saved
	j = open(t, path, c)
	defer j.Close()
	ls = leftovers(t, j)
	if got := ids(ls); got != "sub_1" || !ls[0].Vouched {
		t.Errorf("after a plan whose state held sub_2: leftovers %+v, want sub_1, vouched for", ls)
	}
}

// The processes of one run (one per provider configuration) take from
// one journal at once: each leftover goes to one create, whatever the
// process.
func TestProcessesNeverTakeTheSameLeftover(t *testing.T) {
	skipWithoutFlock(t)
	path := newPath(t)
	c := &clock{now: t0}
	killer := open(t, path, c)
	for i := range 20 {
		made(t, killer, byID, fmt.Sprintf("sub_%02d", i))
	}
	_ = killer.Close()
	plan(t, path, c, true)
	a, b := open(t, path, c), open(t, path, c)
	defer a.Close()
	defer b.Close()
	var mu sync.Mutex
	taken := map[string]int{}
	var wg sync.WaitGroup
	for _, j := range []*Journal{a, b, a, b} {
		wg.Go(func() {
			for {
				l, ok := takeFirst(t, j, byID)
				if !ok {
					return
				}
				mu.Lock()
				taken[l.ID]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(taken) != 20 {
		t.Errorf("%d of 20 leftovers taken", len(taken))
	}
	for id, n := range taken {
		if n > 1 {
			t.Errorf("%s taken %d times", id, n)
		}
	}
}

// A pick that finds nothing, or fails, leaves every leftover where it
// was.
func TestAPickThatTakesNothingChangesNothing(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	killedApply(t, path, c)
	plan(t, path, c, true)
	j := open(t, path, c)
	defer j.Close()
	for _, pick := range []func([]Leftover) (string, error){
		func([]Leftover) (string, error) { return "", nil },
		func([]Leftover) (string, error) { return "", errors.New("no answer from the service") },
	} {
		if _, ok, _ := j.Take(byID, pick); ok {
			t.Error("took with a pick that chose none")
		}
	}
	if got := ids(leftovers(t, j)); got != "sub_a,sub_b" {
		t.Errorf("leftovers %v, want both still", got)
	}
}

// A create answered 429 made nothing: it is not open while it waits to be
// sent again, and sent again, it is.
func TestARefusedAttemptIsNotOpen(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	j := open(t, path, c)
	cr := j.NewCreate(byID, time.Minute)
	_ = cr.Sending()
	cr.Refused()
	_ = j.Close()
	j = open(t, path, c)
	if oc := j.OpenCreates(); len(oc) != 0 {
		t.Errorf("open creates %+v after a refusal", oc)
	}
	_ = j.Close()
	j = open(t, path, c)
	cr = j.NewCreate(byID, time.Minute)
	_ = cr.Sending()
	cr.Refused()
	c.add(time.Second)
	_ = cr.Sending()
	_ = j.Close()
	j = open(t, path, c)
	defer j.Close()
	if oc := j.OpenCreates(); len(oc) != 1 || !oc[0].Sent.Equal(t0.Add(time.Second)) {
		t.Errorf("open creates %+v, want the attempt sent again", oc)
	}
}

// A process's own creates in flight, and a live process's, are not open:
// their answers may yet come.
func TestOwnCreatesInFlightAreNotOpen(t *testing.T) {
	path := newPath(t)
	j := open(t, path, &clock{now: t0})
	defer j.Close()
	_ = j.NewCreate(byID, time.Minute).Sending()
	if oc := j.OpenCreates(); len(oc) != 0 {
		t.Errorf("open creates %v: this process's own create in flight", oc)
	}
	// Another process, which runs (the test's parent), of a Terraform
	// that runs (init).
	live := must(Open(path, here, svc, Options{Now: (&clock{now: t0}).Now, pid: os.Getppid(), Parent: 1}))
	_ = live.NewCreate(byID, time.Minute).Sending()
	defer live.Close()
	reader := open(t, path, &clock{now: t0})
	defer reader.Close()
	if oc := reader.OpenCreates(); len(oc) != 1 {
		t.Errorf("open creates %v: want this process's, whose records it left behind, and not the live one's", oc)
	}
}

// A look settles the creates it was for: what it found is a leftover of
// the look's group, which says how many creates it was for and how many
// found no state holds; a later process does not look again.
func TestALookSettlesOpenCreatesAndFindsLeftovers(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	killedApply(t, path, c)
	j := open(t, path, c)
	creates := j.OpenCreates()
	found := []Found{{ID: "sub_c", Request: byID, Created: t0}, {ID: "sub_d", Request: byID, Created: t0}}
	if err := j.RecordLook(creates, Looked{Found: found}); err != nil {
		t.Fatal(err)
	}
	_ = j.End(true, false, []string{"sub_d"}, nil)
	j = open(t, path, c)
	defer j.Close()
	if oc := j.OpenCreates(); len(oc) != 0 {
		t.Errorf("open creates %+v after the look", oc)
	}
	var c2 *Leftover
	for _, l := range leftovers(t, j) {
		if l.ID == "sub_c" {
			c2 = &l
		}
		if l.ID == "sub_d" {
			t.Error("sub_d, which a state held, is a leftover")
		}
	}
	if c2 == nil || c2.Origin != OriginFound || c2.Sends != 1 || c2.Found != 1 || !c2.Created.Equal(t0) {
		t.Errorf("the found leftover %+v, want sub_c found for 1 create, 1 found no state holds", c2)
	}
	// The look came before the looking plan read its state: that plan,
	// whole, vouches for what it found.
	if c2 != nil && !c2.Vouched {
		t.Error("what a whole plan found itself is not vouched for")
	}
	if !j.Known("sub_c") || !j.Known("sub_a") || j.Known("sub_x") {
		t.Error("Known does not name what the journal names")
	}
}

// A lost run's finds are leftovers of the processes given that lost run,
// and of no other.
func TestALostRunsFindsAreOnlyItsOwn(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	lost := t0.Add(-time.Hour)
	j, err := Open(path, here, svc, Options{Now: c.Now, LostRun: lost})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.RecordLostRun([]Found{{ID: "sub_l", Request: byID, Created: lost.Add(time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	if got := ids(leftovers(t, j)); got != "sub_l" {
		t.Errorf("leftovers %v, want sub_l", got)
	}
	_ = j.End(true, false, nil, nil)
	again := must(Open(path, here, svc, Options{Now: c.Now, LostRun: lost}))
	if got := ids(leftovers(t, again)); got != "sub_l" {
		t.Errorf("with the same lost run: leftovers %v, want sub_l", got)
	}
	_ = again.Close()
	without := open(t, path, c)
	defer without.Close()
	if got := ids(leftovers(t, without)); got != "" {
		t.Errorf("without the lost run: leftovers %v, want none", got)
	}
	if err := without.RecordLostRun(nil); err == nil {
		t.Error("a lost run recorded by a process opened for none")
	}
}

// Dismissed, a leftover is named no more; ids the journal does not name
// are returned.
func TestDismissedLeftoversAreNamedNoMore(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	killedApply(t, path, c)
	j := open(t, path, c)
	unknown, err := j.Dismiss([]string{"sub_a", "sub_zz"}, "dismissed")
	if err != nil || !slices.Equal(unknown, []string{"sub_zz"}) {
		t.Errorf("unknown %v, %v; want sub_zz", unknown, err)
	}
	_ = j.Close()
	j = open(t, path, c)
	defer j.Close()
	if got := ids(leftovers(t, j)); got != "sub_b" {
		t.Errorf("leftovers %v, want sub_b", got)
	}
}

// A line not written by this package costs only itself: the records
// around it are read, and the ids it shows are named as damaged.
func TestADamagedLineCostsOnlyItself(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	killedApply(t, path, c)
	b := must(os.ReadFile(path))
	lines := strings.SplitAfter(string(b), "\n")
	// The line of sub_a's answer, one byte changed: its checksum fails.
	for i, l := range lines {
		if strings.Contains(l, `"sub_a"`) {
			lines[i] = strings.Replace(l, `"k":"made"`, `"k":"mAde"`, 1)
		}
	}
	spoiled := strings.Join(lines, "") + "garbage appended by something else\n"
	if err := os.WriteFile(path, []byte(spoiled), 0o600); err != nil {
		t.Fatal(err)
	}
	j := open(t, path, c)
	defer j.Close()
	damaged := j.Damaged()
	if len(damaged) != 2 || !slices.Equal(damaged[0].IDs, []string{"sub_a"}) || len(damaged[1].IDs) != 0 {
		t.Errorf("damaged %+v, want sub_a's line and the garbage", damaged)
	}
	ls := leftovers(t, j)
	if got := ids(ls); got != "sub_b,sub_a" {
		t.Fatalf("leftovers %v, want sub_b, then sub_a named from its damaged line", got)
	}
	if ls[1].Origin != OriginDamaged || ls[0].Origin != OriginCreate {
		t.Errorf("origins %v, %v", ls[0].Origin, ls[1].Origin)
	}
	// Compacted (this process had it alone), the damaged id is still
	// named by the next.
	next := open(t, path, c)
	defer next.Close()
	if got := ids(leftovers(t, next)); got != "sub_b,sub_a" || len(next.Damaged()) != 0 {
		t.Errorf("after compaction: leftovers %v, damaged %v", got, next.Damaged())
	}
}

// A line cut short by a crash mid-write was never acknowledged: it is left
// out, and a record another process glued to it is read.
func TestALineCutShortIsLeftOut(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	killedApply(t, path, c)
	f := must(os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0))
	_, _ = f.WriteString(`1234abcd {"k":"made","p":"x","id":"sub_c"`)
	_ = f.Close()
	j := open(t, path, c)
	if len(j.Damaged()) != 0 {
		t.Errorf("damaged %v", j.Damaged())
	}
	if got := ids(leftovers(t, j)); got != "sub_a,sub_b" {
		t.Errorf("leftovers %v, want sub_a, sub_b", got)
	}
	_ = j.Close()

	// Cut short while another process had the journal open: the next
	// record is glued to it.
	holder := open(t, path, c)
	defer holder.Close()
	f = must(os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0))
	_, _ = f.WriteString(`1234abcd {"k":"made","p":"x"`)
	_ = f.Close()
	made(t, holder, byID, "sub_glued")
	reader := openOnceWritten(t, path, c, "sub_glued")
	defer reader.Close()
	if !reader.Known("sub_glued") || len(reader.Damaged()) != 0 {
		t.Errorf("the record glued after a line cut short was not read: known %v, damaged %v", reader.Known("sub_glued"), reader.Damaged())
	}
}

// openOnceWritten opens the journal at path once another process's record
// of id is in the file: a create's answer is written within syncWithin,
// not before Made returns.
func openOnceWritten(t *testing.T, path string, c *clock, id string) *Journal {
	t.Helper()
	deadline := time.Now().Add(10 * DefaultTuning.SyncWithin)
	for {
		j := open(t, path, c)
		if j.Known(id) || time.Now().After(deadline) {
			return j
		}
		_ = j.Close()
		time.Sleep(DefaultTuning.SyncWithin / 10)
	}
}

// A create's answer goes to the file without a write of its own: within
// syncWithin, or with the next record, whichever comes first; a kill
// before then leaves the create open, for a look at the service.
func TestACreatesAnswerIsWrittenWithinSyncWithin(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	j := open(t, path, c)
	defer j.Close()
	made(t, j, byID, "sub_answer")
	start := time.Now()
	reader := openOnceWritten(t, path, c, "sub_answer")
	defer reader.Close()
	if !reader.Known("sub_answer") {
		t.Fatalf("the answer was not in the file %v after Made", time.Since(start))
	}
	if took := time.Since(start); took > 3*DefaultTuning.SyncWithin {
		t.Errorf("the answer took %v to reach the file, want within about %v", took, DefaultTuning.SyncWithin)
	}

	// With the next record, at once.
	made(t, j, byID, "sub_second")
	c2 := j.NewCreate(byID, 30*time.Second)
	if err := c2.Sending(); err != nil {
		t.Fatal(err)
	}
	now := open(t, path, c)
	defer now.Close()
	if !now.Known("sub_second") {
		t.Error("an answer queued before a create's sent record was not written with it")
	}
}

// A journal of another format is set aside, and a new one begins.
func TestAJournalOfAnotherFormatIsSetAside(t *testing.T) {
	path := newPath(t)
	if err := os.WriteFile(path, []byte(string(must(encode(record{Kind: kindHeader, Version: 1})))), 0o600); err != nil {
		t.Fatal(err)
	}
	j := open(t, path, &clock{now: t0})
	defer j.Close()
	aside, _ := filepath.Glob(path + ".refused-*")
	if len(aside) != 1 || !strings.Contains(j.SetAside(), "format version 1") || !strings.Contains(j.SetAside(), aside[0]) {
		t.Errorf("set aside as %v: %q", aside, j.SetAside())
	}
}

// Compacted when it names nothing, a journal keeps its header and what
// each process's state held; when it names something, every record, each
// state cut to what the journal knows.
func TestCompaction(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	ok := open(t, path, c)
	made(t, ok, byID, "sub_ok")
	_ = ok.End(false, true, []string{"sub_ok", "sub_old"}, nil)
	plan(t, path, c, true, "sub_ok", "sub_old") // the next plan found them in state
	// Another run's process compacts.
	j := must(Open(path, here, svc, Options{Now: c.Now, Parent: os.Getppid() + 1}))
	_ = j.Close()
	kinds := func() []string {
		records, _, _ := decodeAll(must(os.ReadFile(path)))
		var out []string
		for _, r := range records {
			out = append(out, r.Kind)
		}
		return out
	}
	if got := kinds(); !slices.Equal(got, []string{kindHeader, kindSize, kindStart}) {
		t.Errorf("a journal naming nothing, compacted: %v, want header, size, and the last process's start", got)
	}
	killedApply(t, path, c)
	plan(t, path, c, true, "sub_a")
	j = open(t, path, c) // compacts again, naming sub_b
	defer j.Close()
	if got := ids(leftovers(t, j)); got != "sub_b" {
		t.Errorf("leftovers after compaction %v, want sub_b", got)
	}
	if got := kinds(); !slices.Contains(got, kindSeen) || !slices.Contains(got, kindSize) {
		t.Errorf("a journal naming sub_b, compacted: %v, want its records, seen and sizes", got)
	}
	if got := j.StateSize("sub_ok"); got != 2 {
		t.Errorf("the state's size after compaction %d, want 2", got)
	}
}

// A run of one provider process: what its state held and what it found
// gone, then its end.
type sizeRun struct{ holds, gone []string }

// Rows of runs, one process after the other, then what the next
// process's reads expect: each configuration's own subscriptions.
func TestStateSizeRemembersEachConfigurationsOwn(t *testing.T) {
	a, b := subscriptionIDs("a", 300), subscriptionIDs("b", 5)
	for _, tc := range []struct {
		name  string
		runs  []sizeRun
		reads []string // of the next process
		want  int
	}{
		{name: "an apply from empty state", runs: []sizeRun{{holds: a}}, reads: a[:1], want: 300},
		{name: "its refresh, then one that finds 10 gone", runs: []sizeRun{{holds: a}, {holds: a}, {holds: a[10:], gone: a[:10]}}, reads: a[100:101], want: 290},
		{name: "a refresh, then an apply that adds 5: the first read may see either", runs: []sizeRun{{holds: a[:295]}, {holds: a[:295]}, {holds: a[295:]}}, reads: []string{a[299], a[0]}, want: 300},
		{name: "a targeted refresh of 10 keeps the rest", runs: []sizeRun{{holds: a}, {holds: a[:10]}}, reads: []string{a[0], a[200]}, want: 300},
		{name: "another configuration's subscriptions are not this one's", runs: []sizeRun{{holds: a}, {holds: b}}, reads: b, want: 5},
		{name: "nor the other way round", runs: []sizeRun{{holds: a}, {holds: b}}, reads: a[:3], want: 300},
		{name: "a replacement", runs: []sizeRun{{holds: a[:299]}, {holds: a[299:], gone: a[:1]}}, reads: a[1:2], want: 298},
		{name: "nothing remembered", reads: a[:1], want: 0},
		{name: "a process that saw nothing changes nothing", runs: []sizeRun{{holds: a}, {}}, reads: a[:1], want: 300},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := newPath(t)
			c := &clock{now: t0}
			for _, run := range tc.runs {
				j := open(t, path, c)
				_ = j.End(false, false, run.holds, run.gone)
			}
			j := open(t, path, c)
			defer j.Close()
			got := 0
			for _, id := range tc.reads {
				got = j.StateSize(id)
			}
			if got != tc.want {
				t.Errorf("expected %d subscriptions, want %d", got, tc.want)
			}
		})
	}
}

// Configurations long gone are dropped beyond the bound.
func TestStateSizeKeepsAtMostItsBound(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	for i := range maxSizeEntries + 5 {
		_ = open(t, path, c).End(false, false, subscriptionIDs(fmt.Sprintf("c%d_", i), 1), nil)
	}
	j := open(t, path, c)
	defer j.Close()
	if n := len(j.view.sizes); n != maxSizeEntries {
		t.Errorf("%d entries kept, want %d", n, maxSizeEntries)
	}
	var nilJournal *Journal
	if nilJournal.StateSize("sub_1") != 0 {
		t.Error("no journal remembers a size")
	}
}

// subscriptionIDs are n ids starting with prefix.
func subscriptionIDs(prefix string, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("sub_%s%012d", prefix, i)
	}
	return ids
}

// Records written at once by many creates reach the disk in fewer writes
// than records, and every one of them is there.
func TestConcurrentRecordsAreAllWritten(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	j := open(t, path, c)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() { made(t, j, byID, fmt.Sprintf("sub_%02d", i)) })
	}
	wg.Wait()
	_ = j.Close()
	j = open(t, path, c)
	defer j.Close()
	if n := len(leftovers(t, j)); n != 50 {
		t.Errorf("%d leftovers after 50 creates of a killed process", n)
	}
}

// A journal whose writes fail stops every record after the first
// failure: a create waiting on one is never sent.
func TestAWriteFailureStopsEveryRecordAfter(t *testing.T) {
	path := newPath(t)
	j := open(t, path, &clock{now: t0})
	_ = j.file.Close() // as a full disk or a revoked mount fails a write
	cr := j.NewCreate(byID, time.Minute)
	if err := cr.Sending(); err == nil {
		t.Fatal("a create's sending was recorded in a journal that cannot be written")
	}
	if err := j.NewCreate(byID, time.Minute).Sending(); err == nil {
		t.Error("a later create's sending was recorded after a failure")
	}
}

func TestLocate(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TF_DATA_DIR", "")
	t.Setenv("TF_WORKSPACE", "")
	path, home := Locate(dir)
	if want := filepath.Join(dir, ".terraform", "mobileplan", "default.journal"); path != want || home != (Home{Dir: dir, Workspace: "default"}) {
		t.Errorf("Locate: %s %+v, want %s", path, home, want)
	}
	_ = os.MkdirAll(filepath.Join(dir, ".terraform"), 0o700)
	_ = os.WriteFile(filepath.Join(dir, ".terraform", "environment"), []byte("staging"), 0o600)
	if path, home = Locate(dir); filepath.Base(path) != "staging.journal" || home.Workspace != "staging" {
		t.Errorf("with workspace staging selected: %s %+v", path, home)
	}
	t.Setenv("TF_WORKSPACE", "prod/eu")
	t.Setenv("TF_DATA_DIR", "/data")
	if path, home = Locate(dir); path != "/data/mobileplan/prod%2Feu.journal" || home.Workspace != "prod/eu" {
		t.Errorf("with TF_WORKSPACE and TF_DATA_DIR: %s %+v", path, home)
	}
}

// The state a home names: a remote backend by the type and hash init
// recorded, the same in every checkout; local state by its lineage.
func TestLocateNamesTheState(t *testing.T) {
	t.Setenv("TF_DATA_DIR", "")
	t.Setenv("TF_WORKSPACE", "")
	remote := t.TempDir()
	_ = os.MkdirAll(filepath.Join(remote, ".terraform"), 0o700)
	_ = os.WriteFile(filepath.Join(remote, ".terraform", "terraform.tfstate"), []byte(`{"version":3,"backend":{"type":"http","config":{"address":"https://state.example.com"},"hash":1234567}}`), 0o600)
	if _, home := Locate(remote); home.Backend != "http:1234567" {
		t.Errorf("remote backend: %q", home.Backend)
	}
	local := t.TempDir()
	if _, home := Locate(local); home.Backend != "" {
		t.Errorf("no state yet: %q", home.Backend)
	}
	_ = os.WriteFile(filepath.Join(local, "terraform.tfstate"), []byte(`{"version":4,"lineage":"6c1f"}`), 0o600)
	if _, home := Locate(local); home.Backend != "local:6c1f" {
		t.Errorf("local state: %q", home.Backend)
	}
}

// A journal restored into another machine's job names pids that may run
// there as other programs: a process is live only as the same process
// (its stamp), and a process alone with the journal counts none live, so
// compaction keeps what such a process was given.
func TestAPidReusedIsNotTheProcessItNamed(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	_ = open(t, path, c).Close()
	// A killed run's process whose pid is the test's parent's (which runs
	// now, as another program would), stamped in another boot.
	lines := []string{}
	for _, r := range []record{
		{Kind: kindStart, Process: "elsewhere", At: t0.UnixMilli(), PID: os.Getppid(), PPID: 1, Stamp: "another-boot/1", Service: svc, Dir: here.Dir, Workspace: here.Workspace},
		{Kind: kindSent, Process: "elsewhere", At: t0.UnixMilli(), Create: 1, Request: byID},
		{Kind: kindMade, Process: "elsewhere", At: t0.UnixMilli(), Create: 1, Request: byID, ID: "sub_restored"},
	} {
		lines = append(lines, string(must(encode(r))))
	}
	f := must(os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0))
	_, _ = f.WriteString(strings.Join(lines, ""))
	_ = f.Close()
	j := open(t, path, c) // alone: compacts, and keeps sub_restored
	defer j.Close()
	if got := ids(leftovers(t, j)); !strings.Contains(got, "sub_restored") {
		t.Errorf("leftovers %v: the restored journal's subscription is gone", got)
	}
	if !j.Known("sub_restored") {
		t.Error("compaction dropped what a process of a reused pid was given")
	}
}

// A look settles only the creates of its service and account: another
// account's are left for a process of that account, and what a look finds
// belongs to the creates' run (its service, account, home and start), not
// the looker's.
func TestALookBelongsToTheCreatesRun(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	killed := must(Open(path, here, svc, Options{Now: c.Now, Token: "token-a"}))
	_ = killed.NewCreate(byID, time.Minute).Sending()
	_ = killed.Close()
	c.add(time.Hour)
	looker := must(Open(path, here, svc, Options{Now: c.Now, Token: "token-b"}))
	defer looker.Close()
	creates := looker.OpenCreates()
	if len(creates) != 1 || creates[0].Account == looker.Account() || creates[0].Account == "" {
		t.Fatalf("open creates %+v: want one, of another account than the looker's %q", creates, looker.Account())
	}
	if err := looker.RecordLook(creates, Looked{Found: []Found{{ID: "sub_f", Request: byID, Created: t0}}}); err != nil {
		t.Fatal(err)
	}
	ls := leftovers(t, looker)
	if len(ls) != 1 || ls[0].Account != creates[0].Account || !ls[0].Run.Equal(t0) {
		t.Errorf("the found leftover %+v, want the killed run's account and start %v", ls, t0)
	}
}

// A lost run named to the millisecond is the same lost run to the second,
// and a journal compacted by a process of no lost run lets another's finds
// go.
func TestALostRunsFindsAreKeptOnlyForItsProcesses(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	lost := t0.Add(-time.Hour + 123*time.Millisecond)
	j := must(Open(path, here, svc, Options{Now: c.Now, LostRun: lost}))
	_ = j.RecordLostRun([]Found{{ID: "sub_l", Request: byID, Created: lost}})
	_ = j.End(true, false, nil, nil)
	again := must(Open(path, here, svc, Options{Now: c.Now, LostRun: lost.Truncate(time.Second)}))
	if got := ids(leftovers(t, again)); got != "sub_l" {
		t.Errorf("the same lost run to the second: leftovers %v, want sub_l", got)
	}
	_ = again.Close()
	without := open(t, path, c) // alone, of no lost run: compacts
	_ = without.Close()
	if b := must(os.ReadFile(path)); strings.Contains(string(b), "sub_l") {
		t.Errorf("a lost run's finds outlived its setting:\n%s", b)
	}
}

// The ids a damaged line shows stay named after compaction, whether or
// not anything else is.
func TestADamagedIDOutlivesCompaction(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	_ = open(t, path, c).Close()
	f := must(os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0))
	_, _ = f.WriteString(`0badc0de {"k":"made","id":"sub_d"}` + "\n")
	_ = f.Close()
	for range 3 {
		j := open(t, path, c)
		if got := ids(leftovers(t, j)); got != "sub_d" {
			t.Errorf("leftovers %v, want sub_d from its damaged line", got)
		}
		_ = j.End(true, false, nil, nil)
	}
}

// The plan of `terraform apply` ends before its apply's process starts;
// the providers of one walk end together, after all started.
func TestAfterSibling(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	plan := open(t, path, c)
	walk := open(t, path, c) // an alias of the same walk, started before the plan's process ended
	_ = plan.End(true, false, nil, nil)
	apply := open(t, path, c)
	defer walk.Close()
	defer apply.Close()
	if walk.AfterSibling() {
		t.Error("a process started before its sibling ended counts as an apply")
	}
	if !apply.AfterSibling() {
		t.Error("the process started after the plan's ended is not the apply's")
	}
}

// A plan that names nothing leaves a journal its apply's process compacts,
// alone with it: the plan's process, of the same run, stays, and the apply
// knows it is one; a process of the next run finds nothing of it.
func TestAfterSiblingOutlivesCompaction(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	plan(t, path, c, true)
	apply := open(t, path, c) // alone with the journal: compacts
	if !apply.AfterSibling() {
		t.Error("the apply's process, after a compaction, does not know it follows its plan's")
	}
	_ = apply.End(false, false, nil, nil)
	next := must(Open(path, here, svc, Options{Now: c.Now, Parent: os.Getppid() + 1}))
	defer next.Close()
	if next.AfterSibling() {
		t.Error("a process of the next run counts the last run's as its sibling")
	}
	records, _, _ := decodeAll(must(os.ReadFile(path)))
	if len(records) != 2 {
		t.Errorf("the next run compacted the journal to %d records, want its header and its own start", len(records))
	}
}

// The answers a process recorded place the clock that dates createdAt
// for its creates left open; a look that finds nothing for one names it,
// by UnfoundID, until it is dismissed.
func TestAnOpenCreateALookFoundNothingForIsNamedUntilDismissed(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	killed := open(t, path, c)
	answer := killed.NewCreate(byID, time.Minute)
	if err := answer.Sending(); err != nil {
		t.Fatal(err)
	}
	c.add(1500 * time.Millisecond)
	// The service's createdAt a day behind this machine's clock.
	if err := answer.Made("sub_a", t0.Add(-24*time.Hour+time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := killed.NewCreate(byID, time.Minute).Sending(); err != nil {
		t.Fatal(err)
	}
	_ = killed.Close()

	j := open(t, path, c)
	creates := j.OpenCreates()
	want := ClockSpan{From: -24*time.Hour - 500*time.Millisecond, To: -24*time.Hour + 2*time.Second, Known: true}
	if len(creates) != 1 || creates[0].Answers != want {
		t.Fatalf("open creates %+v, want one whose answers span %+v", creates, want)
	}
	looked := DefaultTuning.Look(creates, nil, 24*time.Hour, j.Known)
	if err := j.RecordLook(creates, looked); err != nil {
		t.Fatal(err)
	}
	_ = j.End(true, false, nil, nil)

	id := UnfoundID(creates[0].Process, creates[0].Create)
	for range 2 {
		j = open(t, path, c)
		var u *Leftover
		for _, l := range leftovers(t, j) {
			if l.ID == id {
				u = &l
			}
		}
		if u == nil || u.Origin != OriginUnfound || u.Request != byID || !u.Given.Equal(creates[0].Sent) || u.DateOffset != 24*time.Hour || u.Answers != want ||
			u.Window[0].After(creates[0].Sent.Add(-24*time.Hour)) {
			t.Errorf("the create the look found nothing for: %+v; want it named as %s, with its request, when it was sent, and both clocks", u, id)
		}
		if len(j.OpenCreates()) != 0 {
			t.Error("the look did not settle the create")
		}
		_ = j.End(true, false, nil, nil)
	}
	j = open(t, path, c)
	if unknown, err := j.Dismiss([]string{id}, "dismissed"); err != nil || len(unknown) > 0 {
		t.Fatalf("dismiss %s: %v, %v", id, unknown, err)
	}
	if got := ids(leftovers(t, j)); strings.Contains(got, "create:") {
		t.Errorf("dismissed, it is still named: %s", got)
	}
	_ = j.Close()
}

// Two services may issue the same id: the journal keeps a subscription
// of each apart, and a state of one service holding the id holds only
// that service's.
func TestTheSameIDAtTwoServicesIsTwoSubscriptions(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	staging := "https://staging.example.com"
	for _, service := range []string{svc, staging} {
		j := must(Open(path, here, service, Options{Now: c.Now}))
		made(t, j, byID, "sub_0001")
		_ = j.Close() // killed
	}
	at := func(ls []Leftover) map[string]bool {
		out := map[string]bool{}
		for _, l := range ls {
			out[l.Service+" "+l.ID] = true
		}
		return out
	}
	j := must(Open(path, here, svc, Options{Now: c.Now}))
	if got := at(leftovers(t, j)); !got[svc+" sub_0001"] || !got[staging+" sub_0001"] || len(got) != 2 {
		t.Errorf("leftovers %v, want sub_0001 of each service", got)
	}
	if !j.Known("sub_0001") || j.Known("sub_0002") {
		t.Error("Known does not know this service's sub_0001")
	}
	// A plan of the production service whose state holds sub_0001.
	_ = j.End(true, false, []string{"sub_0001"}, nil)
	j = must(Open(path, here, staging, Options{Now: c.Now}))
	defer j.Close()
	if got := at(leftovers(t, j)); !got[staging+" sub_0001"] || len(got) != 1 {
		t.Errorf("after a production state held sub_0001: leftovers %v, want staging's sub_0001 alone", got)
	}
	if n := j.StateSize("sub_0001"); n != 0 {
		t.Errorf("the staging configuration's state size counts production's entry: %d", n)
	}
}

// Beside are the services and accounts of the other processes the same
// Terraform started, and of no other run's.
func TestBesideAreThisRunsOtherConfigurations(t *testing.T) {
	path := newPath(t)
	c := &clock{now: t0}
	staging := "https://staging.example.com"
	earlier := must(Open(path, here, "https://gone.example.com", Options{Now: c.Now, pid: 90, Parent: 9}))
	_ = earlier.End(true, false, nil, nil)
	prod := must(Open(path, here, svc, Options{Now: c.Now, Token: "p", pid: 101, Parent: 10}))
	defer prod.Close()
	stage := must(Open(path, here, staging, Options{Now: c.Now, Token: "s", pid: 102, Parent: 10}))
	defer stage.Close()
	got := prod.Beside()
	if len(got) != 1 || got[0] != (Served{staging, stage.Account()}) {
		t.Errorf("beside production: %+v, want staging alone", got)
	}
}

// A damaged line's id that the service does not have is dropped once
// every service the journal names says so, and the journal compacts on:
// it does not grow from one command to the next.
func TestADamagedIDGoneAtEveryServiceIsDroppedAndTheJournalCompacts(t *testing.T) {
	skipWithoutFlock(t)
	path := newPath(t)
	c := &clock{now: t0}
	staging := "https://staging.example.com"
	for _, service := range []string{svc, staging} { // a configuration of each, whose state holds nothing
		_ = must(Open(path, here, service, Options{Now: c.Now})).End(true, false, nil, nil)
	}
	f := must(os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0))
	_, _ = f.WriteString(`0badc0de {"k":"made","id":"sub_d"}` + "\n")
	_ = f.Close()
	damagedNamed := func(service string) bool {
		j := must(Open(path, here, service, Options{Now: c.Now}))
		defer func() { _ = j.End(true, false, nil, nil) }()
		return strings.Contains(ids(leftovers(t, j)), "sub_d")
	}
	var sizes []int64
	for range 3 {
		if !damagedNamed(svc) {
			t.Fatal("the damaged line's id is not named")
		}
		sizes = append(sizes, must(os.Stat(path)).Size())
	}
	if sizes[2] > sizes[1] {
		t.Errorf("while a damaged line's id is named, the journal grows from one command to the next: %v bytes", sizes)
	}
	j := must(Open(path, here, svc, Options{Now: c.Now}))
	_, _ = j.Dismiss([]string{"sub_d"}, WhyGone)
	_ = j.End(true, false, nil, nil)
	if !damagedNamed(staging) {
		t.Error("gone at one of two services, the damaged line's id is no longer named: it may be the other's")
	}
	j = must(Open(path, here, staging, Options{Now: c.Now}))
	_, _ = j.Dismiss([]string{"sub_d"}, WhyGone)
	_ = j.End(true, false, nil, nil)
	if damagedNamed(svc) {
		t.Error("gone at every service, the damaged line's id is still named")
	}
	sizes = nil
	for range 3 {
		damagedNamed(svc)
		sizes = append(sizes, must(os.Stat(path)).Size())
	}
	if sizes[2] > sizes[0] {
		t.Errorf("the journal grows from one command to the next: %v bytes", sizes)
	}
}
