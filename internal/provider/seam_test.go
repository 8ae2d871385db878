package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// What the seam tells a speed-up is what the provider serves: the type
// name is a resource's, and every attribute a renewal depends on is one of
// its attributes, optional or computed, so a state can hold it null.
func TestSeam_namesWhatTheProviderServes(t *testing.T) {
	t.Parallel()
	schemas, err := NewProtocol6("test")().GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	schema := schemas.ResourceSchemas[SubscriptionTypeName]
	if schema == nil {
		t.Fatalf("no resource %s", SubscriptionTypeName)
	}
	attrs := map[string]*tfprotov6.SchemaAttribute{}
	for _, a := range schema.Block.Attributes {
		attrs[a.Name] = a
	}
	names := RenewalTimeAttributes()
	if len(names) == 0 {
		t.Fatal("no attribute decides a renewal")
	}
	for _, name := range names {
		if a := attrs[name]; a == nil || a.Required {
			t.Errorf("%s: %+v, want an attribute of %s that a state may hold null", name, a, SubscriptionTypeName)
		}
	}
	all := func(string) bool { return true }
	if !RenewalPossible(all) {
		t.Error("RenewalPossible refuses a state with every attribute set")
	}
	for _, unset := range names {
		if RenewalPossible(func(name string) bool { return name != unset }) {
			t.Errorf("RenewalPossible accepts a state without %s", unset)
		}
	}
}
