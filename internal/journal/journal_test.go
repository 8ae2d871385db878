package journal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	here  = Identity{Dir: "/work/config", Workspace: "default"}
	t0    = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	svc   = "https://api.example.com"
	byID  = "plan_id plan_001"
	other = "plan_id plan_002"
)

// clock is a time the tests move.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

func open(t *testing.T, path string, c *clock) *Journal {
	t.Helper()
	j, err := Open(path, here, svc, time.Time{}, c.Now)
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

// skipWithoutFlock skips where the journal has no file locks (Windows),
// where it is never emptied and the provider never takes a leftover.
func skipWithoutFlock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock: the journal is never emptied, and nothing is taken")
	}
}

func claim(t *testing.T, j *Journal, request string) (Leftover, bool) {
	t.Helper()
	l, ok, err := j.Claim(request, func(Leftover) (Verdict, error) { return Take, nil })
	if err != nil {
		t.Fatal(err)
	}
	return l, ok
}

func ids(ls []Leftover) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.ID)
	}
	return out
}

// killedApply is an apply that created sub_a and sub_b and was killed: no
// end record.
func killedApply(t *testing.T, path string, c *clock) {
	t.Helper()
	j := open(t, path, c)
	for _, id := range []string{"sub_a", "sub_b"} {
		n := must(j.Sending(byID))
		if err := j.Created(n, byID, id); err != nil {
			t.Fatal(err)
		}
	}
	n := must(j.Sending(byID)) // in flight when the process died too
	_ = n
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

// plan is a plan that saw seen in its state, ended the usual way.
func plan(t *testing.T, path string, c *clock, whole bool, seen ...string) {
	t.Helper()
	j := open(t, path, c)
	if err := j.Begin(); err != nil {
		t.Fatal(err)
	}
	for _, id := range seen {
		if _, err := j.Seen(id); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.End(whole, false); err != nil {
		t.Fatal(err)
	}
}

func TestLeftoversAreWhatAKilledProcessWasGivenAndNoStateShowed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "default.journal")
	c := &clock{t0}
	killedApply(t, path, c)

	j := open(t, path, c)
	if got := ids(j.Leftovers()); strings.Join(got, ",") != "sub_a,sub_b" {
		t.Errorf("leftovers %v, want sub_a, sub_b", got)
	}
	if un := j.Unanswered(); len(un) != 1 || un[0].Request != byID || !un[0].Sent.Equal(t0) {
		t.Errorf("unanswered %+v, want the one create in flight", un)
	}
	if _, ok := claim(t, j, byID); ok {
		t.Error("a leftover was claimed with no plan vouching for it")
	}
	_ = j.Close()

	plan(t, path, c, true, "sub_a")
	j = open(t, path, c)
	defer j.Close()
	if got := ids(j.Leftovers()); strings.Join(got, ",") != "sub_b" {
		t.Errorf("after a plan that saw sub_a: leftovers %v, want sub_b", got)
	}
	if _, ok := claim(t, j, other); ok {
		t.Error("a leftover of another request was claimed")
	}
	l, ok := claim(t, j, byID)
	if !ok || l.ID != "sub_b" {
		t.Fatalf("claimed %+v %v, want sub_b", l, ok)
	}
	if _, ok := claim(t, j, byID); ok {
		t.Error("a leftover was claimed twice")
	}
}

// Only a plan that saw the whole state, applied nothing, ended the usual
// way and began after the leftover was given out vouches for it.
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
			path := filepath.Join(t.TempDir(), "default.journal")
			clk := &clock{t0}
			run := func() {
				j := open(t, path, clk)
				if err := j.Begin(); err != nil {
					t.Fatal(err)
				}
				if c.ended {
					_ = j.End(c.whole, c.applied)
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
			if _, ok := claim(t, j, byID); ok != c.want {
				t.Errorf("claimed %v, want %v", ok, c.want)
			}
		})
	}
}

// A leftover of a run older than StaleAfter is never taken, and leaves
// the journal at the next emptying: by then it was likely dealt with by
// hand, and one taken by mistake is billed to the wrong configuration.
func TestAStaleLeftoverIsNeverClaimed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "default.journal")
	c := &clock{t0}
	killedApply(t, path, c)
	c.now = t0.Add(StaleAfter - time.Minute)
	plan(t, path, c, true)
	j := open(t, path, c)
	defer j.Close()
	c.now = t0.Add(StaleAfter)
	if _, ok := claim(t, j, byID); ok {
		t.Errorf("a leftover %s old was claimed", StaleAfter)
	}
	c.now = t0.Add(StaleAfter - time.Second)
	if _, ok := claim(t, j, byID); !ok {
		t.Errorf("a leftover just under %s old was not claimed", StaleAfter)
	}
	_ = j.End(false, true) // the apply that took it ends as usual

	if runtime.GOOS == "windows" {
		return // never emptied there
	}
	c.now = t0.Add(StaleAfter + time.Second)
	later := open(t, path, c)
	defer later.Close()
	if len(later.Leftovers()) != 0 || len(later.Unanswered()) != 0 {
		t.Errorf("past %s: leftovers %v, unanswered %v; want the journal emptied of them", StaleAfter, later.Leftovers(), later.Unanswered())
	}
}

