// Package journal is a Terraform working directory's memory of what the
// provider's creates bought, kept beside Terraform's own data, so that a
// run killed before its CLI saved state costs nothing twice: the next run
// takes what it left, or names it until it is dealt with.
//
// Its few concepts:
//
//   - A journal: one file a workspace (home.go: Locate), of checksummed
//     lines (record.go), written by the provider processes of the working
//     directory under file locks (lock_*.go); a create's line is written
//     before its request is, and on disk within a fifth of a second
//     (writer.go).
//   - A process: one provider process. Its start names its home (the
//     working directory, the workspace and the state, home.go) and its
//     service; its end, written when Terraform ends it, which
//     subscriptions its state held.
//   - A create: sent (right before its request is written), then made
//     (the service's answer: a subscription), unmade (nothing made), or
//     open, when its process died first. A look at the service (look.go)
//     finds what open creates made.
//   - A leftover: a subscription a process was given (made, taken, found)
//     that no state has been seen to hold since, unless its process ended
//     as Terraform ends it with no other run applying beside it.
//   - The decision (decide.go): for a leftover and a run, take it, or the
//     reason not, each rule a row of decide_test.go.
//   - The state's size: what each process's state held, for the paged
//     refresh (StateSize).
//
// Taken, made, found and dismissed are the only acts on a subscription;
// seen is the one word for a state holding it. The journal never writes
// the token (a process's account is a salted fingerprint of it), and
// knows nothing of Terraform's protocol.
package journal

import (
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Errors of a journal that cannot be kept.
var (
	// ErrClosed: the journal was ended or closed.
	ErrClosed = errors.New("the journal is closed")
)

// Journal is one working directory's journal, as one provider process
// uses it. Its methods are safe for concurrent use.
type Journal struct {
	path    string
	home    Home
	service string
	account string // the token's fingerprint, salted with the journal's salt
	lostRun time.Time
	now     func() time.Time
	tuning  Tuning
	process string
	pid     int
	ppid    int
	salt    string

	file *os.File
	w    writer

	mu       sync.Mutex // guards what follows
	view     *view
	size     int64 // the file's size as this process last read or wrote it
	creates  int
	looks    int
	ended    bool
	damaged  []Damaged
	setAside string
	sizes    []*sizeEntry        // the state's sizes as opened
	matched  map[*sizeEntry]bool // of those, the entries the state's reads were found in
	expected int                 // ids in the matched entries
	left     []Leftover          // Leftovers, folded for leftAt
	leftAt   int                 // the view's records when left was folded; -1: none
}

// Options are what Open needs besides the path, home and service.
type Options struct {
	// Now is the clock.
	Now func() time.Time
	// LostRun is the start of a run lost with its working directory that
	// this process recovers (RecordLostRun), to the second: what the
	// journal holds of other lost runs is neither named nor taken.
	LostRun time.Time
	// Token is the service's token, of which the journal keeps only a
	// salted fingerprint: the account a process's creates were made for.
	Token string

	// Tuning is the recovery's timing; DefaultTuning when zero.
	Tuning Tuning

	// Parent is the pid of the process that started this one (Terraform),
	// os.Getppid() when zero: the processes of one run share it (Beside,
	// AfterSibling), and each run of a test's history has its own.
	Parent int

	// pid stands for the process's, when set: the tests' other
	// processes.
	pid int
}

// Open opens the journal at path for a process of home that speaks to the
// service at service, creating it when absent, and records the process's
// start. A journal of another format is set aside (SetAside says where);
// one with damaged lines is read around them (Damaged). When no other
// process has the journal open, it is compacted first: what it names
// stays, and so does this run's process that ended last (AfterSibling);
// the rest goes.
func Open(path string, home Home, service string, o Options) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	unlock, err := lockPath(path + ".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	if o.Tuning == (Tuning{}) {
		o.Tuning = DefaultTuning
	}
	j := &Journal{path: path, home: home, service: service, lostRun: o.LostRun.Truncate(time.Second), now: o.Now, tuning: o.Tuning, process: newProcessID(),
		pid: cmp.Or(o.pid, os.Getpid()), ppid: cmp.Or(o.Parent, os.Getppid()), matched: map[*sizeEntry]bool{}, leftAt: -1}
	if err := j.openFile(); err != nil {
		return nil, err
	}
	exclusive := lockExclusiveNow(j.file)
	data, err := os.ReadFile(path)
	if err != nil {
		_ = j.file.Close()
		return nil, err
	}
	records, damaged, cut := decodeAll(data)
	if why := formatProblem(records, damaged); why != "" {
		if err := j.putAside(why); err != nil {
			return nil, err
		}
		records, damaged, cut, data = nil, nil, 0, nil
		exclusive = lockExclusiveNow(j.file)
	}
	j.damaged = damaged
	j.view = fold(records)
	j.size = int64(len(data))
	j.salt = saltOf(records)
	if len(data) == 0 {
		line, err := encode(record{Kind: kindHeader, Version: formatVersion, Dir: home.Dir, Workspace: home.Workspace, Salt: j.salt})
		if err == nil {
			err = j.w.write(line)
		}
		if err != nil {
			_ = j.file.Close()
			return nil, err
		}
		j.view.apply(record{Kind: kindHeader})
		j.size = int64(len(line))
	} else if exclusive && (cut > 0 || needsCompaction(j.view, records, damaged, j.lostRun, j.ppid)) {
		// Alone with the journal: no other process is live, whatever its
		// pid names now.
		kept := compacted(j.view, records, damaged, home, j.salt, j.lostRun, j.ppid)
		if err := j.rewrite(kept); err != nil {
			_ = j.file.Close()
			return nil, err
		}
		j.view = fold(kept)
	}
	j.account = fingerprint(j.salt, o.Token)
	j.sizes = j.view.sizes
	lockShared(j.file)
	j.mu.Lock()
	err = j.appendLocked() // its start
	j.mu.Unlock()
	if err != nil {
		_ = j.file.Close()
		return nil, err
	}
	return j, nil
}

