// Package journal keeps, beside a Terraform working directory, the record
// of what the provider's creates brought: written before a create is sent
// and when its answer comes, synced to disk before either goes on. A run
// killed before its CLI saved state (SIGKILL, a lost runner, an
// out-of-memory kill) leaves subscriptions at the service that no state
// holds; the journal names them, so that the next run can take them
// instead of buying them again.
//
// It knows nothing of the provider or of Terraform's protocol: records of
// processes, creates, subscriptions and sightings, folded into what they
// say (view.go), in a file of checksummed lines (record.go), where it
// lives (locate.go), shared by the processes of one working directory
// (lock_*.go). It never holds the token.
package journal

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// StaleAfter is the age past which a leftover is never taken, only named:
// a run that old was likely dealt with by hand, and a subscription taken
// by mistake is billed to the wrong configuration.
const StaleAfter = 7 * 24 * time.Hour

// Journal is one working directory's journal, as one provider process
// uses it. Its methods are safe for concurrent use.
type Journal struct {
	path    string
	file    *os.File
	now     func() time.Time
	process string
	service string
	refused string

	mu        sync.Mutex // guards what follows
	view      *view
	index     int  // records in the file, for the view's order
	started   bool // this process's start record is written
	creates   int
	ended     bool
	lostRun   string    // the lost run this process recovers (RecordLostRun), as its process id
	lostRunAt time.Time // when it started

	w writer
}

// Identity is what a journal belongs to: a working directory and a
// workspace. A journal found with another identity is refused.
type Identity struct {
	Dir       string
	Workspace string
}

// Open opens the journal at path for a process that speaks to the service
// at service, creating it when absent. A journal that is damaged, of
// another version, or another working directory's or workspace's, is
// moved aside (Refused says where and why) and a new one begins. When no
// process of the directory holds the journal open and it names nothing
// left over, it is emptied first, so that it stays small. lostRun, unless
// zero, is the start of a run whose working directory is gone, which
// this process recovers (RecordLostRun); what the journal holds of other
// lost runs is ignored, and dropped when it is emptied.
func Open(path string, id Identity, service string, lostRun time.Time, now func() time.Time) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	j := &Journal{path: path, now: now, process: newProcessID(), service: service}
	if !lostRun.IsZero() {
		j.lostRun, j.lostRunAt = lostRunPrefix+lostRun.UTC().Format(time.RFC3339), lostRun
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	j.file = f
	j.w.file = f
	exclusive := lockExclusiveNow(f)
	data, err := os.ReadFile(path)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if exclusive && len(data) > 0 && data[len(data)-1] != '\n' {
		// A line cut short by a crash (a machine lost, a full disk) was
		// never acknowledged; cut it off, or the next record would be
		// glued to it and the journal read as damaged.
		keep := bytes.LastIndexByte(data, '\n') + 1
		if err := f.Truncate(int64(keep)); err != nil {
			_ = f.Close()
			return nil, err
		}
		data = data[:keep]
	}
	records, headed, why := check(data, id)
	if why != "" {
		if f, err = j.setAside(why); err != nil {
			return nil, err
		}
		records = nil
		exclusive = lockExclusiveNow(f)
	}
	j.view = newView()
	for i, r := range records {
		j.view.apply(i+1, r)
	}
	j.index = len(records) + 1
	if exclusive && len(records) > 0 && !j.view.namesAnythingSince(j.lostRun, now().Add(-StaleAfter)) {
		// Nobody else has it open and it names nothing: start afresh.
		if err := f.Truncate(0); err != nil {
			_ = f.Close()
			return nil, err
		}
		j.index, j.view, headed = 0, newView(), false
	}
	if !headed {
		line, err := encode(record{Kind: kindHeader, Version: formatVersion, Dir: id.Dir, Workspace: id.Workspace})
		if err == nil {
			err = j.w.write(line)
		}
		if err != nil {
			_ = f.Close()
			return nil, err
		}
		j.index = 1
	}
	lockShared(f)
	return j, nil
}

// check returns a journal's records after its header and whether it has
// one, or why it is not to be trusted.
func check(data []byte, id Identity) (records []record, headed bool, why string) {
	records, err := decodeAll(data)
	switch {
	case err != nil:
		return nil, false, fmt.Sprintf("it is damaged (%v)", err)
	case len(records) == 0:
		return nil, false, ""
	case records[0].Kind != kindHeader:
		return nil, false, "it does not start with a journal's header"
	case records[0].Version != formatVersion:
		return nil, false, fmt.Sprintf("it is of format version %d, and this provider reads %d", records[0].Version, formatVersion)
	case records[0].Dir != id.Dir || records[0].Workspace != id.Workspace:
		return nil, false, fmt.Sprintf("it belongs to workspace %q of %s, not to workspace %q of %s",
			records[0].Workspace, records[0].Dir, id.Workspace, id.Dir)
	}
	return records[1:], true, ""
}

