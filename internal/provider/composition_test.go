package provider

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The acceptance tests run the composition main.go serves: the provider
// with package fastpath's speed-ups. Package fastpath imports this one, so
// only an external test package can name it: shipped_composition_test.go
// hands it to ServeShippedComposition before any test runs.
//
// With MOBILEPLAN_ACC_PARITY=plain the same tests run the provider alone,
// as provider.NewProtocol6 serves it, and the run fails unless it has
// applied every resource, read every data source and listed every list
// resource: the parity run `make test` makes (GNUmakefile: testacc-parity).
var (
	shippedComposition func(version string, opts ...Option) func() tfprotov6.ProviderServer
	plainParityRun     = os.Getenv("MOBILEPLAN_ACC_PARITY") == "plain"
)

// ServeShippedComposition makes compose the composition the tests run,
// unless this is the plain parity run.
func ServeShippedComposition(compose func(version string, opts ...Option) func() tfprotov6.ProviderServer) {
	shippedComposition = compose
}

// testComposition is the provider server factory the tests run, with opts.
// It chooses the composition on its first call, not before: package
// variables of this package are set before the external test package's
// init hands over the shipped one.
func testComposition(opts ...Option) func() tfprotov6.ProviderServer {
	factory := sync.OnceValue(func() func() tfprotov6.ProviderServer {
		if plainParityRun {
			plain := NewProtocol6("test", opts...)
			return func() tfprotov6.ProviderServer { return recordingServer{fullServer: plain().(fullServer)} }
		}
		if shippedComposition == nil {
			panic("no shipped composition: shipped_composition_test.go hands it over in its init")
		}
		return shippedComposition("test", opts...)
	})
	return func() tfprotov6.ProviderServer { return factory()() }
}

// testServer is a new provider server of the composition the tests run.
func testServer(opts ...Option) tfprotov6.ProviderServer {
	return testComposition(opts...)()
}

// testProviderFactories are plugin-testing's factories for the
// composition the tests run, with opts.
func testProviderFactories(opts ...Option) map[string]func() (tfprotov6.ProviderServer, error) {
	server := testComposition(opts...)
	return map[string]func() (tfprotov6.ProviderServer, error){
		"mobileplan": func() (tfprotov6.ProviderServer, error) { return server(), nil },
	}
}

// fullServer is every service the framework's server offers: a wrapper
// embedding only tfprotov6.ProviderServer would hide the list resources.
type fullServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
	tfprotov6.ActionServer
	tfprotov6.StateStoreServer
}

// exercised holds "resource TYPE", "data TYPE" and "list TYPE" for each
// type the plain parity run has applied, read or listed.
var exercised sync.Map

type recordingServer struct{ fullServer }

func (s recordingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	exercised.Store("resource "+req.TypeName, true)
	return s.fullServer.ApplyResourceChange(ctx, req)
}

func (s recordingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	exercised.Store("data "+req.TypeName, true)
	return s.fullServer.ReadDataSource(ctx, req)
}

func (s recordingServer) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	exercised.Store("list "+req.TypeName, true)
	return s.fullServer.ListResource(ctx, req)
}

// unexercisedTypes are the provider's types the plain parity run has not
// applied, read or listed; none outside that run.
func unexercisedTypes() ([]string, error) {
	if !plainParityRun {
		return nil, nil
	}
	schemas, err := NewProtocol6("test")().GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		return nil, err
	}
	var want []string
	for name := range schemas.ResourceSchemas {
		want = append(want, "resource "+name)
	}
	for name := range schemas.DataSourceSchemas {
		want = append(want, "data "+name)
	}
	for name := range schemas.ListResourceSchemas {
		want = append(want, "list "+name)
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("the provider's schema names no type")
	}
	var missing []string
	for _, w := range want {
		if _, ok := exercised.Load(w); !ok {
			missing = append(missing, w)
		}
	}
	slices.Sort(missing)
	return missing, nil
}
