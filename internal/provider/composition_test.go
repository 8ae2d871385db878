package provider

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/protocol"
)

// The tests run what main.go serves, NewProtocol6. With
// MOBILEPLAN_ACC_PARITY=plain they run it without package fastpath's
// speed-ups (withoutSpeedUps), and the run fails unless it has applied
// every resource, read every data source and listed every list resource:
// the parity run `make test` makes (GNUmakefile: testacc-parity), which
// proves the speed-ups can be deleted. It runs the tests whose names end
// in _parity (the GNUmakefile's PARITY_RUN), at least one a type
// (TestParityRun_selectsATestPerType).
var plainParityRun = os.Getenv("MOBILEPLAN_ACC_PARITY") == "plain"

// withClock makes now the clock renewal compares expire_at with, instead
// of the wall clock. The service's API has no clock to ask; tests give the
// emulator's, so that moving it forward moves the service's expiry and the
// provider's renewal window in step.
func withClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// withoutSpeedUps serves the provider without package fastpath: the
// framework's server and state codec throughout.
func withoutSpeedUps() Option {
	return func(o *options) { o.withoutSpeedUps = true }
}

// testComposition is the provider server factory the tests run, with opts.
func testComposition(opts ...Option) func() tfprotov6.ProviderServer {
	if !plainParityRun {
		return NewProtocol6("test", opts...)
	}
	plain := NewProtocol6("test", slices.Concat(opts, []Option{withoutSpeedUps()})...)
	return func() tfprotov6.ProviderServer { return recordingServer{Server: plain().(protocol.Server)} }
}

// testServer is a new provider server of the composition the tests run.
func testServer(opts ...Option) tfprotov6.ProviderServer {
	return testComposition(opts...)()
}

// exercised holds "resource TYPE", "data TYPE" and "list TYPE" for each
// type the plain parity run has applied, read or listed.
var exercised sync.Map

type recordingServer struct{ protocol.Server }

func (s recordingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	exercised.Store("resource "+req.TypeName, true)
	return s.Server.ApplyResourceChange(ctx, req)
}

func (s recordingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	exercised.Store("data "+req.TypeName, true)
	return s.Server.ReadDataSource(ctx, req)
}

func (s recordingServer) ListResource(ctx context.Context, req *tfprotov6.ListResourceRequest) (*tfprotov6.ListResourceServerStream, error) {
	exercised.Store("list "+req.TypeName, true)
	return s.Server.ListResource(ctx, req)
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

// The parity run selects its tests by name, with the GNUmakefile's
// PARITY_RUN: a test renamed out of it would leave a type the run no
// longer covers, which only the parity run itself would notice, in make
// test's last stage. So the tests it selects number at least the types it
// must cover.
func TestParityRun_selectsATestPerType(t *testing.T) {
	t.Parallel()
	makefile, err := os.ReadFile("../../GNUmakefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^PARITY_RUN := (\S+)$`).FindSubmatch(makefile)
	if m == nil || !bytes.Contains(makefile, []byte("-run '$(PARITY_RUN)' ./internal/provider/")) {
		t.Fatal("the GNUmakefile's testacc-parity no longer runs -run '$(PARITY_RUN)' on this package")
	}
	run, err := regexp.Compile(strings.ReplaceAll(string(m[1]), "$$", "$")) // make's $$ is the shell's $
	if err != nil {
		t.Fatal(err)
	}
	var selected []string
	for _, name := range testFunctions(t) {
		if run.MatchString(name) {
			selected = append(selected, name)
		}
	}
	schemas, err := NewProtocol6("test")().GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	types := len(schemas.ResourceSchemas) + len(schemas.DataSourceSchemas) + len(schemas.ListResourceSchemas)
	if len(selected) < types {
		t.Errorf("the parity run (-run %q) selects %d tests, %v, for %d types to apply, read or list: name the test of each type with the suffix _parity",
			run, len(selected), selected, types)
	}
}

// testFunctions are the names of this package's top-level Test functions.
func testFunctions(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names
}
