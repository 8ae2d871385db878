package journal

import (
	"os"
	"slices"
	"time"
)

// view is what a journal's records say, folded: which processes wrote,
// which subscriptions their creates brought and whether a state has held
// them since, and which creates were sent with no answer recorded.
type view struct {
	processes map[string]*process
	held      map[string]*holding // by subscription id
	sends     map[sendKey]*send
}

// process is one provider process's part of the journal.
type process struct {
	start   int // index of its first record
	at      time.Time
	last    time.Time // its latest record
	pid     int
	ppid    int
	service string
	ended   bool
	whole   bool
	applied bool
}

// holding is the latest record that gave a process a subscription: the
// service's answer to its create, or an adoption.
type holding struct {
	index   int
	process string
	request string
	also    string
	seen    bool // a state held it after index
}

type sendKey struct {
	process string
	create  int
}

type send struct {
	request  string
	at       time.Time
	resolved bool
}

func newView() *view {
	return &view{processes: map[string]*process{}, held: map[string]*holding{}, sends: map[sendKey]*send{}}
}

// apply folds record r, the index-th of the journal, into v.
func (v *view) apply(index int, r record) {
	if r.Process == "" {
		return // a header, or a record naming no process: nothing to fold
	}
	p := v.processes[r.Process]
	if p == nil {
		// Its start record may have been lost to a crash; it counts as
		// a process that never ended.
		p = &process{start: index}
		v.processes[r.Process] = p
	}
	if r.At != 0 {
		p.last = time.UnixMilli(r.At)
	}
	switch r.Kind {
	case kindStart:
		p.start, p.at, p.service, p.pid, p.ppid = index, time.UnixMilli(r.At), r.Service, r.PID, r.PPID
	case kindSent:
		v.sends[sendKey{r.Process, r.Create}] = &send{request: r.Request, at: time.UnixMilli(r.At)}
	case kindCreated, kindAdopted:
		if s := v.sends[sendKey{r.Process, r.Create}]; s != nil {
			s.resolved = true
		}
		v.held[r.ID] = &holding{index: index, process: r.Process, request: r.Request, also: r.Also}
	case kindUnsent:
		if s := v.sends[sendKey{r.Process, r.Create}]; s != nil {
			s.resolved = true
		}
	case kindSeen:
		if h := v.held[r.ID]; h != nil {
			h.seen = true
		}
	case kindEnd:
		p.ended, p.whole, p.applied = true, r.Whole, r.Applied
	}
}

// Leftover is a subscription that a process of this working directory was
// given (created, or took in a recovery) and that was in no state the
// journal has heard of since: the process ended without Terraform closing
// it, so its state may not have been saved.
type Leftover struct {
	ID string
	// Request names what the create asked for; Also, when set, another
	// request it serves as well.
	Request, Also string
	// Run is when the process that was given it started.
	Run time.Time
	// Service is the base URL that process used.
	Service string

	index int
}

// Unanswered is a create that was sent and never answered, or whose answer
// never reached the journal: the service may have made its subscription.
type Unanswered struct {
	Request string
	Sent    time.Time
	Service string
}

// leftovers are the subscriptions processes were given and no state is
// known to hold, oldest first; of lost runs (RecordLostRun), only those of
// lostRun; none of process self, which is still running.
func (v *view) leftovers(lostRun, self string) []Leftover {
	var out []Leftover
	for id, h := range v.held {
		p := v.processes[h.process]
		if h.seen || p.ended || h.process == self || (isLostRun(h.process) && h.process != lostRun) {
			continue
		}
		out = append(out, Leftover{ID: id, Request: h.request, Also: h.also, Run: p.at, Service: p.service, index: h.index})
	}
	slices.SortFunc(out, func(a, b Leftover) int { return a.index - b.index })
	return out
}

// namesAnythingSince reports whether the journal names a leftover (of
// lostRun, among lost runs) or an unanswered create of a run started after
// since: older ones are only named for StaleAfter, and then the journal
// may be emptied without them.
func (v *view) namesAnythingSince(lostRun string, since time.Time) bool {
	for _, l := range v.leftovers(lostRun, "") {
		if l.Run.After(since) {
			return true
		}
	}
	for _, u := range v.unanswered("") {
		if u.Sent.After(since) {
			return true
		}
	}
	return false
}

// lostRunPrefix begins the process id under which RecordLostRun writes
// what the service shows of a run whose working directory is gone.
const lostRunPrefix = "lost-run:"

func isLostRun(process string) bool {
	return len(process) > len(lostRunPrefix) && process[:len(lostRunPrefix)] == lostRunPrefix
}

// unanswered are the creates sent with no answer recorded, oldest first,
// but those of process self and of any other process still running (one
// per provider configuration of a run): their answers may yet come.
func (v *view) unanswered(self string) []Unanswered {
	var out []Unanswered
	for k, s := range v.sends {
		p := v.processes[k.process]
		if s.resolved || k.process == self || (!p.ended && p.pid != os.Getpid() && alive(p.pid)) {
			continue
		}
		out = append(out, Unanswered{Request: s.request, Sent: s.at, Service: v.processes[k.process].service})
	}
	slices.SortFunc(out, func(a, b Unanswered) int { return a.Sent.Compare(b.Sent) })
	return out
}

// voucher is the latest plan that saw the whole state: a process that
// ended as Terraform ends its providers, recorded that it saw every
// subscription its state held (it planned, with no -target), and applied
// nothing. Had its state held a leftover given out before it started, it
// would have recorded it as seen. nil when there is none.
func (v *view) voucher() *process {
	var latest *process
	for _, p := range v.processes {
		if p.ended && p.whole && !p.applied && (latest == nil || p.start > latest.start) {
			latest = p
		}
	}
	return latest
}

// vouchedFor reports whether the latest plan that saw the whole state
// started after l was given out.
func (v *view) vouchedFor(l Leftover) bool {
	p := v.voucher()
	return p != nil && p.start > l.index
}