// setAside renames the journal out of the way and opens a new one.
func (j *Journal) setAside(why string) (*os.File, error) {
	aside := fmt.Sprintf("%s.refused-%d", j.path, j.now().Unix())
	_ = j.file.Close()
	if err := os.Rename(j.path, aside); err != nil {
		return nil, err
	}
	j.refused = fmt.Sprintf("The journal %s was not used: %s. It was moved to %s; nothing in it was taken. Delete it once you have checked it.", j.path, why, aside)
	f, err := os.OpenFile(j.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	j.file, j.w.file = f, f
	return f, nil
}

func newProcessID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Path is where the journal is.
func (j *Journal) Path() string { return j.path }

// Service is the base URL this process speaks to.
func (j *Journal) Service() string { return j.service }

// Refused says why a journal found at the path was set aside; "" when none
// was.
func (j *Journal) Refused() string { return j.refused }

// Leftovers are the subscriptions the journal names as given to another
// process and held by no state it has heard of since, oldest first,
// whatever their service or age.
func (j *Journal) Leftovers() []Leftover {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.view.leftovers(j.lostRun, j.process)
}

// Unanswered are the creates sent with no answer recorded, oldest first.
func (j *Journal) Unanswered() []Unanswered {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.view.unanswered(j.process)
}

// finishingWithin is how recently a process must have written for Others
// to count it: a provider whose Terraform was killed writes the answers of
// the creates it had sent, each bounded by its request's time limit, and
// then exits.
const finishingWithin = 10 * time.Minute

// Others counts the processes of another Terraform run that still have
// the journal open and may write to it: alive, never ended, started by
// another process than this one's parent (the providers of one run, one
// per provider configuration, share a parent), and writing lately. A
// provider whose Terraform was killed is one while it sees through the
// creates it had sent.
func (j *Journal) Others() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for _, p := range j.view.processes {
		if !p.ended && p.pid != 0 && p.pid != os.Getpid() && p.ppid != os.Getppid() &&
			j.now().Sub(p.last) < finishingWithin && alive(p.pid) {
			n++
		}
	}
	return n
}

// LostSubscription is a subscription the service shows of a lost run: one
// it made and no state may hold.
type LostSubscription struct {
	ID            string
	Request, Also string
}

// RecordLostRun records, as given to the lost run Open was given, whose
// working directory, and journal, are gone, the subscriptions the service
// shows of it and this journal does not name; this process's leftovers
// include them, as they would a killed run's of this working directory.
// It must come before this process's own start (Begin), which the plan
// that vouches for them needs after them.
func (j *Journal) RecordLostRun(subs []LostSubscription) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	run := j.lostRun
	switch {
	case run == "":
		return errors.New("the journal was opened for no lost run")
	case j.started:
		return errors.New("a lost run is recorded before the process's own records")
	}
	var records []record
	if j.view.processes[run] == nil {
		records = append(records, record{Kind: kindStart, At: j.lostRunAt.UnixMilli(), Service: j.service})
	}
	now := j.now().UnixMilli()
	for _, s := range subs {
		if j.view.held[s.ID] == nil { // else this journal knows it already
			records = append(records, record{Kind: kindCreated, ID: s.ID, Request: s.Request, Also: s.Also, At: now})
		}
	}
	return j.writeLocked(run, records)
}

// Begin records this process's start, so that the plan it makes can vouch
// for what it saw; appending any record begins too.
func (j *Journal) Begin() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.appendLocked()
}

// Seen records that a state held subscription id, if the journal names it
// as a leftover: it is then taken by no create. It reports whether it was
// one.
func (j *Journal) Seen(id string) (bool, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	h := j.view.held[id]
	if h == nil || h.seen || j.view.processes[h.process].ended {
		return false, nil
	}
	return true, j.appendLocked(record{Kind: kindSeen, ID: id})
}

// Sending records a create about to be sent, asking for request, and
// returns its number, for Created or Unsent.
func (j *Journal) Sending(request string) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.creates++
	n := j.creates
	return n, j.appendLocked(record{Kind: kindSent, Create: n, Request: request})
}

// Created records the service's answer to create n: subscription id.
func (j *Journal) Created(n int, request, id string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.appendLocked(record{Kind: kindCreated, Create: n, Request: request, ID: id})
}

// Unsent records that create n made nothing: it was never sent, or the
// service refused it.
func (j *Journal) Unsent(n int) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.appendLocked(record{Kind: kindUnsent, Create: n})
}

// Verdict is what a check at the service found of a leftover.
type Verdict int

const (
	// Take: the leftover can stand for the create.
	Take Verdict = iota
	// Unfit: it cannot (gone, used, of another plan); no one takes it.
	Unfit
)

