package journal

import (
	"fmt"
	"testing"
	"time"
)

// sentAt is the open create of the look rows: sent at t0, its request
// given a minute, by a process killed with it.
var sentAt = OpenCreate{Process: "p1", Create: 1, Request: byID, Sent: t0, Within: time.Minute}

// listedAt is an unused subscription of the create's plan made at created
// by the service's clock.
func listedAt(id string, created time.Time, change func(*Listed)) Listed {
	l := Listed{ID: id, Requests: []string{byID, "plan { … }"}, Created: created, Unused: true}
	if change != nil {
		change(&l)
	}
	return l
}

func lookRow(rule string, creates []OpenCreate, listed Listed, offset time.Duration, want bool) row {
	return row{rule, func(tune Tuning) string {
		found := tune.Look(creates, []Listed{listed}, offset, func(id string) bool { return id == "sub_known" })
		if got := len(found) == 1; got != want {
			return fmt.Sprintf("found %v, want %v", found, want)
		}
		return ""
	}}
}

func lostRunRow(rule string, start, end, now time.Time, offset time.Duration, created time.Time, want bool) row {
	return row{rule, func(tune Tuning) string {
		from, to := tune.LostRunWindow(start, end, now, offset)
		found := InWindow([]Listed{listedAt("sub_l", created, nil)}, from, to, func(string) bool { return false })
		if got := len(found) == 1; got != want {
			return fmt.Sprintf("window %v to %v found %v, want %v", from, to, found, want)
		}
		return ""
	}}
}

func lookRows() []row {
	unlimited := OpenCreate{Process: "p1", Create: 2, Request: byID, Sent: t0} // a record naming no time limit
	s := time.Second
	return []row{
		lookRow("made as it was sent: found", []OpenCreate{sentAt}, listedAt("sub_c", t0, nil), 0, true),
		lookRow("made two seconds before it was sent, by whole-second clocks: found", []OpenCreate{sentAt}, listedAt("sub_c", t0.Add(-2*s), nil), 0, true),
		lookRow("made three seconds before it was sent: not found", []OpenCreate{sentAt}, listedAt("sub_c", t0.Add(-3*s), nil), 0, false),
		lookRow("made as its time limit ran out, and two seconds on: found", []OpenCreate{sentAt}, listedAt("sub_c", t0.Add(time.Minute+2*s), nil), 0, true),
		lookRow("made three seconds after its time limit: not found", []OpenCreate{sentAt}, listedAt("sub_c", t0.Add(time.Minute+3*s), nil), 0, false),
		lookRow("a record with no time limit: made 30 s after, found", []OpenCreate{unlimited}, listedAt("sub_c", t0.Add(30*s), nil), 0, true),
		lookRow("a record with no time limit: made 33 s after, not found", []OpenCreate{unlimited}, listedAt("sub_c", t0.Add(33*s), nil), 0, false),
		lookRow("the service's clock an hour ahead: the window moves with it", []OpenCreate{sentAt}, listedAt("sub_c", t0.Add(time.Hour+10*s), nil), time.Hour, true),
		lookRow("the service's clock an hour ahead: one made at this machine's time is not the create's", []OpenCreate{sentAt}, listedAt("sub_c", t0.Add(10*s), nil), time.Hour, false),
		lookRow("used: not found", []OpenCreate{sentAt}, listedAt("sub_c", t0, func(l *Listed) { l.Unused = false }), 0, false),
		lookRow("of another plan: not found", []OpenCreate{sentAt}, listedAt("sub_c", t0, func(l *Listed) { l.Requests = []string{other} }), 0, false),
		lookRow("of its plan in the inline form: found", []OpenCreate{{Process: "p1", Create: 3, Request: "plan { … }", Sent: t0, Within: time.Minute}}, listedAt("sub_c", t0, nil), 0, true),
		lookRow("known to the journal: not found again", []OpenCreate{sentAt}, listedAt("sub_known", t0, nil), 0, false),
		lostRunRow("a lost run's window, two seconds before its start: found", t0, t0.Add(time.Hour), t0.Add(2*time.Hour), 0, t0.Add(-2*s), true),
		lostRunRow("a lost run's window, three seconds before its start: not found", t0, t0.Add(time.Hour), t0.Add(2*time.Hour), 0, t0.Add(-3*s), false),
		lostRunRow("a lost run's window, three seconds after its end: not found", t0, t0.Add(time.Hour), t0.Add(2*time.Hour), 0, t0.Add(time.Hour+3*s), false),
		lostRunRow("a lost run with no end: until now", t0, time.Time{}, t0.Add(2*time.Hour), 0, t0.Add(2*time.Hour), true),
		lostRunRow("a lost run's window by a service's clock a minute behind", t0, t0.Add(time.Hour), t0.Add(2*time.Hour), -time.Minute, t0.Add(-time.Minute), true),
	}
}

func TestLook(t *testing.T) {
	t.Parallel()
	for _, r := range lookRows() {
		if problem := r.check(DefaultTuning); problem != "" {
			t.Errorf("%s: %s", r.rule, problem)
		}
	}
}

// What a look finds keeps the request it was found for, and the other
// one it serves; the list may stop at the earliest time any create's
// window opens.
func TestLookFindsEachOnceWithBothRequests(t *testing.T) {
	t.Parallel()
	creates := []OpenCreate{sentAt, {Process: "p1", Create: 4, Request: byID, Sent: t0.Add(10 * time.Second), Within: time.Minute}}
	found := DefaultTuning.Look(creates, []Listed{listedAt("sub_c", t0.Add(20*time.Second), nil)}, 0, func(string) bool { return false })
	if len(found) != 1 || found[0].Request != byID || found[0].Also != "plan { … }" {
		t.Errorf("found %+v, want sub_c once, for plan_001, also the inline plan", found)
	}
	if got := DefaultTuning.Earliest(creates, time.Minute); !got.Equal(t0.Add(time.Minute - 2*time.Second)) {
		t.Errorf("earliest %v", got)
	}
	if got := DefaultTuning.Earliest(nil, 0); !got.IsZero() {
		t.Errorf("earliest of no creates %v", got)
	}
}
