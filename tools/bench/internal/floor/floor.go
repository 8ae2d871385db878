// Package floor is what make bench's floor providers have in common: a
// framework provider with no configuration and one resource, served under
// registry.terraform.io/bench/<type name> with the SDK's loggers quiet.
// Only the resource differs from one floor to the other.
package floor

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/mobileplan/terraform-provider-mobileplan/tools/bench/internal/quiet"
)

// Provider has no configuration: nothing to validate, no client.
type Provider struct {
	TypeName    string // the provider's name in configurations
	Description string
	Resource    func() resource.Resource
}

var _ provider.Provider = Provider{}

func (p Provider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = p.TypeName
	resp.Version = "bench"
}

func (p Provider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{Description: p.Description}
}

func (Provider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p Provider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{p.Resource}
}

func (Provider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// Serve serves p until Terraform stops it, its SDK loggers off unless
// logEnv (TF_LOG_PROVIDER_...) is set, as the mobileplan provider's are.
func Serve(p Provider, logEnv string) {
	quiet.UnlessLogging(logEnv)
	err := providerserver.Serve(context.Background(), func() provider.Provider { return p }, providerserver.ServeOpts{
		Address: "registry.terraform.io/bench/" + p.TypeName,
	})
	if err != nil {
		log.Fatal(err)
	}
}
