package fastpath

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// identityType is the type of mobileplan_subscription's identity, as server
// declares it.
func identityType(tb testing.TB, server tfprotov6.ProviderServer) tftypes.Type {
	tb.Helper()
	resp, err := server.GetResourceIdentitySchemas(context.Background(), &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil || len(resp.Diagnostics) > 0 || resp.IdentitySchemas[subscriptionType] == nil {
		tb.Fatalf("identity schema: %v %v", err, resp)
	}
	return resp.IdentitySchemas[subscriptionType].ValueType()
}
