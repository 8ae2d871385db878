package main

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider"
)

// sampleState is one subscription of plan_004 as the emulator answers it
// and the mobileplan provider stores it: the attributes of a state file's
// instance. TestCreate_stateLikeOurs checks it against the provider's
// answer, and rewrites it with -update.
//
//go:embed sample.json
var sampleState []byte

// subscriptionType is the resource the floor mirrors.
const subscriptionType = "mobileplan_subscription"

// theSubscription is the mobileplan provider's mobileplan_subscription, the
// source of the floor's schema, identity schema and configuration rules.
func theSubscription(ctx context.Context) resource.Resource {
	for _, newResource := range provider.New("bench")().Resources(ctx) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "mobileplan"}, &meta)
		if meta.TypeName == subscriptionType {
			return r
		}
	}
	panic("the mobileplan provider has no " + subscriptionType)
}

// floorSubscription has mobileplan_subscription's schema, identity and
// configuration validators (what any provider of that schema has the
// framework run), and none of its behaviour: no plan modification, no
// upgrade of older states (Terraform hands it only states it made).
type floorSubscription struct {
	real resource.Resource

	sampleOnce sync.Once
	sample     tftypes.Value
	sampleErr  error
}

var (
	_ resource.ResourceWithIdentity         = (*floorSubscription)(nil)
	_ resource.ResourceWithConfigValidators = (*floorSubscription)(nil)
)

func newFloorSubscription() resource.Resource {
	return &floorSubscription{real: theSubscription(context.Background())}
}

func (r *floorSubscription) Metadata(ctx context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	r.real.Metadata(ctx, req, resp)
}

// Schema is the provider's, less the attributes and blocks named in
// MOBILEPLAN_FLOOR_WITHOUT (comma-separated): `make bench` measures what
// attributes cost Terraform and the framework by leaving them out
// (BENCH_SCHEMA_WITHOUT). Unset, the schema is the provider's exactly.
func (r *floorSubscription) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	r.real.Schema(ctx, req, resp)
	without := os.Getenv("MOBILEPLAN_FLOOR_WITHOUT")
	if without == "" {
		return
	}
	s := resp.Schema
	s.Attributes, s.Blocks = maps.Clone(s.Attributes), maps.Clone(s.Blocks)
	for name := range strings.SplitSeq(without, ",") {
		delete(s.Attributes, name)
		delete(s.Blocks, name)
	}
	resp.Schema = s
}

func (r *floorSubscription) IdentitySchema(ctx context.Context, req resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	r.real.(resource.ResourceWithIdentity).IdentitySchema(ctx, req, resp)
}

// ConfigValidators are the provider's, except with attributes left out
// (MOBILEPLAN_FLOOR_WITHOUT): a rule may name one of them, and could not run.
func (r *floorSubscription) ConfigValidators(ctx context.Context) []resource.ConfigValidator {
	if os.Getenv("MOBILEPLAN_FLOOR_WITHOUT") != "" {
		return nil
	}
	return r.real.(resource.ResourceWithConfigValidators).ConfigValidators(ctx)
}

// idPath is the id attribute's path, in the state and in the identity.
var idPath = tftypes.NewAttributePath().WithAttributeName("id")

// Create is the plan with every unknown value taken from the sample, and a
// new id of the service's shape.
func (r *floorSubscription) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.sampleOnce.Do(func() {
		// The provider's type: the sample has every attribute, whatever
		// the floor leaves out.
		var full resource.SchemaResponse
		r.real.Schema(ctx, resource.SchemaRequest{}, &full)
		typ := full.Schema.Type().TerraformType(ctx)
		r.sample, r.sampleErr = (&tfprotov6.RawState{JSON: sampleState}).UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{})
	})
	if r.sampleErr != nil {
		resp.Diagnostics.AddError("Unreadable sample", r.sampleErr.Error())
		return
	}
	newID := newID()
	id := tftypes.NewValue(tftypes.String, newID)
	state, err := tftypes.Transform(req.Plan.Raw, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		switch {
		case v.IsKnown():
			return v, nil
		case p.Equal(idPath):
			return id, nil
		}
		s, _, err := tftypes.WalkAttributePath(r.sample, p)
		if err != nil {
			return v, fmt.Errorf("the sample has no %s: %w", p, err)
		}
		return s.(tftypes.Value), nil
	})
	if err != nil {
		resp.Diagnostics.AddError("Could not fill the plan", err.Error())
		return
	}
	resp.State.Raw = state
	resp.Diagnostics.Append(resp.Identity.SetAttribute(ctx, path.Root("id"), newID)...)
}

// Read leaves the state as it is, and answers the identity the framework
// asks for, as the provider's Read does.
func (r *floorSubscription) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var id string
	value, _, err := tftypes.WalkAttributePath(req.State.Raw, idPath)
	if err == nil {
		err = value.(tftypes.Value).As(&id)
	}
	if err != nil {
		resp.Diagnostics.AddError("No id in state", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.Identity.SetAttribute(ctx, path.Root("id"), id)...)
}

// Update is the plan, unknowns from the prior state; the bench never plans
// one.
func (r *floorSubscription) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	state, err := tftypes.Transform(req.Plan.Raw, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		if v.IsKnown() {
			return v, nil
		}
		prior, _, err := tftypes.WalkAttributePath(req.State.Raw, p)
		if err != nil {
			return v, err
		}
		return prior.(tftypes.Value), nil
	})
	if err != nil {
		resp.Diagnostics.AddError("Could not fill the plan", err.Error())
		return
	}
	resp.State.Raw = state
}

func (r *floorSubscription) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}

// newID is an id of the service's shape: sub_ and 16 hex digits.
func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return "sub_" + hex.EncodeToString(b)
}
