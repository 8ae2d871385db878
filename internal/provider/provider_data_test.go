package provider

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

// slowedClient is a client the service's rate limit has held back 4 s.
// Call it inside a synctest bubble.
func slowedClient(t *testing.T) *client.Client {
	t.Helper()
	emu := emulatortest.StartInProcess(t, emulator.Options{Token: emulatortest.Token})
	emu.SetFaults(emulator.Faults{RetryAfterSeconds: 4, Rules: []emulator.FaultRule{{Method: "GET", PathPrefix: "/v1/plans", Action: "status", Status: 429, Times: 1}}})
	c, err := client.New(client.Config{BaseURL: emulatortest.URL, Token: emulatortest.Token, Transport: emu.Transport(), UserAgent: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetPlan(context.Background(), "plan_001"); err != nil {
		t.Fatal(err)
	}
	if held := c.RateLimitSlowdown().Held; held < 4*time.Second {
		t.Fatalf("held %v, want 4s", held)
	}
	return c
}

func warnings(d diag.Diagnostics) int { return d.WarningsCount() }

// The rate-limit warning comes once, from the run's last operation: an
// operation that ends with none other in flight waits lastOperationGrace
// for another, which takes the warning over if it starts; a create's plan
// in a process that has applied a create is never the last.
func TestRateLimitWarningComesFromTheLastOperation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		nextAfter  time.Duration // when the next operation starts; 0: none
		kind       operationKind
		applied    bool
		wantWarned bool
		wantHeld   time.Duration // how long the first operation's end took
	}{
		{name: "the last: warns after the grace", wantWarned: true, wantHeld: 500 * time.Millisecond},
		{name: "another starts within the grace: it takes the warning over", nextAfter: 300 * time.Millisecond, wantHeld: 300 * time.Millisecond},
		{name: "another starts after the grace: too late", nextAfter: 700 * time.Millisecond, wantWarned: true, wantHeld: 500 * time.Millisecond},
		{name: "a create's plan after a create was applied: never the last", kind: kindPlan, applied: true},
		{name: "a create's plan before any apply: may be the last", kind: kindPlan, wantWarned: true, wantHeld: 500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				o := newOperations(slowedClient(t))
				if tc.applied {
					o.applying()(&diag.Diagnostics{})
				}
				end := o.begin(tc.kind)
				var next sync.WaitGroup
				defer next.Wait()
				if tc.nextAfter > 0 {
					next.Go(func() {
						time.Sleep(tc.nextAfter)
						o.operation() // under way until the test ends
					})
				}
				var d diag.Diagnostics
				start := time.Now()
				end(&d)
				if warned := warnings(d) == 1; warned != tc.wantWarned || time.Since(start) != tc.wantHeld {
					t.Errorf("warned %v after %v, want %v after %v", warned, time.Since(start), tc.wantWarned, tc.wantHeld)
				}
			})
		})
	}
}
