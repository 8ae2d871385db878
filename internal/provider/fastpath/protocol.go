package fastpath

import (
	"bytes"
	"context"
	"slices"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/protocol"
)

type protocolServer struct {
	protocol.Server
	resources map[string]*resource // by type name

	validMu sync.Mutex
	valid   map[validationKey]struct{} // see ValidateResourceConfig
}

// resource is a Resource and what the server learns of it from the
// framework, once.
type resource struct {
	Resource
	renewalPossibleBySet []bool // renewalTable's

	createOnce sync.Once
	creates    *createPlanner // nil: creates are the framework's

	identityOnce sync.Once
	identity     identityInfo
}

type validationKey struct {
	typeName       string
	config         string // msgpack
	writeOnlyAllow bool
}

// maxValidConfigs bounds the memory of configurations seen valid: a few
// hundred bytes each.
const maxValidConfigs = 1024

// ValidateResourceConfig remembers the configurations of the resources it
// was told about that the framework found valid, and answers a
// configuration it has seen valid again without it. Terraform validates
// every instance of a resource, so `count = 500` of the same subscription
// is 500 identical validations, each an attribute walk, a tenth of the
// provider's CPU time in a refreshing plan. Validation of such a resource
// must be a pure function of the configuration, as validators that read
// nothing else (ExactlyOneOf, LengthAtLeast, AtLeast) are, so the answer
// is the same.
// Only answers without diagnostics are remembered: the framework's are
// given for anything else.
//
// Delete this cache once Terraform validates a counted resource's
// configuration once rather than once per instance, or the framework's
// validation costs about what a lookup here does: then BenchmarkProtocol's
// validate_framework_only costs about what validate does.
func (s *protocolServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	if s.resources[req.TypeName] == nil || req.Config == nil || len(req.Config.MsgPack) == 0 {
		return s.Server.ValidateResourceConfig(ctx, req)
	}
	key := validationKey{typeName: req.TypeName, config: string(req.Config.MsgPack)}
	if req.ClientCapabilities != nil {
		key.writeOnlyAllow = req.ClientCapabilities.WriteOnlyAttributesAllowed
	}
	s.validMu.Lock()
	_, seen := s.valid[key]
	s.validMu.Unlock()
	if seen {
		return &tfprotov6.ValidateResourceConfigResponse{}, nil
	}
	resp, err := s.Server.ValidateResourceConfig(ctx, req)
	if err == nil && resp != nil && len(resp.Diagnostics) == 0 {
		s.validMu.Lock()
		if s.valid == nil {
			s.valid = map[validationKey]struct{}{}
		}
		if len(s.valid) < maxValidConfigs {
			s.valid[key] = struct{}{}
		}
		s.validMu.Unlock()
	}
	return resp, err
}

// identityInfo is what the framework needs to know of a resource's identity
// to plan it.
type identityInfo struct {
	known bool // false when the framework could not say
	has   bool // the resource has an identity schema
	// null is what the framework plans as identity when Terraform sends
	// none: nil without an identity schema, a null value of it with one.
	null *tfprotov6.ResourceIdentityData
}

func (s *protocolServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	// The framework defers every plan of a provider whose Configure
	// deferred; the fast paths would answer some without.
	if r := s.resources[req.TypeName]; r != nil && (r.ConfigureDeferred == nil || !r.ConfigureDeferred()) {
		if resp, ok := s.unchangedPlan(ctx, r, req); ok {
			return resp, nil
		}
		if resp, ok := s.createPlan(ctx, r, req); ok {
			return resp, nil
		}
	}
	return s.Server.PlanResourceChange(ctx, req)
}