func (j *Journal) openFile() error {
	f, err := os.OpenFile(j.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	j.file, j.w.file, j.w.syncWithin = f, f, j.tuning.SyncWithin
	if j.w.afterFunc == nil {
		j.w.afterFunc = afterFunc
	}
	return nil
}

// formatProblem says why records are not a journal this package reads;
// "" when they are, or when there are none. A header lost to a damaged
// first line is no reason.
func formatProblem(records []record, damaged []Damaged) string {
	switch {
	case len(records) == 0:
		return ""
	case records[0].Kind == kindHeader && records[0].Version != formatVersion:
		return fmt.Sprintf("it is of format version %d, and this provider reads %d", records[0].Version, formatVersion)
	case records[0].Kind != kindHeader && (len(damaged) == 0 || damaged[0].Line != 1):
		return "it does not start with a journal's header"
	}
	return ""
}

// putAside renames the journal out of the way and opens a new one.
func (j *Journal) putAside(why string) error {
	aside := fmt.Sprintf("%s.refused-%d", j.path, j.now().Unix())
	_ = j.file.Close()
	if err := os.Rename(j.path, aside); err != nil {
		return err
	}
	j.setAside = fmt.Sprintf("The journal %s was not used: %s. It was moved to %s; nothing in it was taken. Delete it once you have checked it.", j.path, why, aside)
	return j.openFile()
}

// fold is the view of records.
func fold(records []record) *view {
	v := newView()
	for _, r := range records {
		v.apply(r)
	}
	return v
}

// saltOf is the salt of a journal's header, or a new one.
func saltOf(records []record) string {
	if len(records) > 0 && records[0].Kind == kindHeader && records[0].Salt != "" {
		return records[0].Salt
	}
	return newProcessID()
}

// fingerprint tells a token's account from another's without keeping the
// token: a hash of it, salted with the journal's own salt.
func fingerprint(salt, token string) string {
	if token == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(salt + "\x00" + token))
	return hex.EncodeToString(sum[:8])
}

