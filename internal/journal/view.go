package journal

import (
	"encoding/hex"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// view is what a journal's records say, folded: the processes that wrote,
// the creates they sent, the subscriptions they were given and whether a
// state has held them since, and what each process's state held.
type view struct {
	processes map[string]*process
	sends     map[sendKey]*send
	subs      map[subKey]*subscription // by service and id
	groups    map[string]*group        // looks, by group
	sizes     []*sizeEntry             // oldest first
	services  map[string]bool          // the services the processes spoke to
	index     int                      // records folded
}

// process is one provider process's part of the journal.
type process struct {
	id        string
	start     int // index of its first record
	last      int // index of its latest record
	startedAt time.Time
	lastAt    time.Time
	pid, ppid int
	stamp     string
	service   string
	account   string
	home      Home
	ended     bool
	answers   ClockSpan // what its answered creates show of the service's clock
	end       int       // index of its end record
	whole     bool
	applied   bool
}

type sendKey struct {
	process string
	create  int
}

// send is a create's latest attempt.
type send struct {
	request string
	at      time.Time
	within  time.Duration
	open    bool // sent, with no answer on record
}

// subKey names a subscription: its service's base URL and its id, since
// two services (a staging and a production one) may issue the same id. A
// damaged line's id is of no known service ("").
type subKey struct{ service, id string }

// subscription is what the journal knows of one subscription: the latest
// record that gave it to a process (its answer to a create, a take, a
// look's find, a damaged line), and what followed.
type subscription struct {
	id            string
	service       string // its service's base URL; "" for a damaged line's
	request, also string
	origin        Origin
	given         int // index of that record
	givenAt       time.Time
	process       string // the process it was given to
	from          string // the process whose create made it: its home, service, account and run
	created       time.Time
	group         string
	lostRun       time.Time
	line          int             // OriginDamaged: the line it was read from
	unfound       *record         // OriginUnfound: the look's record of it
	seen          bool            // a state held it after it was given
	dismissed     string          // why it was dismissed; "" while it was not
	checkAt       map[string]bool // OriginDamaged: the services still to say they do not have it; nil: every one
}

// group is one look at the service: the creates it was for, and what it
// found.
type group struct {
	sends []sendKey
	found []subKey
}

// sizeEntry is what one process's state held, less what later processes
// held or found gone.
type sizeEntry struct {
	service string // of the process; "" in a journal written before it was kept
	ids     map[uint64]struct{}
}

func newView() *view {
	return &view{processes: map[string]*process{}, sends: map[sendKey]*send{}, subs: map[subKey]*subscription{}, groups: map[string]*group{}, services: map[string]bool{}}
}

// maxSizeEntries bounds the size entries kept: those of provider
// configurations since removed are never taken up again, and the oldest
// beyond this many are dropped.
const maxSizeEntries = 32

// apply folds r, the next record, into v.
func (v *view) apply(r record) {
	v.index++
	index := v.index
	switch r.Kind {
	case kindSize:
		v.addSize(r.Service, parseHashes(r.Holds), nil)
		return
	case kindDamaged:
		for _, id := range r.IDs {
			if v.subs[subKey{"", id}] == nil {
				s := &subscription{id: id, origin: OriginDamaged, given: index, line: r.Line, givenAt: time.UnixMilli(r.At)}
				if r.Svcs != nil {
					s.checkAt = map[string]bool{}
					for _, service := range r.Svcs {
						s.checkAt[service] = true
					}
				}
				v.subs[subKey{"", id}] = s
			}
		}
		return
	}
	if r.Process == "" {
		return // a header: nothing to fold
	}
	at := time.UnixMilli(r.At)
	p := v.processes[r.Process]
	if p == nil {
		// Its start record was lost to a damaged line: a process that
		// never ended, of no known home.
		p = &process{id: r.Process, start: index, startedAt: at}
		v.processes[r.Process] = p
	}
	p.last, p.lastAt = index, at
	key := sendKey{r.Process, r.Create}
	switch r.Kind {
	case kindStart:
		p.start, p.startedAt, p.pid, p.ppid, p.stamp = index, at, r.PID, r.PPID, r.Stamp
		p.service, p.account, p.home = r.Service, r.Account, Home{Dir: r.Dir, Workspace: r.Workspace, Backend: r.Backend}
		if r.Service != "" {
			v.services[r.Service] = true
		}
	case kindSent:
		v.sends[key] = &send{request: r.Request, at: at, within: time.Duration(r.Within) * time.Millisecond, open: true}
	case kindRefused, kindUnmade:
		if s := v.sends[key]; s != nil {
			s.open = false
		}
	case kindMade, kindTaken:
		if s := v.sends[key]; s != nil {
			s.open = false
			if r.Kind == kindMade && r.Created != 0 {
				p.answers = p.answers.add(time.Unix(r.Created, 0), s.at, at)
			}
		}
		v.give(&subscription{id: r.ID, service: p.service, request: r.Request, also: r.Also, origin: OriginCreate, given: index, givenAt: at, process: r.Process, from: r.Process})
	case kindLooked:
		g := v.groups[r.Group]
		if g == nil {
			g = &group{}
			v.groups[r.Group] = g
		}
		for _, ref := range r.Sends {
			proc, n, _ := strings.Cut(ref, ":")
			create, _ := strconv.Atoi(n)
			g.sends = append(g.sends, sendKey{proc, create})
			if s := v.sends[sendKey{proc, create}]; s != nil {
				s.open = false
			}
		}
	case kindFound:
		if v.subs[subKey{p.service, r.ID}] != nil {
			return // a look never finds what the journal knows
		}
		s := &subscription{id: r.ID, service: p.service, request: r.Request, also: r.Also, origin: OriginFound, given: index, givenAt: at, process: r.Process, from: r.Process,
			created: time.Unix(r.Created, 0), group: r.Group}
		if r.LostRun != 0 {
			s.origin, s.lostRun = OriginLostRun, time.Unix(r.LostRun, 0)
		} else if g := v.groups[r.Group]; g != nil {
			g.found = append(g.found, subKey{p.service, r.ID})
			if len(g.sends) > 0 {
				s.from = g.sends[0].process // the creates' process, not the looker
			}
		}
		v.give(s)
	case kindUnfound:
		for _, ref := range r.Sends {
			proc, n, _ := strings.Cut(ref, ":")
			create, _ := strconv.Atoi(n)
			id := UnfoundID(proc, create)
			rec := r
			v.give(&subscription{id: id, service: p.service, request: r.Request, origin: OriginUnfound, given: index, givenAt: at, process: r.Process, from: proc, unfound: &rec})
			if s := v.sends[sendKey{proc, create}]; s != nil {
				rec.At = s.at.UnixMilli() // when it was sent
			}
		}
	case kindSeen:
		for _, id := range r.IDs {
			if s := v.of(p.service, id); s != nil {
				v.see(s, r.Process, index)
			}
		}
	case kindDismissed:
		s := v.of(p.service, r.ID)
		switch {
		case s == nil || s.dismissed != "":
		case s.origin == OriginDamaged && r.Why == WhyGone:
			// A damaged line's id may be any service's: it is gone once
			// every service the journal's processes spoke to says so.
			s.checkAt = s.stillToCheck(v.services)
			delete(s.checkAt, p.service)
			if len(s.checkAt) == 0 {
				s.dismissed = r.Why
			}
		default:
			s.dismissed = r.Why
		}
	case kindEnd:
		p.ended, p.end, p.whole, p.applied = true, index, r.Whole, r.Applied
		holds := parseHashes(r.Holds)
		for _, s := range v.subs {
			if _, ok := holds[idHash(s.id)]; ok && (s.service == p.service || s.service == "") {
				v.see(s, r.Process, index)
			}
		}
		v.addSize(p.service, holds, parseHashes(r.Gone))
	}
}

// see records that the state of process, at record index, held s. A
// process that made a subscription holds it in the state it hands
// Terraform, which may never be saved (the CLI killed before it saved, a
// state upload failed, another run applying at once overwrote it): only
// another process's state shows it saved.
func (v *view) see(s *subscription, process string, index int) {
	if s.given < index && (s.origin != OriginCreate || s.process != process) {
		s.seen = true
	}
}

// stillToCheck are the services still to say they do not have damaged
// line's id s: of those services, when the line named none.
func (s *subscription) stillToCheck(services map[string]bool) map[string]bool {
	if s.checkAt == nil {
		return maps.Clone(services)
	}
	return s.checkAt
}

// give records what a record gave a process: a subscription of its
// service, which a damaged line's id, if it showed the same, no longer
// stands for.
func (v *view) give(s *subscription) {
	delete(v.subs, subKey{"", s.id})
	v.subs[subKey{s.service, s.id}] = s
}

// of is the subscription id of service, or the damaged line's id.
func (v *view) of(service, id string) *subscription {
	if s := v.subs[subKey{service, id}]; s != nil {
		return s
	}
	return v.subs[subKey{"", id}]
}

// addSize adds what a process of service had its state hold, and takes
// it, with what it found gone, out of the entries of that service before
// it (and of those of no known service).
func (v *view) addSize(service string, holds, gone map[uint64]struct{}) {
	kept := v.sizes[:0]
	for _, e := range v.sizes {
		if e.service != service && e.service != "" {
			kept = append(kept, e)
			continue
		}
		for h := range e.ids {
			_, held := holds[h]
			_, left := gone[h]
			if held || left {
				delete(e.ids, h)
			}
		}
		if len(e.ids) > 0 {
			kept = append(kept, e)
		}
	}
	v.sizes = kept
	if len(holds) > 0 {
		v.sizes = append(v.sizes, &sizeEntry{service: service, ids: holds})
	}
	if len(v.sizes) > maxSizeEntries {
		v.sizes = slices.Delete(v.sizes, 0, len(v.sizes)-maxSizeEntries)
	}
}

// liveness says whether a process may still write: live, or, for a
// process that holds the journal alone, none.
type liveness func(*process) bool

// nobodyLive is the liveness of a process that holds the journal alone:
// every other process that had it open is gone, whatever its pid names
// now.
func nobodyLive(*process) bool { return false }

// live reports whether p may still write, as process self sees it: it
// never ended, it runs (the same process, not a later one of its pid),
// and so does the Terraform that started it. A provider whose Terraform
// was killed goes on for as long as its creates in flight take (an
// orphan); that one is not live, since no state will hold what it makes.
func (p *process) live(self int) bool {
	return !p.ended && p.pid != 0 && p.pid != self && alive(p.pid) && (p.stamp == "" || p.stamp == stamp(p.pid)) && !orphaned(p.pid, p.ppid)
}

// vouched reports whether a plan that saw the whole state, applied
// nothing and ended as Terraform ends its providers read that state after
// s was given: had its state held s, it would have said so. A process
// reads its state after it started, and after what it found itself,
// which it finds when the provider is configured, before any read.
func (v *view) vouched(s *subscription) bool {
	for _, p := range v.processes {
		if p.ended && p.whole && !p.applied && (p.start > s.given || s.origin != OriginCreate && s.process == p.id) {
			return true
		}
	}
	return false
}

// leftovers are the subscriptions no state is known to hold that the
// process self must name or may take, oldest first: those given to
// another process, live ones' aside; of lost runs, only those of lostRun.
// What a process that ended as Terraform ends its providers was given is
// Presumed held: its state was handed over, and may have been saved.
func (v *view) leftovers(self string, lostRun time.Time, isLive liveness) []Leftover {
	kept := map[string]bool{} // processes a later state was seen to hold a subscription of
	for _, s := range v.subs {
		if s.seen && s.origin == OriginCreate {
			kept[s.process] = true
		}
	}
	var out []Leftover
	for _, s := range v.subs {
		if s.seen || s.dismissed != "" {
			continue
		}
		p := v.processes[s.process]
		if s.origin == OriginCreate && (s.process == self || isLive(p)) || s.origin == OriginLostRun && !s.lostRun.Equal(lostRun) {
			continue
		}
		l := Leftover{ID: s.id, Request: s.request, Also: s.also, Origin: s.origin, Given: s.givenAt, Created: s.created,
			LostRun: s.lostRun, Line: s.line, Vouched: v.vouched(s), Presumed: s.origin == OriginCreate && p.ended, Process: s.process, index: s.given}
		l.Kept = l.Presumed && kept[s.process]
		if from := v.processes[s.from]; from != nil {
			l.Run, l.Service, l.Account, l.Home = from.startedAt, from.service, from.account, from.home
		}
		if s.origin == OriginLostRun {
			l.Run = s.lostRun
		}
		if u := s.unfound; u != nil {
			l.Given = time.UnixMilli(u.At)
			if len(u.Window) == 2 {
				l.Window = [2]time.Time{time.Unix(u.Window[0], 0), time.Unix(u.Window[1], 0)}
			}
			if len(u.Clocks) > 0 {
				l.DateOffset = time.Duration(u.Clocks[0]) * time.Millisecond
			}
			if len(u.Clocks) == 3 {
				l.Answers = ClockSpan{From: time.Duration(u.Clocks[1]) * time.Millisecond, To: time.Duration(u.Clocks[2]) * time.Millisecond, Known: true}
			}
		}
		if g := v.groups[s.group]; s.origin == OriginFound && g != nil {
			l.Sends = len(g.sends)
			for _, key := range g.found {
				if f := v.subs[key]; f != nil && !f.seen && f.dismissed == "" {
					l.Found++
				}
			}
		}
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b Leftover) int { return a.index - b.index })
	return out
}

