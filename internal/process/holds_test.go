package process

import (
	"testing"
	"time"
)

// The process outlives Terraform exactly as long as the work it holds:
// not at all when none is held, until the last release otherwise, and
// never past the limit.
func TestDrainWaitsForHeldWorkOnly(t *testing.T) {
	var h holds
	start := time.Now()
	h.drain(time.Hour)
	if d := time.Since(start); d > time.Second {
		t.Errorf("drain with nothing held took %s", d)
	}

	first, second := h.add(), h.add()
	released := make(chan struct{})
	go func() {
		first()
		first() // a second release of the same hold counts once
		time.Sleep(50 * time.Millisecond)
		close(released)
		second()
	}()
	h.drain(time.Hour)
	select {
	case <-released:
	default:
		t.Error("drain returned while work was still held")
	}

	h.add() // never released
	start = time.Now()
	h.drain(100 * time.Millisecond)
	if d := time.Since(start); d < 100*time.Millisecond || d > 5*time.Second {
		t.Errorf("drain past its limit returned after %s, want about 100ms", d)
	}
}