// needsCompaction reports whether compacting would change the journal:
// ends still carry what their state held, damaged lines are in it, or it
// names nothing and holds more than its header, sizes and the start and
// end of run's process that ended last.
func needsCompaction(v *view, records []record, damaged []Damaged, lostRun time.Time, run int) bool {
	if len(damaged) > 0 {
		return true
	}
	pending := v.pending(lostRun, nobodyLive)
	sibling := v.lastEndedOf(run)
	for _, r := range records {
		switch {
		case r.Kind == kindEnd && (r.Holds != "" || r.Gone != ""):
			return true
		case !pending && r.Kind != kindHeader && r.Kind != kindSize && !startOrEndOf(r, sibling):
			return true
		}
	}
	return false
}

// compacted are the records a compaction keeps: a header; when the
// journal names anything (for a process of lostRun, alone with it), every
// record of its processes, the state each end held cut to what the
// journal knows (as seen records); the ids damaged lines show, always;
// then what each process's state held, as sizes. When it names nothing,
// the start and end of run's process that ended last (started by the
// Terraform that started this one) stay: in `terraform apply`, the plan's
// process, which AfterSibling reads in the apply's.
func compacted(v *view, records []record, damaged []Damaged, home Home, salt string, lostRun time.Time, run int) []record {
	kept := []record{{Kind: kindHeader, Version: formatVersion, Dir: home.Dir, Workspace: home.Workspace, Salt: salt}}
	if v.pending(lostRun, nobodyLive) {
		for _, r := range records {
			switch r.Kind {
			case kindHeader, kindSize:
				continue
			case kindEnd:
				var seen []string
				holds := parseHashes(r.Holds)
				service := ""
				if p := v.processes[r.Process]; p != nil {
					service = p.service
				}
				for key := range v.subs {
					if _, ok := holds[idHash(key.id)]; ok && (key.service == service || key.service == "") {
						seen = append(seen, key.id)
					}
				}
				r.Holds, r.Gone = "", ""
				kept = append(kept, r)
				if len(seen) > 0 {
					slices.Sort(seen)
					kept = append(kept, record{Kind: kindSeen, Process: r.Process, At: r.At, IDs: seen})
				}
				continue
			}
			kept = append(kept, r)
		}
	}
	if !v.pending(lostRun, nobodyLive) {
		sibling := v.lastEndedOf(run)
		for _, r := range records {
			if startOrEndOf(r, sibling) {
				r.Holds, r.Gone = "", "" // kept as sizes, below
				kept = append(kept, r)
			}
		}
		// The ids earlier damaged lines showed, still to be dealt with;
		// when the journal names more, every record is kept already.
		for _, s := range v.subs {
			if s.origin == OriginDamaged && s.dismissed == "" {
				kept = append(kept, record{Kind: kindDamaged, IDs: []string{s.id}, Line: s.line, Svcs: sortedKeys(s.stillToCheck(v.services))})
			}
		}
	}
	for _, d := range damaged {
		if len(d.IDs) > 0 {
			kept = append(kept, record{Kind: kindDamaged, IDs: d.IDs, Line: d.Line, Svcs: sortedKeys(v.services)})
		}
	}
	for _, e := range v.sizes {
		kept = append(kept, record{Kind: kindSize, Service: e.service, Holds: formatHashes(e.ids)})
	}
	return kept
}

func sortedKeys(m map[string]bool) []string {
	keys := slices.Collect(maps.Keys(m))
	slices.Sort(keys)
	return keys
}

// rewrite replaces the journal's file with records, whole or not at all;
// the exclusive lock held on the file, and the lock beside it, keep every
// other process out meanwhile.
func (j *Journal) rewrite(records []record) error {
	var data []byte
	for _, r := range records {
		line, err := encode(r)
		if err != nil {
			return err
		}
		data = append(data, line...)
	}
	tmp := j.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, j.path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	syncDir(filepath.Dir(j.path))
	_ = j.file.Close()
	if err := j.openFile(); err != nil {
		return err
	}
	j.size = int64(len(data))
	return nil
}