// openCreates are the creates sent with no answer on record by processes
// that will not record one: neither live nor self.
func (v *view) openCreates(self string, isLive liveness) []OpenCreate {
	var out []OpenCreate
	for k, s := range v.sends {
		p := v.processes[k.process]
		if !s.open || k.process == self || isLive(p) {
			continue
		}
		out = append(out, OpenCreate{Process: k.process, Create: k.create, Request: s.request, Sent: s.at, Within: s.within,
			Run: p.startedAt, Service: p.service, Account: p.account, Home: p.home, Answers: p.answers})
	}
	slices.SortFunc(out, func(a, b OpenCreate) int { return a.Sent.Compare(b.Sent) })
	return out
}

// pending reports whether the journal names anything a later process of
// lostRun may need: a leftover, an open create.
// lastEndedOf is the process of run (started by the Terraform of that
// pid) that ended last; "" when none has.
func (v *view) lastEndedOf(run int) string {
	last, end := "", -1
	for id, p := range v.processes {
		if run != 0 && p.ppid == run && p.ended && p.end > end {
			last, end = id, p.end
		}
	}
	return last
}

// startOrEndOf reports whether r is process's start or end record.
func startOrEndOf(r record, process string) bool {
	return process != "" && r.Process == process && (r.Kind == kindStart || r.Kind == kindEnd)
}

func (v *view) pending(lostRun time.Time, isLive liveness) bool {
	for _, l := range v.leftovers("", lostRun, isLive) {
		if l.Origin != OriginDamaged { // a damaged line's id outlives compaction on its own
			return true
		}
	}
	return len(v.openCreates("", isLive)) > 0
}

func idHash(id string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return h.Sum64()
}

// formatHashes writes hashes as 16 hex digits each.
func formatHashes(hashes map[uint64]struct{}) string {
	var b strings.Builder
	b.Grow(16 * len(hashes))
	var buf [8]byte
	for h := range hashes {
		for i := range buf {
			buf[i] = byte(h >> (56 - 8*i))
		}
		b.WriteString(hex.EncodeToString(buf[:]))
	}
	return b.String()
}

// parseHashes reads what formatHashes wrote; what is not is left out.
func parseHashes(s string) map[uint64]struct{} {
	out := make(map[uint64]struct{}, len(s)/16)
	for ; len(s) >= 16; s = s[16:] {
		if h, err := strconv.ParseUint(s[:16], 16, 64); err == nil {
			out[h] = struct{}{}
		}
	}
	return out
}
