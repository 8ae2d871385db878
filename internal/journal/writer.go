package journal

import (
	"os"
	"sync"
)

// writer appends lines to the journal's file and syncs them, several
// callers' lines in one write and one sync: a create waits for its record
// to be on disk before it is sent, and a thousand creates that each paid
// for a sync of their own would spend seconds on them.
type writer struct {
	file *os.File

	mu      sync.Mutex
	cond    *sync.Cond
	pending []byte
	queued  uint64 // tickets handed out
	synced  uint64 // tickets on disk
	busy    bool   // a caller is writing for all
	err     error  // the first failure; every later wait returns it
}

// queue adds lines to the next write and returns the ticket to wait for.
func (w *writer) queue(lines []byte) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, lines...)
	w.queued++
	return w.queued
}

// wait returns once the lines of ticket are on disk, writing them itself
// when no other caller is.
func (w *writer) wait(ticket uint64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cond == nil {
		w.cond = sync.NewCond(&w.mu)
	}
	for w.synced < ticket && w.err == nil {
		if w.busy {
			w.cond.Wait()
			continue
		}
		w.busy = true
		lines, upTo := w.pending, w.queued
		w.pending = nil
		w.mu.Unlock()
		_, err := w.file.Write(lines)
		if err == nil {
			err = w.file.Sync()
		}
		w.mu.Lock()
		w.busy = false
		if err != nil {
			w.err = err
		} else {
			w.synced = upTo
		}
		w.cond.Broadcast()
	}
	if w.synced >= ticket {
		return nil
	}
	return w.err
}

// tickets is the last ticket handed out.
func (w *writer) tickets() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.queued
}

// write writes lines and waits for them.
func (w *writer) write(lines []byte) error { return w.wait(w.queue(lines)) }