func TestAnotherServicesLeftoverIsNeverClaimed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "default.journal")
	c := &clock{t0}
	killedApply(t, path, c)
	plan(t, path, c, true)
	j, err := Open(path, here, "https://elsewhere.example.com", time.Time{}, c.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, ok := claim(t, j, byID); ok {
		t.Error("a leftover created at another base URL was claimed")
	}
}

// A process that ended the usual way handed everything it created to a
// state Terraform saved: nothing of it is left over, and the journal,
// naming nothing, starts afresh.
func TestAnEndedProcessLeavesNothingAndTheJournalEmpties(t *testing.T) {
	skipWithoutFlock(t)
	path := filepath.Join(t.TempDir(), "default.journal")
	c := &clock{t0}
	j := open(t, path, c)
	n := must(j.Sending(byID))
	_ = j.Created(n, byID, "sub_a")
	n = must(j.Sending(byID))
	_ = j.Unsent(n) // refused: made nothing
	if err := j.End(false, true); err != nil {
		t.Fatal(err)
	}
	full := must(os.ReadFile(path))

	j = open(t, path, c)
	defer j.Close()
	if len(j.Leftovers()) != 0 || len(j.Unanswered()) != 0 {
		t.Errorf("leftovers %v, unanswered %v, want none", j.Leftovers(), j.Unanswered())
	}
	if emptied := must(os.ReadFile(path)); len(emptied) >= len(full) || bytes.Count(emptied, []byte("\n")) != 1 {
		t.Errorf("the journal holds %q, want its header alone", emptied)
	}
}

// While another process has the journal open, it is not emptied: that
// process's records would be lost.
func TestTheJournalIsNotEmptiedUnderAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "default.journal")
	c := &clock{t0}
	first := open(t, path, c)
	n := must(first.Sending(byID))
	_ = first.Created(n, byID, "sub_a")
	_ = first.End(false, true)
	holder := open(t, path, c) // empties it, and keeps it open
	defer holder.Close()
	n = must(holder.Sending(byID))
	_ = holder.Created(n, byID, "sub_b")

	second := open(t, path, c)
	defer second.Close()
	if got := ids(second.Leftovers()); len(got) != 1 || got[0] != "sub_b" {
		t.Errorf("leftovers %v, want sub_b of the process that has it open", got)
	}
}

func TestARefusedJournalIsSetAsideAndNothingInItTaken(t *testing.T) {
	good := func(t *testing.T) (string, *clock) {
		path := filepath.Join(t.TempDir(), "default.journal")
		c := &clock{t0}
		killedApply(t, path, c)
		plan(t, path, c, true)
		return path, c
	}
	for name, c := range map[string]struct {
		spoil func(t *testing.T, path string)
		id    Identity
		want  string
	}{
		"damaged": {spoil: func(t *testing.T, path string) {
			b := must(os.ReadFile(path))
			_ = os.WriteFile(path, bytes.Replace(b, []byte("sub_a"), []byte("sub_x"), 1), 0o600)
		}, id: here, want: "it is damaged (line 4: a line does not match its checksum)"},
		"another directory's": {id: Identity{Dir: "/elsewhere", Workspace: "default"},
			want: `it belongs to workspace "default" of /work/config, not to workspace "default" of /elsewhere`},
		"another workspace's": {id: Identity{Dir: here.Dir, Workspace: "staging"},
			want: `it belongs to workspace "default" of /work/config, not to workspace "staging" of /work/config`},
		"no header": {spoil: func(t *testing.T, path string) {
			b := must(os.ReadFile(path))
			_, rest, _ := bytes.Cut(b, []byte("\n"))
			_ = os.WriteFile(path, rest, 0o600)
		}, id: here, want: "it does not start with a journal's header"},
	} {
		t.Run(name, func(t *testing.T) {
			path, clk := good(t)
			if c.spoil != nil {
				c.spoil(t, path)
			}
			j, err := Open(path, c.id, svc, time.Time{}, clk.Now)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			if !strings.Contains(j.Refused(), c.want) {
				t.Errorf("refused: %q, want it to say %q", j.Refused(), c.want)
			}
			if len(j.Leftovers()) != 0 {
				t.Errorf("leftovers %v of a refused journal", j.Leftovers())
			}
			aside, _ := filepath.Glob(path + ".refused-*")
			if len(aside) != 1 || !strings.Contains(j.Refused(), aside[0]) {
				t.Errorf("set aside as %v; the message: %s", aside, j.Refused())
			}
		})
	}
}

