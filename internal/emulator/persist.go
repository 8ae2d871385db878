package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// snapshot is the -state file: everything the store holds, including the
// cursor key so that cursors handed out before a restart stay valid.
type snapshot struct {
	Version       int             `json:"version"`
	CursorKey     []byte          `json:"cursorKey"`
	ClockOffset   int64           `json:"clockOffset"`
	CustomPlans   int             `json:"customPlans"`
	Plans         []Plan          `json:"plans"`
	Esims         []Esim          `json:"esims"`
	Subscriptions []*subscription `json:"subscriptions"`
}

const snapshotVersion = 1

// snapshotLocked copies the store; the caller holds s.mu.
func (s *store) snapshotLocked() snapshot {
	snap := snapshot{
		Version:       snapshotVersion,
		CursorKey:     s.cursorKey,
		ClockOffset:   s.clockOffset,
		CustomPlans:   s.custom,
		Plans:         make([]Plan, len(s.plans)),
		Esims:         make([]Esim, len(s.esims)),
		Subscriptions: s.subs,
	}
	for i, p := range s.plans {
		snap.Plans[i] = *p
	}
	for i, e := range s.esims {
		snap.Esims[i] = *e
	}
	return snap
}

// save writes the state file atomically: a crash leaves either the old file
// or the new one, never half of one.
func (s *store) save(path string) error {
	s.mu.Lock()
	raw, err := json.Marshal(s.snapshotLocked()) // under the lock: subscriptions are shared pointers
	s.mu.Unlock()
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// restore loads a state file into the store. It reports false when there is
// no file yet.
func (s *store) restore(path string) (bool, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var snap snapshot
	if err := json.Unmarshal(raw, &snap); err != nil {
		return false, fmt.Errorf("state file %s: %w", path, err)
	}
	if snap.Version != snapshotVersion {
		return false, fmt.Errorf("state file %s: version %d, want %d", path, snap.Version, snapshotVersion)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load(Dataset{Plans: snap.Plans, Esims: snap.Esims}, snap.Subscriptions, snap.CustomPlans, snap.ClockOffset)
	if len(snap.CursorKey) > 0 {
		s.cursorKey = snap.CursorKey
	}
	return true, nil
}
