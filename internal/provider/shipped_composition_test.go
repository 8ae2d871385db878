package provider_test

import (
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/fastpath"
)

// What main.go serves is what the acceptance tests run (composition_test.go).
func init() { provider.ServeShippedComposition(fastpath.NewProtocol6) }
