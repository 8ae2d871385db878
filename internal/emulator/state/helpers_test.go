package state

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
)

// The test kit of this package: testDataset and prepare for a state to
// start from, dumpOf and reopenedDump for comparing whole states, and
// (format_test.go) writeStateFile and openWithin for state files bbolt
// wrote.

// testDataset has plans plans, every third with the label "europe", and
// esims free eSIMs, every second labelled "europe".
func testDataset(plans, esims int) Dataset {
	var ds Dataset
	for i := range plans {
		p := Plan{ID: fmt.Sprintf("plan_%03d", i+1), Name: fmt.Sprintf("plan %d", i+1), DataMegaBytes: 1024, PeriodDays: 30, PeriodIterations: 1}
		if i%3 == 2 {
			p.Label = ptr("europe")
		}
		ds.Plans = append(ds.Plans, p)
	}
	for i := range esims {
		e := Esim{ICCID: ICCID(uint64(i + 1)), SmdpState: "AVAILABLE"}
		if i%2 == 1 {
			e.Label = ptr("europe")
		}
		ds.Esims = append(ds.Esims, e)
	}
	return ds
}

// dump is all a store holds, readable or not (the custom plans' count), as
// JSON taken at once: a later change of the state cannot reach it.
type dump struct {
	Plans         []Plan
	Esims         []Esim
	Subscriptions []Subscription
	ClockOffset   int64
	CustomPlans   int
}

func dumpOf(t *testing.T, s *Store) string {
	t.Helper()
	var d dump
	s.View(func(r *ReadTx) {
		for p := range r.Plans() {
			d.Plans = append(d.Plans, p)
		}
		for e := range r.Esims() {
			d.Esims = append(d.Esims, e)
		}
		for sub := range r.Subscriptions() {
			d.Subscriptions = append(d.Subscriptions, sub)
		}
		d.ClockOffset = r.ClockOffset()
		d.CustomPlans = r.s.custom
	})
	b, err := json.MarshalIndent(d, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// prepare opens a store at path (memory only when empty) holding a
// subscription, with beforeCommit as its commit hook.
func prepare(t *testing.T, path string, beforeCommit func() error) *Store {
	t.Helper()
	s, err := Open(Options{Path: path, Dataset: testDataset(4, 6), BeforeCommit: beforeCommit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Update(txOperations["Subscribe"]); err != nil {
		t.Fatal(err)
	}
	return s
}

// reopen opens the store file at path again.
func reopen(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// reopenedDump closes s and dumps what a store reopened from its file holds.
func reopenedDump(t *testing.T, s *Store, path string) string {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dumpOf(t, reopen(t, path))
}

// storePath is where a test's store keeps its file: none ("") for
// "memory", a fresh file for "file".
func storePath(t *testing.T, where string) string {
	if where == "memory" {
		return ""
	}
	return filepath.Join(t.TempDir(), "state.db")
}
