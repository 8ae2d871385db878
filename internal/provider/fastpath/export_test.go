package fastpath

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/protocol"
)

// What the tests of package fastpath_test, which import the provider that
// composes this package, read of its insides.

// ProtocolServer is the server Accelerate returns.
type ProtocolServer = protocolServer

// Framework is the server s answers for, and what a test puts in its place.
func (s *protocolServer) Framework() *protocol.Server { return &s.Server }

// UnchangedPlan is unchangedPlan for the resource req names; false for a
// resource s was not told about.
func (s *protocolServer) UnchangedPlan(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, bool) {
	r := s.resources[req.TypeName]
	if r == nil {
		return nil, false
	}
	return s.unchangedPlan(ctx, r, req)
}

// RenewalPossible is renewalPossible of the resource typeName, for a state
// as msgpack.
func (s *protocolServer) RenewalPossible(typeName string, state []byte) bool {
	return s.resources[typeName].renewalPossible(state)
}

// ValidConfigs is how many configurations s remembers as valid.
func (s *protocolServer) ValidConfigs() int {
	s.validMu.Lock()
	defer s.validMu.Unlock()
	return len(s.valid)
}

// LeftToFramework reports whether States leaves models of type model, in
// states of schema, to the framework.
func (s *States) LeftToFramework(ctx context.Context, schema schemaType, model reflect.Type) bool {
	return s.mapping(ctx, schema, model).framework
}