// syncDir makes a rename in dir durable; where a directory cannot be
// synced, the rename stands as the filesystem keeps it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

func newProcessID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Peek reads the journal at path without opening it for a process, as a
// provider with the journal turned off reads it: nothing is written and
// nothing locked. It returns the leftovers of service and token (and
// every damaged line's) the decision would take or name in a plan of the
// whole state that creates nothing, and the open creates of that service
// and token. A journal that is not there names nothing.
func Peek(path string, home Home, service, token string, now time.Time) ([]Leftover, []OpenCreate, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	// As Open does: a journal no other process has open was left by
	// processes that are all gone, whatever their pids name now.
	alone := lockExclusiveNow(f)
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	records, _, _ := decodeAll(data)
	v := fold(records)
	account := fingerprint(saltOf(records), token)
	pid := os.Getpid()
	isLive := func(p *process) bool { return !alone && p != nil && p.live(pid) }
	run := Run{Now: now, Service: service, Account: account, Home: home}
	var left []Leftover
	for _, l := range v.leftovers("", time.Time{}, isLive) {
		if l.Service != "" && (l.Service != service || l.Account != account) {
			continue // another configuration's
		}
		if d := Decide(l, run, DefaultTuning); d.Take || d.Named() {
			left = append(left, l)
		}
	}
	var open []OpenCreate
	for _, c := range v.openCreates("", isLive) {
		if c.Service == service && c.Account == account {
			open = append(open, c)
		}
	}
	return left, open, nil
}

// Account is the fingerprint of this process's token, as the journal
// keeps it: the account a process's creates were made for.
func (j *Journal) Account() string { return j.account }

// Path is where the journal is.
func (j *Journal) Path() string { return j.path }

// SetAside says why a journal found at the path was set aside; "" when
// none was.
func (j *Journal) SetAside() string { return j.setAside }

// Damaged are the lines Open read damaged.
func (j *Journal) Damaged() []Damaged { return slices.Clone(j.damaged) }

// Leftovers are the subscriptions no state is known to hold that this
// process must name or may take, oldest first, as the journal holds them
// now (what other processes wrote since is read first).
func (j *Journal) Leftovers() ([]Leftover, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	err := j.reloadLocked()
	if j.leftAt != j.view.index {
		j.left, j.leftAt = j.view.leftovers(j.process, j.lostRun, j.isLive), j.view.index
	}
	return slices.Clone(j.left), err
}

// isLive is whether another process may still write, as this one sees it.
func (j *Journal) isLive(p *process) bool { return p != nil && p.live(j.pid) }

// OpenCreates are the creates sent with no answer on record by processes
// that will not record one, oldest first.
func (j *Journal) OpenCreates() []OpenCreate {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.view.openCreates(j.process, j.isLive)
}

// Known reports whether the journal names subscription id in any way: a
// look never finds it again.
func (j *Journal) Known(id string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.view.of(j.service, id) != nil
}

// Orphans counts the processes whose Terraform is gone that still run and
// wrote lately: a provider seeing its creates in flight through. What it
// records after this process's plan began could not be vouched for.
func (j *Journal) Orphans() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, p := range j.view.processes {
		if !p.ended && p.pid != 0 && p.pid != j.pid && j.now().Sub(p.lastAt) < j.tuning.FinishingWithin && alive(p.pid) &&
			(p.stamp == "" || p.stamp == stamp(p.pid)) && orphaned(p.pid, p.ppid) {
			n++
		}
	}
	return n
}

// orphaned reports whether the Terraform that started a process is gone.
func orphaned(pid, ppid int) bool { return ppid != 0 && !alive(ppid) }