// Claim takes, for a create asking for request, the oldest leftover of
// this service that serves the same request, that the latest whole plan
// vouches for (view.vouchedFor), that is not stale, and that check finds fit at
// the service; it records the leftover as taken by this process before
// returning it. One check finds unfit is recorded the same way, by
// nobody's create, and the next is tried. A check's error ends the claim
// with nothing recorded, the leftover left for another run. All of it
// happens under a lock the other processes of the working directory take
// too (a run has one per provider configuration), after reading what they
// recorded, so that no two creates, in any process, take one subscription.
func (j *Journal) Claim(request string, check func(Leftover) (Verdict, error)) (Leftover, bool, error) {
	if !j.mayServe(request) {
		return Leftover{}, false, nil // nothing to read the journal again for
	}
	unlock, err := lockClaims(j.path + ".lock")
	if err != nil {
		return Leftover{}, false, err
	}
	defer unlock()
	for {
		j.mu.Lock()
		err := j.reloadLocked()
		l, ok := j.takeableLocked(request)
		j.mu.Unlock()
		if err != nil || !ok {
			return Leftover{}, false, err
		}
		verdict, err := check(l)
		if err != nil {
			return Leftover{}, false, err
		}
		j.mu.Lock()
		err = j.appendLocked(record{Kind: kindAdopted, Request: l.Request, Also: l.Also, ID: l.ID})
		j.mu.Unlock()
		if err != nil || verdict == Take {
			return l, err == nil, err
		}
	}
}

// mayServe reports whether, as far as this process has read, a leftover
// may serve request: when none may, none was added since (only a killed
// process or a lost run adds leftovers, never a run in progress).
func (j *Journal) mayServe(request string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	_, ok := j.takeableLocked(request)
	return ok
}

// takeableLocked is the oldest leftover Claim may take for request; j.mu
// is held.
func (j *Journal) takeableLocked(request string) (Leftover, bool) {
	for _, l := range j.view.leftovers(j.lostRun, j.process) {
		if j.Serves(l, request) && j.view.vouchedFor(l) {
			return l, true
		}
	}
	return Leftover{}, false
}

// Serves reports whether leftover l may stand for a create asking for
// request, as far as the journal alone can tell: the same request, this
// process's service, a run not older than StaleAfter.
func (j *Journal) Serves(l Leftover, request string) bool {
	return (l.Request == request || l.Also == request) && l.Service == j.service && j.now().Sub(l.Run) < StaleAfter
}

// reloadLocked folds the whole file again, with what other processes
// wrote since Open; j.mu is held. This process's records are all on disk
// first.
func (j *Journal) reloadLocked() error {
	if err := j.w.wait(j.w.tickets()); err != nil {
		return err
	}
	data, err := os.ReadFile(j.path)
	if err != nil {
		return err
	}
	records, err := decodeAll(data)
	if err != nil {
		return fmt.Errorf("the journal %s was damaged while in use: %w", j.path, err)
	}
	j.view = newView()
	for i, r := range records {
		if i > 0 {
			j.view.apply(i, r)
		}
	}
	j.index = len(records)
	return nil
}

// End records that this process ended as Terraform ends its providers:
// whole says it saw every subscription its state held (no -target), and
// applied that it applied changes. A process that wrote nothing writes
// nothing. End then closes the journal.
func (j *Journal) End(whole, applied bool) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.ended {
		return nil
	}
	var err error
	if j.started {
		err = j.appendLocked(record{Kind: kindEnd, Whole: whole, Applied: applied})
	}
	j.ended = true
	return errors.Join(err, j.file.Close())
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
	return j.file.Close()
}

// appendLocked writes records (this process's start first, if not yet
// written) and waits until they are on disk; j.mu is held, and released
// while waiting so that other records join the same write.
func (j *Journal) appendLocked(records ...record) error {
	if j.ended {
		return errors.New("the journal is closed")
	}
	if !j.started {
		j.started = true
		records = slices.Insert(records, 0, record{Kind: kindStart, PID: os.Getpid(), PPID: os.Getppid(), Service: j.service})
	}
	now := j.now().UnixMilli()
	for i := range records {
		records[i].At = now
	}
	return j.writeLocked(j.process, records)
}

// writeLocked writes records as process's, folds them into the view, and
// waits until they are on disk; j.mu is held, and released while waiting
// so that other records join the same write.
func (j *Journal) writeLocked(process string, records []record) error {
	var lines []byte
	for _, r := range records {
		r.Process = process
		line, err := encode(r)
		if err != nil {
			return err
		}
		lines = append(lines, line...)
		j.view.apply(j.index, r)
		j.index++
	}
	if len(lines) == 0 {
		return nil
	}
	ticket := j.w.queue(lines)
	j.mu.Unlock()
	err := j.w.wait(ticket)
	j.mu.Lock()
	return err
}
