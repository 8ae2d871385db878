package emulator

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Persistence at scale (issue 10, point 8): acknowledged creates per second
// with 10 concurrent clients, and the time a restart takes to serve again,
// both on a state of 100,000 subscriptions on 200,000 eSIMs.

const benchClients = 10

// buildBenchState writes the state straight into a database in one
// transaction: building it through 100,000 HTTP calls would take minutes.
func buildBenchState(b *testing.B, path string) {
	b.Helper()
	s := newStore(DefaultDataset(40, 2*benchSubs), time.Now)
	for range benchSubs {
		if _, apiErr := s.create(&change{}, createInput{PlanID: benchPlan}); apiErr != nil {
			b.Fatal(apiErr.Message)
		}
	}
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := writeState(db, s); err != nil {
		b.Fatal(err)
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
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
