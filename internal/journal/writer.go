package journal

import (
	"os"
	"sync"
	"time"
)

// writer appends lines to the journal's file, several callers' lines in
// one write, and syncs them to disk within syncWithin of their write. A
// record is written before what it records goes on (a create's before its
// request is written), which a killed process, the provider's or its
// CLI's, cannot undo: what a process wrote is in the file for the next
// one. A sync is for a machine that loses power or crashes, and costs
// about as much CPU as a small request: a thousand creates that each
// waited for one spent 14% of a clean apply's CPU on them (make
// bench-recovery), where one sync for every syncWithin of records costs
// nothing measurable.
type writer struct {
	file *os.File
	// afterFunc is the clock's: it runs f after d, in a goroutine of its
	// own, and returns what stops it.
	afterFunc func(d time.Duration, f func()) (stop func() bool)
	// syncWithin bounds how long a record written stays off the disk
	// (Tuning.SyncWithin).
	syncWithin time.Duration

	mu      sync.Mutex
	cond    *sync.Cond
	pending []byte
	queued  uint64 // tickets handed out
	written uint64 // tickets written
	synced  uint64 // tickets on disk
	busy    bool   // a caller is writing for all
	flush   func() bool
	err     error // the first failure; every later wait returns it
}

// queue adds lines to the next write and returns the ticket to wait for.
func (w *writer) queue(lines []byte) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, lines...)
	w.queued++
	return w.queued
}

// wait returns once the lines of ticket are written, writing them itself
// when no other caller is, and sees that they are synced within
// syncWithin.
func (w *writer) wait(ticket uint64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cond == nil {
		w.cond = sync.NewCond(&w.mu)
	}
	for w.written < ticket && w.err == nil {
		if w.busy {
			w.cond.Wait()
			continue
		}
		w.busy = true
		lines, upTo := w.pending, w.queued
		w.pending = nil
		w.mu.Unlock()
		_, err := w.file.Write(lines)
		w.mu.Lock()
		w.busy = false
		if err != nil {
			w.err = err
		} else {
			w.written = upTo
		}
		w.cond.Broadcast()
	}
	if w.written < ticket {
		return w.err
	}
	if w.synced < w.written && w.flush == nil && w.afterFunc != nil {
		w.flush = w.afterFunc(w.syncWithin, w.syncWritten)
	}
	return nil
}

// queueLater adds lines to the next write without waiting for it: they go
// with the next caller's write, or the clock writes them within
// syncWithin. For a record whose loss to a kill costs only a look at the
// service (a create's answer): half the writes of a clean apply.
func (w *writer) queueLater(lines []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, lines...)
	w.queued++
	if w.flush == nil && w.afterFunc != nil {
		w.flush = w.afterFunc(w.syncWithin, w.syncWritten)
	}
}

// syncWritten writes what is queued and syncs it; the clock calls it.
func (w *writer) syncWritten() {
	w.mu.Lock()
	w.flush = nil
	upTo := w.queued
	w.mu.Unlock()
	if w.wait(upTo) != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = w.syncLocked()
}

// syncLocked syncs what is written, now; w.mu is held. A failure is
// every later wait's.
func (w *writer) syncLocked() error {
	if w.err != nil || w.synced >= w.written {
		return w.err
	}
	upTo := w.written
	if err := w.file.Sync(); err != nil {
		w.err = err
		return err
	}
	w.synced = upTo
	return nil
}

// close writes what is queued, syncs it, and stops the clock's sync.
func (w *writer) close() error {
	err := w.wait(w.tickets())
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.flush != nil {
		w.flush()
		w.flush = nil
	}
	if err == nil {
		err = w.syncLocked()
	}
	return err
}

// tickets is the last ticket handed out.
func (w *writer) tickets() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.queued
}

// write writes lines, synced at once, and waits for them.
func (w *writer) write(lines []byte) error {
	if err := w.wait(w.queue(lines)); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.syncLocked()
}

// afterFunc is time.AfterFunc, as the writer's clock.
func afterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
