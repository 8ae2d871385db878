package prototest

import (
	"context"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

// ServiceClient is a client of srv, for tests that look at the service
// without Terraform.
func ServiceClient(tb testing.TB, srv *emulatortest.Server) *client.Client {
	tb.Helper()
	c, err := client.New(client.Config{BaseURL: srv.URL, Token: srv.Token})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// CreateAt makes a subscription the way an existing account has them:
// through the API, not Terraform.
func CreateAt(tb testing.TB, srv *emulatortest.Server, req client.CreateSubscriptionRequest) *client.Subscription {
	tb.Helper()
	sub, err := ServiceClient(tb, srv).CreateSubscription(context.Background(), req)
	if err != nil {
		tb.Fatal(err)
	}
	return sub
}
