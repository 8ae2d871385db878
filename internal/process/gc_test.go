package process

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestTuneGC(t *testing.T) {
	// Not parallel: the settings are the process's.
	restore := func(percent int, limit int64) {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
	for name, c := range map[string]struct {
		env         map[string]string
		wantPercent int
		wantLimit   int64
	}{
		"nothing set":     {env: nil, wantPercent: gcPercent, wantLimit: gcMemoryLimit},
		"GOGC set":        {env: map[string]string{"GOGC": "100"}, wantPercent: 100, wantLimit: math.MaxInt64},
		"GOMEMLIMIT set":  {env: map[string]string{"GOMEMLIMIT": "1GiB"}, wantPercent: 100, wantLimit: math.MaxInt64},
		"both set, empty": {env: map[string]string{"GOGC": "", "GOMEMLIMIT": ""}, wantPercent: gcPercent, wantLimit: gcMemoryLimit},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			// The state a user's settings would have made, here the defaults.
			percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
			defer restore(percent, limit)
			tuneGC()
			if got := debug.SetGCPercent(100); got != c.wantPercent {
				t.Errorf("GC percent %d, want %d", got, c.wantPercent)
			}
			if got := debug.SetMemoryLimit(-1); got != c.wantLimit {
				t.Errorf("memory limit %d, want %d", got, c.wantLimit)
			}
		})
	}
}