// AfterSibling reports whether a process Terraform started before this
// one, in the same run, has ended: in `terraform apply`, the plan's
// provider process ends before the apply's starts, and the providers of
// one walk end together.
func (j *Journal) AfterSibling() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.reloadLocked()
	self := j.view.processes[j.process]
	for _, p := range j.view.processes {
		if p != self && p.ppid == j.ppid && p.ended && self != nil && p.end < self.start {
			return true
		}
	}
	return false
}

// GivenTo are the processes that were given any of ids (of this
// process's service): the adapter reads, of the subscriptions this run's
// state holds, whose state was saved (Leftover.Kept).
func (j *Journal) GivenTo(ids []string) map[string]bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := map[string]bool{}
	for _, id := range ids {
		if s := j.view.subs[subKey{j.service, id}]; s != nil && s.origin == OriginCreate {
			out[s.process] = true
		}
	}
	return out
}

// Beside are the services and accounts of the other provider processes of
// this process's run (started by the same Terraform): the other provider
// configurations beside it, each of which names what is its own.
func (j *Journal) Beside() []Served {
	j.mu.Lock()
	defer j.mu.Unlock()
	_ = j.reloadLocked()
	var out []Served
	for id, p := range j.view.processes {
		if id != j.process && p.ppid == j.ppid && j.ppid != 0 && !slices.Contains(out, Served{p.service, p.account}) {
			out = append(out, Served{p.service, p.account})
		}
	}
	return out
}

// StateSize is how many subscriptions this process's state held at the
// last run here, as far as the reads so far show it: the ids of the size
// entries they are found in, id's included. A provider configured more
// than once (aliases, other accounts) is a process each, each with its own
// entries, so a process never counts another configuration's.
func (j *Journal) StateSize(id string) int {
	if j == nil {
		return 0
	}
	h := idHash(id)
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, e := range j.sizes {
		if e.service != j.service && e.service != "" {
			continue // another configuration's, on another service
		}
		if _, ok := e.ids[h]; ok && !j.matched[e] {
			j.matched[e] = true
			j.expected += len(e.ids)
		}
	}
	return j.expected
}

// Create is one create of this process, as its record goes.
type Create struct {
	j       *Journal
	n       int
	request string
	within  time.Duration
	sent    bool
}

// NewCreate begins a create asking for request, whose every attempt has
// within to be answered. Nothing is recorded until it is sent.
func (j *Journal) NewCreate(request string, within time.Duration) *Create {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.creates++
	return &Create{j: j, n: j.creates, request: request, within: within}
}

// Sending records that the create's request is about to be written: it
// returns once that is on disk, and the request must not go when it
// fails.
func (c *Create) Sending() error {
	c.j.mu.Lock()
	defer c.j.mu.Unlock()
	c.sent = true
	return c.j.appendLocked(record{Kind: kindSent, Create: c.n, Request: c.request, Within: c.within.Milliseconds()})
}

// Refused records that the service refused the attempt just sent (a
// 429): it made nothing, and the create waits to be sent again. A failure
// to record it costs only a look at the service later.
func (c *Create) Refused() {
	c.j.mu.Lock()
	defer c.j.mu.Unlock()
	_ = c.j.appendLocked(record{Kind: kindRefused, Create: c.n})
}

// Made records the service's answer: subscription id, created at created
// by the service's clock (zero when the answer did not say).
func (c *Create) Made(id string, created time.Time) error {
	c.j.mu.Lock()
	defer c.j.mu.Unlock()
	// A kill before this line is written leaves the create open, and the
	// next run looks at the service for what it made.
	r := record{Kind: kindMade, Create: c.n, Request: c.request, ID: id}
	if !created.IsZero() {
		r.Created = created.Unix()
	}
	return c.j.appendLaterLocked(r)
}

// Unmade records that the create made nothing: the service refused it,
// or it was never sent.
func (c *Create) Unmade() error {
	c.j.mu.Lock()
	defer c.j.mu.Unlock()
	if !c.sent {
		return nil
	}
	return c.j.appendLocked(record{Kind: kindUnmade, Create: c.n})
}

