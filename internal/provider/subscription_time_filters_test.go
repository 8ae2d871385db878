package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// expiryFixture is an account whose subscriptions expire at days apart,
// against the emulator's clock, which runs two days ahead of the wall
// clock (the clock plantimestamp() reads): expired (a day ago by the
// service's clock, a day after the wall clock), expiring in 3 days (5
// after the wall clock), in 30 days, and not yet active (no expire_at).
type expiryFixture struct {
	srv                             *emulatortest.Server
	expired, soon, later, notActive *client.Subscription
	serviceNow                      time.Time
}

func startExpiryFixture(t *testing.T) expiryFixture {
	t.Helper()
	srv := startEmulator(t)
	inline := func(days int64) client.CreateSubscriptionRequest {
		return client.CreateSubscriptionRequest{Plan: &client.InlinePlan{CoverageID: "cov-eu", DataMBs: 100 + days, PeriodDays: days}}
	}
	f := expiryFixture{srv: srv}
	f.expired = prototest.CreateAt(t, srv, inline(1))
	activate := func(s *client.Subscription) {
		if err := srv.Activate(s.ID); err != nil {
			t.Fatal(err)
		}
	}
	activate(f.expired)
	if _, err := srv.AdvanceClock(2 * 24 * 3600); err != nil {
		t.Fatal(err)
	}
	f.soon, f.later, f.notActive = prototest.CreateAt(t, srv, inline(3)), prototest.CreateAt(t, srv, inline(30)), prototest.CreateAt(t, srv, inline(2))
	activate(f.soon)
	activate(f.later)
	f.serviceNow = time.Unix(srv.Now(), 0)
	if s := createdSubscription(t, srv, f.expired.ID); s.State != client.StateExpired {
		t.Fatalf("the first subscription is %s, want expired", s.State)
	}
	return f
}

// expires_before keeps exactly the subscriptions whose expire_at is before
// it: a timestamp written out, and this week from plantimestamp(); never
// one without expire_at, even with a time far ahead; and it combines with
// state.
func TestAccSubscriptionsDataSource_expiresBefore(t *testing.T) {
	t.Parallel()
	f := startExpiryFixture(t)
	ts := func(d time.Duration) string { return f.serviceNow.Add(d).UTC().Format(time.RFC3339) }
	config := fmt.Sprintf(`
data "mobileplan_subscriptions" "in_a_day" { expires_before = %q }
data "mobileplan_subscriptions" "this_week" { expires_before = timeadd(plantimestamp(), "168h") }
data "mobileplan_subscriptions" "century" { expires_before = %q }
data "mobileplan_subscriptions" "active_this_week" {
  state          = "active"
  expires_before = timeadd(plantimestamp(), "168h")
}
data "mobileplan_subscriptions" "at_expiry" { expires_before = %q }
`, ts(24*time.Hour), ts(100*365*24*time.Hour), time.Unix(*createdSubscription(t, f.srv, f.soon.ID).ExpireAt, 0).UTC().Format(time.RFC3339))
	testAccDataSource(t, f.srv, config,
		statecheck.ExpectKnownValue("data.mobileplan_subscriptions.in_a_day", at("ids"), stringList([]string{f.expired.ID})),
		statecheck.ExpectKnownValue("data.mobileplan_subscriptions.this_week", at("ids"), stringList([]string{f.soon.ID, f.expired.ID})),
		statecheck.ExpectKnownValue("data.mobileplan_subscriptions.century", at("ids"), stringList([]string{f.later.ID, f.soon.ID, f.expired.ID})),
		statecheck.ExpectKnownValue("data.mobileplan_subscriptions.active_this_week", at("ids"), stringList([]string{f.soon.ID})),
		// Before, not at: the one expiring at that second is left out.
		statecheck.ExpectKnownValue("data.mobileplan_subscriptions.at_expiry", at("ids"), stringList([]string{f.expired.ID})),
	)
}

// A value that is no RFC 3339 timestamp is refused at plan time, on the
// attribute, before any request: written out, and computed at plan time.
func TestAccSubscriptionsDataSource_expiresBeforeValidated(t *testing.T) {
	t.Parallel()
	for name, value := range map[string]string{
		"literal":     `"next week"`,
		"date only":   `"2026-12-01"`,
		"from a call": `formatdate("YYYY-MM-DD", plantimestamp())`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := startEmulator(t)
			testAccPlanError(t, srv, `data "mobileplan_subscriptions" "x" { expires_before = `+value+` }`,
				errorPattern("Invalid timestamp", "expires_before must be an RFC 3339 timestamp"))
			expectNoRequests(t, srv, "an invalid expires_before")
		})
	}
}

// The list resource filters the same way, for `terraform query`.
func TestAccSubscription_queryExpiresBefore(t *testing.T) {
	t.Parallel()
	acctest.RequireCLI(t, acctest.Query)
	f := startExpiryFixture(t)
	id := func(s *client.Subscription) map[string]knownvalue.Check {
		return map[string]knownvalue.Check{"id": knownvalue.StringExact(s.ID)}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{Config: withProvider(f.srv, "")},
			{
				Query: true,
				Config: fmt.Sprintf(`
list "mobileplan_subscription" "in_a_day" {
  provider = mobileplan
  config {
    expires_before = %q
  }
}

list "mobileplan_subscription" "active_this_week" {
  provider = mobileplan
  config {
    state          = "active"
    expires_before = %q
  }
}

list "mobileplan_subscription" "century" {
  provider = mobileplan
  config {
    expires_before = %q
  }
}
`, f.serviceNow.Add(24*time.Hour).UTC().Format(time.RFC3339), f.serviceNow.Add(5*24*time.Hour).UTC().Format(time.RFC3339),
					f.serviceNow.Add(100*365*24*time.Hour).UTC().Format(time.RFC3339)),
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("mobileplan_subscription.in_a_day", 1),
					querycheck.ExpectIdentity("mobileplan_subscription.in_a_day", id(f.expired)),
					querycheck.ExpectLength("mobileplan_subscription.active_this_week", 1),
					querycheck.ExpectIdentity("mobileplan_subscription.active_this_week", id(f.soon)),
					querycheck.ExpectLength("mobileplan_subscription.century", 3),
					querycheck.ExpectIdentity("mobileplan_subscription.century", id(f.expired)),
					querycheck.ExpectIdentity("mobileplan_subscription.century", id(f.soon)),
					querycheck.ExpectIdentity("mobileplan_subscription.century", id(f.later)),
				},
			},
		},
	})
}

// The list resource's expires_before, through the provider server, on any
// CLI: exactly what expires before it, newest first; never one without
// expire_at.
func TestListResource_expiresBefore(t *testing.T) {
	t.Parallel()
	f := startExpiryFixture(t)
	s := newListServer(t, f.srv)
	ts := func(d time.Duration) string { return f.serviceNow.Add(d).UTC().Format(time.RFC3339) }
	for _, tc := range []struct {
		filters map[string]string
		want    []string
	}{
		{map[string]string{"expires_before": ts(24 * time.Hour)}, []string{f.expired.ID}},
		{map[string]string{"expires_before": ts(5 * 24 * time.Hour)}, []string{f.soon.ID, f.expired.ID}},
		{map[string]string{"expires_before": ts(100 * 365 * 24 * time.Hour)}, []string{f.later.ID, f.soon.ID, f.expired.ID}},
		{map[string]string{"expires_before": ts(5 * 24 * time.Hour), "state": "active"}, []string{f.soon.ID}},
	} {
		if got := ids(t, s.list(tc.filters, 0, false)); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%v: listed %v, want %v", tc.filters, got, tc.want)
		}
	}
}
