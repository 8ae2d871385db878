package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// fakeTimers is the writer's clock in a test: it holds what it was asked
// to run, for the test to run.
type fakeTimers struct {
	mu      sync.Mutex
	pending []func()
	after   []time.Duration
}

func (c *fakeTimers) afterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = append(c.pending, f)
	c.after = append(c.after, d)
	i := len(c.pending) - 1
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		stopped := c.pending[i] != nil
		c.pending[i] = nil
		return stopped
	}
}

func (c *fakeTimers) fire() int {
	c.mu.Lock()
	fs := c.pending
	c.pending = nil
	c.mu.Unlock()
	n := 0
	for _, f := range fs {
		if f != nil {
			f()
			n++
		}
	}
	return n
}

// A record is in the file as soon as it is written, whatever kills the
// process next; it is synced once for everything written within
// syncWithin, and at close.
func TestWriterSyncsWithinItsBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "default.journal")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeTimers{}
	w := &writer{file: f, afterFunc: clock.afterFunc, syncWithin: DefaultTuning.SyncWithin}
	for _, line := range []string{"a\n", "b\n", "c\n"} {
		if err := w.wait(w.queue([]byte(line))); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "a\nb\nc\n" {
		t.Errorf("the file holds %q before any sync", b)
	}
	if w.synced != 0 || len(clock.after) != 1 || clock.after[0] != DefaultTuning.SyncWithin {
		t.Errorf("synced %d, timers %v: want none synced yet and one sync due in %v", w.synced, clock.after, DefaultTuning.SyncWithin)
	}
	if clock.fire() != 1 || w.synced != 3 {
		t.Errorf("after the timer: %d synced, want 3", w.synced)
	}
	_ = w.wait(w.queue([]byte("d\n")))
	if err := w.close(); err != nil || w.synced != 4 {
		t.Errorf("close: %v, %d synced, want 4", err, w.synced)
	}
	if clock.fire() != 0 {
		t.Error("the sync due after d ran after close stopped it")
	}
}

// The writer's rows: when it syncs what it wrote, under a tuning.
func writerRows() []row {
	syncDue := func(tune Tuning) (time.Duration, error) {
		f, err := os.CreateTemp("", "journal")
		if err != nil {
			return 0, err
		}
		defer func() { _ = os.Remove(f.Name()); _ = f.Close() }()
		clock := &fakeTimers{}
		w := &writer{file: f, afterFunc: clock.afterFunc, syncWithin: tune.SyncWithin}
		if err := w.wait(w.queue([]byte("a\n"))); err != nil {
			return 0, err
		}
		return clock.after[0], nil
	}
	return []row{
		{"a record written is on disk within a fifth of a second (what a machine that crashes may lose)", func(tune Tuning) string {
			due, err := syncDue(tune)
			if err != nil || due > 200*time.Millisecond {
				return fmt.Sprintf("the sync is due %v after the write (%v)", due, err)
			}
			return ""
		}},
		{"the writer syncs at most five times a second (a sync per create cost 14% of an apply's CPU)", func(tune Tuning) string {
			due, err := syncDue(tune)
			if err != nil || due < 200*time.Millisecond {
				return fmt.Sprintf("the sync is due %v after the write (%v)", due, err)
			}
			return ""
		}},
	}
}