// Flush writes what is queued now: for a process about to exit (its
// Terraform gone), whose create answers would otherwise wait for the
// writer's clock, and be lost with the process.
func (j *Journal) Flush() error {
	return j.w.wait(j.w.tickets())
}

// Take records that a create of this process asking for request took a
// leftover instead of sending: the one pick chooses among those that may
// serve request, as the journal holds them now. It all happens under the
// lock every process of the working directory takes for it, after reading
// what they wrote, so that no two creates, in any process, take one
// subscription. pick returns "" for none; its error leaves all as it was.
func (j *Journal) Take(request string, pick func([]Leftover) (string, error)) (Leftover, bool, error) {
	unlock, err := lockPath(j.path + ".lock")
	if err != nil {
		return Leftover{}, false, err
	}
	defer unlock()
	left, err := j.Leftovers()
	if err != nil {
		return Leftover{}, false, err
	}
	var candidates []Leftover
	for _, l := range left {
		if l.Serves(request) {
			candidates = append(candidates, l)
		}
	}
	if len(candidates) == 0 {
		return Leftover{}, false, nil
	}
	id, err := pick(candidates)
	if err != nil || id == "" {
		return Leftover{}, false, err
	}
	i := slices.IndexFunc(candidates, func(l Leftover) bool { return l.ID == id })
	if i < 0 {
		return Leftover{}, false, fmt.Errorf("%s is not a leftover of %s", id, request)
	}
	l := candidates[i]
	also := l.Request
	if also == request {
		also = l.Also
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.appendLocked(record{Kind: kindTaken, Request: request, Also: also, ID: id}); err != nil {
		return Leftover{}, false, err
	}
	return l, true, nil
}

// RecordLook records a look at the service for creates: what it found
// becomes leftovers of this process, each create it found nothing for is
// named until dismissed (UnfoundID), and the creates are settled.
func (j *Journal) RecordLook(creates []OpenCreate, looked Looked) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.looks++
	group := j.process + ":" + strconv.Itoa(j.looks)
	sends := make([]string, len(creates))
	for i, c := range creates {
		sends[i] = sendRef(c.Process, c.Create)
	}
	records := []record{{Kind: kindLooked, Group: group, Sends: sends}}
	for _, f := range looked.Found {
		records = append(records, record{Kind: kindFound, Group: group, ID: f.ID, Request: f.Request, Also: f.Also, Created: f.Created.Unix()})
	}
	for _, u := range looked.Unfound {
		clocks := []int64{u.DateOffset.Milliseconds()}
		if a := u.Create.Answers; a.Known {
			clocks = append(clocks, a.From.Milliseconds(), a.To.Milliseconds())
		}
		records = append(records, record{Kind: kindUnfound, Group: group, Sends: []string{sendRef(u.Create.Process, u.Create.Create)}, Request: u.Create.Request,
			Window: []int64{u.From.Unix(), u.To.Unix()}, Clocks: clocks})
	}
	return j.appendLocked(records...)
}

func sendRef(process string, create int) string { return process + ":" + strconv.Itoa(create) }

// UnfoundID is the name the journal gives an open create a look found
// nothing for, as dismissed_leftovers names it.
func UnfoundID(process string, create int) string { return "create:" + sendRef(process, create) }

// RecordLostRun records what the service made in the window of the lost
// run Open was given: leftovers of this process, and of every later one
// given the same lost run.
func (j *Journal) RecordLostRun(found []Found) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.lostRun.IsZero() {
		return errors.New("the journal was opened for no lost run")
	}
	var records []record
	for _, f := range found {
		if j.view.of(j.service, f.ID) == nil {
			records = append(records, record{Kind: kindFound, ID: f.ID, Request: f.Request, Also: f.Also, Created: f.Created.Unix(), LostRun: j.lostRun.Unix()})
		}
	}
	return j.appendLocked(records...)
}

// Why a subscription is dismissed.
const (
	WhyDismissed = "dismissed" // by the user (dismissed_leftovers)
	WhyGone      = "gone"      // the service has no such subscription
)

