package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider"
)

// Renewal (subscription_renewal.go) compares a subscription's expire_at with
// "now". The service's API has no clock to ask, so that is the provider's
// own: the wall clock, unless the provider was built with another. Tests
// build it with the emulator's clock (time.Unix(srv.Now(), 0)), so that
// moving the emulator's clock forward moves the service's expiry and the
// provider's renewal window in step, and each test decides exactly which
// subscriptions are due, without waiting and without a margin of error.

// clock is the provider's clock: the one it was built with, or the wall
// clock.
func (p *mobileplanProvider) clock() func() time.Time {
	if p.now != nil {
		return p.now
	}
	return time.Now
}

// newWithClock is NewWithLifetime for a provider whose renewal reads now
// from the given clock.
func newWithClock(lifetime context.Context, version string, now func() time.Time) func() provider.Provider {
	return func() provider.Provider { return &mobileplanProvider{version: version, lifetime: lifetime, now: now} }
}
