package journal

import (
	"fmt"
	"reflect"
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
		found := tune.Look(creates, []Listed{listed}, offset, func(id string) bool { return id == "sub_known" }).Found
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

// answered is sentAt of a process whose answers showed the service's
// clock at offset from this machine's, to a second.
func answered(offset time.Duration) OpenCreate {
	c := sentAt
	c.Answers = ClockSpan{}.add(t0.Add(-time.Minute+offset), t0.Add(-time.Minute), t0.Add(-time.Minute+time.Second))
	return c
}

// later is a second create of sentAt's request, sent ten seconds after it.
var later = OpenCreate{Process: "p1", Create: 5, Request: byID, Sent: t0.Add(10 * time.Second), Within: time.Minute}

func unfoundRow(rule string, creates []OpenCreate, listed []Listed, offset time.Duration, want []Unfound) row {
	return row{rule, func(tune Tuning) string {
		got := tune.Look(creates, listed, offset, func(string) bool { return false }).Unfound
		if !reflect.DeepEqual(got, want) {
			return fmt.Sprintf("unfound %+v, want %+v", got, want)
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
		// A service whose createdAt runs a day behind its Date header:
		// the answers of the create's own run place that clock.
		lookRow("createdAt a day behind the Date header, its run's answers saying so: found", []OpenCreate{answered(-24 * time.Hour)},
			listedAt("sub_c", t0.Add(-24*time.Hour+2*s), nil), 0, true),
		lookRow("createdAt a day behind the Date header, with no answer to say so: not found", []OpenCreate{sentAt}, listedAt("sub_c", t0.Add(-24*time.Hour+2*s), nil), 0, false),
		// Its answer came a second after its send: the clock is known to
		// a second, and the window opens a second and the slack early.
		lookRow("its run's answers place createdAt's clock: three seconds before the send, found", []OpenCreate{answered(0)}, listedAt("sub_c", t0.Add(-3*s), nil), time.Hour, true),
		lookRow("its run's answers place createdAt's clock: four seconds before the send, not found", []OpenCreate{answered(0)}, listedAt("sub_c", t0.Add(-4*s), nil), time.Hour, false),
		unfoundRow("a create the look found nothing for is named, with its window by the service's clock", []OpenCreate{sentAt}, nil, 0,
			[]Unfound{{Create: sentAt, From: t0.Add(-2 * s), To: t0.Add(time.Minute + 2*s)}}),
		unfoundRow("two creates of a request, one found: the later sent is named", []OpenCreate{sentAt, later}, []Listed{listedAt("sub_c", t0, nil)}, 0,
			[]Unfound{{Create: later, From: t0.Add(8 * s), To: t0.Add(time.Minute + 12*s)}}),
		unfoundRow("as many found as sent: none named", []OpenCreate{sentAt, later}, []Listed{listedAt("sub_c", t0, nil), listedAt("sub_d", t0.Add(10*s), nil)}, 0, nil),
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
	found := DefaultTuning.Look(creates, []Listed{listedAt("sub_c", t0.Add(20*time.Second), nil)}, 0, func(string) bool { return false }).Found
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
