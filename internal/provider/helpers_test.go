package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

// errorPattern matches output holding each part in order. Terraform wraps
// diagnostic text at 80 columns, so a space in a part matches any run of
// white space.
func errorPattern(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, ".*"))
}

var planCustom = regexp.MustCompile(`^plan_custom_`)

// A data set spanning several pages of 25 in every list.
const (
	manyPlans         = 60
	manyEsims         = 110
	manySubscriptions = 30
)

type listFixture struct {
	srv     *emulatortest.Server
	dataset emulator.Dataset
	subIDs  []string // newest first, as the service lists them
}

func startListFixture(t *testing.T) listFixture {
	t.Helper()
	ds := emulator.DefaultDataset(manyPlans, manyEsims)
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	f := listFixture{srv: srv, dataset: ds}
	for i := range manySubscriptions {
		planID := []string{"plan_010", "plan_001", "plan_002"}[i%3] // no label (any eSIM), global, europe
		sub := createOutsideTerraform(t, srv, client.CreateSubscriptionRequest{PlanID: planID})
		f.subIDs = append([]string{sub.ID}, f.subIDs...)
	}
	return f
}

func stringList(values []string) knownvalue.Check {
	checks := make([]knownvalue.Check, len(values))
	for i, v := range values {
		checks[i] = knownvalue.StringExact(v)
	}
	return knownvalue.ListExact(checks)
}

func label(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// keysOf is the key of each item that keep accepts, in order: what a list
// data source should find.
func keysOf[T any](items []T, keep func(T) bool, key func(T) string) []string {
	var keys []string
	for _, it := range items {
		if keep(it) {
			keys = append(keys, key(it))
		}
	}
	return keys
}

// serviceClient is a client of srv, for tests that look at the service
// without Terraform.
func serviceClient(t *testing.T, srv *emulatortest.Server) *client.Client {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: srv.URL, Token: srv.Token})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func createdSubscription(t *testing.T, srv *emulatortest.Server, id string) *client.Subscription {
	t.Helper()
	sub, err := serviceClient(t, srv).GetSubscription(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}