// unchangedPlan answers the plan of a resource r whose proposed new state
// is byte for byte its prior state, the plan of every resource in a
// refresh-and-plan that finds no change, without the framework. The
// framework would decode config, prior and proposed state, walk every
// attribute three times (defaults, write-only attributes, plan modifiers)
// and encode the result again, which was a third of the provider's CPU
// time in such a plan of mobileplan_subscription, to return what it was
// given, because for a resource that keeps these rules, with prior state
// equal to the proposed one:
//   - no attribute has a default or is write-only, so those walks change nothing;
//   - computed attributes are marked unknown only when the two differ;
//   - every attribute plan modifier is UseStateForUnknown, which changes a
//     value only when the plan's is unknown, and then to the state's, the same;
//   - ModifyPlan returns at once when they are equal, unless time alone
//     may change the plan, as it makes a subscription due for renewal: the
//     states r.RenewalPossible accepts are the framework's, as is the clock
//     ModifyPlan compares them with;
//   - the provider defers only from Configure (r.ConfigureDeferred: then
//     PlanResourceChange leaves every plan to the framework), and sets no
//     private state.
//
// Each rule is a test of the provider that declares the resource (for
// mobileplan_subscription, provider/fastpath_rules_test.go) that fails on a
// change to the resource breaking it, and TestUnchangedPlan_sameAsFramework
// compares both answers on many states. A schema version and state
// upgraders do not matter: Terraform upgrades and refreshes the state before
// it plans, so the prior state here is always of the current schema.
// Anything else goes to the framework.
//
// Delete this fast path, and the wrapper with it, once the framework answers
// an unchanged plan itself without decoding and walking the states: then
// BenchmarkProtocol's plan_no_change_framework_only costs about what
// plan_no_change does.
func (s *protocolServer) unchangedPlan(ctx context.Context, r *resource, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, bool) {
	if req.PriorState == nil || req.ProposedNewState == nil || len(req.PriorPrivate) > 0 {
		return nil, false
	}
	prior, proposed := req.PriorState.MsgPack, req.ProposedNewState.MsgPack
	if len(prior) == 0 || isMsgPackNil(prior) || !bytes.Equal(prior, proposed) || r.renewalPossible(prior) {
		return nil, false
	}
	identity, ok := s.plannedIdentity(ctx, r, req.PriorIdentity)
	if !ok {
		return nil, false
	}
	return &tfprotov6.PlanResourceChangeResponse{PlannedState: req.PriorState, PlannedIdentity: identity}, true
}

// plannedIdentity is the identity a plan of r answers: the
// prior one, or the null identity when there is none yet; false when the
// framework must answer, as the identity schema is unknown, or an identity
// came for a resource without one (the framework reports that as an
// error; let it).
func (s *protocolServer) plannedIdentity(ctx context.Context, r *resource, prior *tfprotov6.ResourceIdentityData) (*tfprotov6.ResourceIdentityData, bool) {
	r.identityOnce.Do(func() { r.identity = s.identityOf(ctx, r.TypeName) })
	switch {
	case !r.identity.known, prior != nil && !r.identity.has:
		return nil, false
	case prior == nil:
		return r.identity.null, true
	}
	return prior, true
}

// isMsgPackNil: a null object is msgpack's nil, one byte.
func isMsgPackNil(b []byte) bool { return len(b) == 1 && b[0] == 0xc0 }

func (s *protocolServer) identityOf(ctx context.Context, typeName string) identityInfo {
	resp, err := s.GetResourceIdentitySchemas(ctx, &tfprotov6.GetResourceIdentitySchemasRequest{})
	if err != nil || resp == nil || len(resp.Diagnostics) > 0 {
		return identityInfo{}
	}
	schema, ok := resp.IdentitySchemas[typeName]
	if !ok || schema == nil {
		return identityInfo{known: true}
	}
	typ := schema.ValueType()
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, nil))
	if err != nil {
		return identityInfo{}
	}
	return identityInfo{known: true, has: true, null: &tfprotov6.ResourceIdentityData{IdentityData: &dv}}
}

// renewalPossible reports whether a state of r, as msgpack, may be due for
// renewal at some time: r.RenewalPossible, told which of its
// RenewalAttributes are set (renewalTable). It reads only the top-level
// keys and skips every value, so the unchanged plans it lets through cost
// no decoding of the state. Anything it cannot read counts as possible, as
// does every state of a resource without a table.
func (r *resource) renewalPossible(state []byte) bool {
	if r.renewalPossibleBySet == nil {
		return true
	}
	dec := msgpack.GetDecoder()
	defer msgpack.PutDecoder(dec)
	dec.Reset(bytes.NewReader(state))
	n, err := dec.DecodeMapLen()
	if err != nil || n < 0 {
		return true
	}
	set := 0 // bit i: RenewalAttributes[i] is set
	for range n {
		key, err := dec.DecodeString()
		if err != nil {
			return true
		}
		if i := slices.Index(r.RenewalAttributes, key); i >= 0 {
			code, err := dec.PeekCode()
			if err != nil {
				return true
			}
			if code != msgpcode.Nil {
				set |= 1 << i
			}
		}
		if err := dec.Skip(); err != nil {
			return true
		}
	}
	return r.renewalPossibleBySet[set]
}
