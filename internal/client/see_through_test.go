package client

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
)

// A create whose request reached the service is answered even when its
// caller stops waiting: the service acts on it, so the subscription must
// come back to be recorded, not be left where no state knows it.
func TestCreateSentIsSeenThroughWhenTheCallerStops(t *testing.T) {
	t.Parallel()
	emu, c := startWithClient(t, nil)
	emu.SetFaults(emulator.Faults{LatencyMs: 400})
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		for emu.RequestCounts()["POST /v1/subscriptions"] == 0 {
			time.Sleep(time.Millisecond)
		}
		stop() // while the service holds the answer back
	}()
	sub, err := c.CreateSubscription(ctx, CreateSubscriptionRequest{PlanID: "plan_001"})
	if err != nil {
		t.Fatalf("create stopped after it was sent: %v; the service has %d subscription(s) that the caller does not know", err, emu.Stats().Subscriptions)
	}
	if ctx.Err() == nil {
		t.Fatal("the caller had not stopped before the answer; the test proves nothing")
	}
	if sub.ID == "" || emu.Stats().Subscriptions != 1 {
		t.Errorf("got %+v with %d subscriptions at the service, want the one created", sub, emu.Stats().Subscriptions)
	}
}

// Work not yet sent stops at once when the caller stops: a create waiting
// out the service's Retry-After is not sent afterwards, and ends with the
// caller's reason.
func TestCreateWaitingForTheQuotaStopsWithTheCaller(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		emu, c := startInProcess(t, emulator.Options{}, nil)
		emu.SetFaults(emulator.Faults{RetryAfterSeconds: 30, Rules: []emulator.FaultRule{{Method: "POST", Action: "status", Status: 429, Times: 1}}})
		ctx, stop := context.WithCancel(context.Background())
		time.AfterFunc(2*time.Second, stop)
		start := time.Now()
		_, err := c.CreateSubscription(ctx, CreateSubscriptionRequest{PlanID: "plan_001"})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want the caller's cancellation", err)
		}
		var uncertain *UncertainCreateError
		if errors.As(err, &uncertain) {
			t.Errorf("err = %v: a create never sent is not uncertain", err)
		}
		if waited := time.Since(start); waited != 2*time.Second {
			t.Errorf("returned after %v, want 2s: at once when stopped", waited)
		}
		time.Sleep(time.Minute)
		if n := emu.RequestCounts()["POST /v1/subscriptions"]; n != 1 || emu.Stats().Subscriptions != 0 {
			t.Errorf("%d creates sent and %d subscriptions, want the one refused and none", n, emu.Stats().Subscriptions)
		}
	})
}
