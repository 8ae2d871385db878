//go:build linux

package journal

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

// Orphans' rows: a provider whose Terraform is gone, still running and
// writing the answers of the creates it had sent, is waited for while it
// wrote lately (Tuning.FinishingWithin).
func orphanRows() []row {
	orphans := func(tune Tuning, since time.Duration) (int, error) {
		// A parent that is gone: a process started and waited for.
		gone := exec.Command("true")
		if err := gone.Run(); err != nil {
			return 0, err
		}
		dir, err := os.MkdirTemp("", "journal")
		if err != nil {
			return 0, err
		}
		defer os.RemoveAll(dir)
		path := dir + "/default.journal"
		c := &clock{now: t0}
		// The orphan: this process, as the journal sees it, its parent gone.
		orphan, err := Open(path, here, svc, Options{Now: c.Now, Tuning: tune, Parent: gone.Process.Pid})
		if err != nil {
			return 0, err
		}
		if err := orphan.NewCreate(byID, time.Minute).Sending(); err != nil {
			return 0, err
		}
		c.add(since)
		looker, err := Open(path, here, svc, Options{Now: c.Now, Tuning: tune, pid: 1 << 30, Parent: 1<<30 + 1})
		if err != nil {
			return 0, err
		}
		defer looker.Close()
		n := looker.Orphans()
		_ = orphan.Close()
		return n, nil
	}
	return []row{
		{"an orphan that wrote 9 minutes ago is waited for", func(tune Tuning) string {
			if n, err := orphans(tune, 9*time.Minute); n != 1 || err != nil {
				return fmt.Sprintf("%d orphans (%v), want 1", n, err)
			}
			return ""
		}},
		{"an orphan that wrote 11 minutes ago is not: it would have recorded its answers by then", func(tune Tuning) string {
			if n, err := orphans(tune, 11*time.Minute); n != 0 || err != nil {
				return fmt.Sprintf("%d orphans (%v), want none", n, err)
			}
			return ""
		}},
	}
}

func TestOrphans(t *testing.T) {
	for _, r := range orphanRows() {
		if problem := r.check(DefaultTuning); problem != "" {
			t.Errorf("%s: %s", r.rule, problem)
		}
	}
}