// Dismiss records that ids are dealt with (why: WhyDismissed, WhyGone):
// none is named or taken again; a damaged line's id is gone once every
// service the journal names says so. It returns those the journal does
// not name.
func (j *Journal) Dismiss(ids []string, why string) (unknown []string, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var records []record
	for _, id := range ids {
		s := j.view.of(j.service, id)
		switch {
		case s == nil:
			unknown = append(unknown, id)
		case s.dismissed == "" && (s.origin != OriginDamaged || s.stillToCheck(j.view.services)[j.service]):
			records = append(records, record{Kind: kindDismissed, ID: id, Why: why})
		}
	}
	return unknown, j.appendLocked(records...)
}

// reloadLocked folds the whole file again when another process wrote to
// it since this one last did; j.mu is held. This process's records are
// all on disk first.
func (j *Journal) reloadLocked() error {
	if err := j.w.wait(j.w.tickets()); err != nil {
		return err
	}
	info, err := j.file.Stat()
	if err != nil {
		return err
	}
	if info.Size() == j.size {
		return nil
	}
	data, err := os.ReadFile(j.path)
	if err != nil {
		return err
	}
	records, _, _ := decodeAll(data)
	j.view, j.size = fold(records), int64(len(data))
	return nil
}

// End records that this process ended as Terraform ends its providers:
// whole says it saw every subscription its state held (no -target),
// applied that it applied changes, holds the subscriptions its state held
// as far as it saw (read, made or taken), gone those it found gone or
// removed. End then closes the journal.
func (j *Journal) End(whole, applied bool, holds, gone []string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ended {
		return nil
	}
	err := j.appendLocked(record{Kind: kindEnd, Whole: whole, Applied: applied, Holds: formatHashes(hashes(holds)), Gone: formatHashes(hashes(gone))})
	j.ended = true
	return errors.Join(err, j.w.close(), j.file.Close())
}

func hashes(ids []string) map[uint64]struct{} {
	out := make(map[uint64]struct{}, len(ids))
	for _, id := range ids {
		out[idHash(id)] = struct{}{}
	}
	return out
}

// Close closes the journal without an end record, as a killed process
// leaves it.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ended {
		return nil
	}
	j.ended = true
	return errors.Join(j.w.close(), j.file.Close())
}

// appendLocked writes records, this process's start first if it is not
// written yet, and waits until they are written (writer.go: on disk
// within syncWithin); j.mu is held, and released while waiting so that
// other records join the same write.
func (j *Journal) appendLocked(records ...record) error {
	return j.appendAs(true, records...)
}

// appendLaterLocked is appendLocked for records a kill may lose at the cost
// of a look at the service: it returns once they are queued, and the writer
// writes them within syncWithin, or with the next record. j.mu is held.
func (j *Journal) appendLaterLocked(records ...record) error {
	return j.appendAs(false, records...)
}

// appendAs appends records, waiting for their write when wait is set; j.mu
// is held.
func (j *Journal) appendAs(wait bool, records ...record) error {
	if j.ended {
		return ErrClosed
	}
	if j.view.processes[j.process] == nil {
		records = slices.Insert(records, 0, record{Kind: kindStart, PID: j.pid, PPID: j.ppid, Stamp: stamp(j.pid), Service: j.service,
			Account: j.account, Dir: j.home.Dir, Workspace: j.home.Workspace, Backend: j.home.Backend})
	}
	at := j.now().UnixMilli()
	var lines []byte
	for _, r := range records {
		r.Process, r.At = j.process, at
		line, err := encode(r)
		if err != nil {
			return err
		}
		lines = append(lines, line...)
		j.view.apply(r)
	}
	if len(lines) == 0 {
		return nil
	}
	j.size += int64(len(lines))
	if !wait {
		j.w.queueLater(lines)
		return nil
	}
	ticket := j.w.queue(lines)
	j.mu.Unlock()
	err := j.w.wait(ticket)
	j.mu.Lock()
	return err
}