// A line cut short by a crash mid-write was never acknowledged: it is left
// out, and the rest is trusted.
func TestALastLineCutShortIsLeftOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "default.journal")
	c := &clock{t0}
	killedApply(t, path, c)
	f := must(os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0))
	_, _ = f.WriteString(`1234abcd {"k":"created","p":"x","id":"sub_c"`)
	_ = f.Close()
	j := open(t, path, c)
	defer j.Close()
	if j.Refused() != "" {
		t.Fatalf("refused: %s", j.Refused())
	}
	if got := ids(j.Leftovers()); strings.Join(got, ",") != "sub_a,sub_b" {
		t.Errorf("leftovers %v, want sub_a, sub_b", got)
	}
}

// Records written at once by many creates reach the disk in fewer writes
// than records, and every one of them is there.
func TestConcurrentRecordsAreAllWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "default.journal")
	c := &clock{t0}
	j := open(t, path, c)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			n := must(j.Sending(byID))
			_ = j.Created(n, byID, "sub_"+string(rune('A'+i%26))+string(rune('a'+i/26)))
		})
	}
	wg.Wait()
	_ = j.Close()
	j = open(t, path, c)
	defer j.Close()
	if n := len(j.Leftovers()); n != 50 {
		t.Errorf("%d leftovers after 50 creates of a killed process", n)
	}
}

func TestLocate(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TF_DATA_DIR", "")
	t.Setenv("TF_WORKSPACE", "")
	path, id := Locate(dir)
	if want := filepath.Join(dir, ".terraform", "mobileplan", "default.journal"); path != want || id != (Identity{dir, "default"}) {
		t.Errorf("Locate: %s %+v, want %s", path, id, want)
	}
	_ = os.MkdirAll(filepath.Join(dir, ".terraform"), 0o700)
	_ = os.WriteFile(filepath.Join(dir, ".terraform", "environment"), []byte("staging"), 0o600)
	if path, id = Locate(dir); filepath.Base(path) != "staging.journal" || id.Workspace != "staging" {
		t.Errorf("with workspace staging selected: %s %+v", path, id)
	}
	t.Setenv("TF_WORKSPACE", "prod/eu")
	t.Setenv("TF_DATA_DIR", "/data")
	if path, id = Locate(dir); path != "/data/mobileplan/prod%2Feu.journal" || id.Workspace != "prod/eu" {
		t.Errorf("with TF_WORKSPACE and TF_DATA_DIR: %s %+v", path, id)
	}
}

// The processes of one run (one per provider configuration) take from
// one journal at once: each leftover goes to one create, whatever the
// process.
func TestProcessesNeverClaimTheSameLeftover(t *testing.T) {
	skipWithoutFlock(t)
	path := filepath.Join(t.TempDir(), "default.journal")
	c := &clock{t0}
	killer := open(t, path, c)
	for i := range 20 {
		n := must(killer.Sending(byID))
		_ = killer.Created(n, byID, fmt.Sprintf("sub_%02d", i))
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
				l, ok := claim(t, j, byID)
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

// A leftover the service shows unfit is passed over for the next; a check
// that gets no answer ends the claim and leaves the leftover for later.
func TestClaimChecksAtTheService(t *testing.T) {
	path := filepath.Join(t.TempDir(), "default.journal")
	c := &clock{t0}
	killedApply(t, path, c)
	plan(t, path, c, true)
	j := open(t, path, c)
	defer j.Close()

	_, ok, err := j.Claim(byID, func(Leftover) (Verdict, error) { return Unfit, errors.New("no answer") })
	if ok || err == nil {
		t.Fatalf("a check without an answer claimed %v, err %v", ok, err)
	}
	if got := ids(j.Leftovers()); strings.Join(got, ",") != "sub_a,sub_b" {
		t.Errorf("after a check without an answer: leftovers %v, want both still", got)
	}
	checked := []string{}
	l, ok, err := j.Claim(byID, func(l Leftover) (Verdict, error) {
		checked = append(checked, l.ID)
		if l.ID == "sub_a" {
			return Unfit, nil
		}
		return Take, nil
	})
	if err != nil || !ok || l.ID != "sub_b" || strings.Join(checked, ",") != "sub_a,sub_b" {
		t.Errorf("claimed %s %v %v after checking %v; want sub_b after sub_a was found unfit", l.ID, ok, err, checked)
	}
	if len(j.Leftovers()) != 0 {
		t.Errorf("leftovers %v: the unfit one is offered again", j.Leftovers())
	}
}

// A process's own creates in flight are not "sent with no answer": their
// answers may yet come.
func TestOwnCreatesInFlightAreNotUnanswered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "default.journal")
	j := open(t, path, &clock{t0})
	defer j.Close()
	_ = must(j.Sending(byID))
	if un := j.Unanswered(); len(un) != 0 {
		t.Errorf("unanswered %v: this process's own create in flight", un)
	}
}
