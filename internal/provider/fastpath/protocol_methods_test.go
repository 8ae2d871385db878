package fastpath_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
)

// The served server has every method of the framework's, with the same
// signature: a service that a later terraform-plugin-go adds, and the
// framework implements, is never hidden by the wrapper (tf6server finds the
// optional ones by type assertion).
func TestProtocol6_hasEveryMethodOfTheFrameworksServer(t *testing.T) {
	t.Parallel()
	framework := reflect.TypeOf(providerserver.NewProtocol6(provider.New("test")())())
	served := provider.NewProtocol6("test")()
	accelerator(t, served)
	st := reflect.TypeOf(served)
	if framework.NumMethod() < reflect.TypeFor[tfprotov6.ProviderServer]().NumMethod() {
		t.Fatalf("the framework's server %s has %d methods, fewer than tfprotov6.ProviderServer", framework, framework.NumMethod())
	}
	for i := range framework.NumMethod() {
		want := framework.Method(i)
		got, ok := st.MethodByName(want.Name)
		switch {
		case !ok:
			t.Errorf("the framework's server has %s and the served %s does not: add its interface to protocol.Server (internal/protocol)", want.Name, st)
		case got.Type.String() != strings.Replace(want.Type.String(), framework.String(), st.String(), 1):
			t.Errorf("%s: framework %s, served %s", want.Name, want.Type, got.Type)
		}
	}
}
