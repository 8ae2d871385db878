package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// Persistence at scale: acknowledged creates per second
// with 10 concurrent clients, and the time a restart takes to serve again,
// both on a state of 100,000 subscriptions on 200,000 eSIMs.

const benchClients = 10

// buildBenchState writes the state as a JSON state file of earlier
// versions, which the emulator migrates: the migration writes everything
// in one transaction into a new database, as a long-running emulator's
// file would be after a restart. Building it through 100,000 HTTP calls,
// each its own commit, would take minutes.
func buildBenchState(b *testing.B, path string) {
	b.Helper()
	ds := DefaultDataset(40, 2*benchSubs)
	e, err := New(Options{Token: benchToken, Dataset: &ds})
	if err != nil {
		b.Fatal(err)
	}
	if err := e.state.Update(func(tx *state.Tx) error { return createMany(tx, benchSubs) }); err != nil {
		b.Fatal(err)
	}
	legacy := map[string]any{"version": 1, "cursorKey": bytes.Repeat([]byte{7}, 32), "clockOffset": 0, "customPlans": 0}
	e.state.View(func(r *state.ReadTx) {
		legacy["plans"] = slices.Collect(r.Plans())
		legacy["esims"] = slices.Collect(r.Esims())
		legacy["subscriptions"] = slices.Collect(r.Subscriptions())
	})
	e.Close()
	raw, err := json.Marshal(legacy)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		b.Fatal(err)
	}
	migrated, err := New(Options{Token: benchToken, StatePath: path})
	if err != nil {
		b.Fatal(err)
	}
	migrated.Close()
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	// Flushed here, or the first commit of the benchmark would pay for
	// writing the whole copy to disk.
	if err := out.Sync(); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkPersistence(b *testing.B) {
	dir := b.TempDir()
	template := filepath.Join(dir, "template.db")
	start := time.Now()
	buildBenchState(b, template)
	b.Logf("built %d subscriptions on %d eSIMs in %v", benchSubs, 2*benchSubs, time.Since(start).Round(time.Millisecond))
	run := 0
	fresh := func(b *testing.B) string {
		run++
		path := filepath.Join(dir, "state.db")
		_ = os.Remove(path)
		copyFile(b, template, path)
		return path
	}

	// Creates through the handler, answered only once committed (fsync).
	b.Run("create-10-clients", func(b *testing.B) {
		b.StopTimer()
		e, err := New(Options{Token: benchToken, StatePath: fresh(b)})
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		body := `{"planId":"` + benchPlan + `"}`
		var next atomic.Int64
		var wg sync.WaitGroup
		b.StartTimer()
		began := time.Now()
		for range benchClients {
			wg.Go(func() {
				for next.Add(1) <= int64(b.N) {
					if rec := serveBench(b, e, "POST", "/v1/subscriptions", body); rec.Code != 200 {
						b.Errorf("%d %s", rec.Code, rec.Body)
						return
					}
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(began)
		b.StopTimer()
		b.ReportMetric(float64(b.N)/elapsed.Seconds(), "creates/s")
	})

	// A restart: open the file, read and check everything, ready to serve.
	b.Run("restart", func(b *testing.B) {
		path := fresh(b)
		var total, cpu time.Duration
		for b.Loop() {
			runtime.GC() // the previous run's garbage is not this one's work
			began, cpuBegan := time.Now(), processCPU()
			e, err := New(Options{Token: benchToken, StatePath: path})
			if err != nil {
				b.Fatal(err)
			}
			total += time.Since(began)
			cpu += processCPU() - cpuBegan
			if rec := serveBench(b, e, "GET", "/v1/subscriptions?pageSize=1", ""); rec.Code != 200 {
				b.Fatalf("%d %s", rec.Code, rec.Body)
			}
			e.Close()
		}
		b.ReportMetric(total.Seconds()/float64(b.N), "s/restart")
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/restart")
	})
}
