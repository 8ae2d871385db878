package state

import (
	"encoding/json"
	"fmt"
	"testing"
)

// The test kit of this package: testDataset for a state to start from,
// dumpOf for comparing whole states, and (boltfile_test.go) writeStateFile
// and openWithin for state files bbolt wrote.

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
