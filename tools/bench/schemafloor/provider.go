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
	_ resource.ResourceWithImportState      = (*floorSubscription)(nil)
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

// loadSample reads the sample in the provider's type: the sample has every
// attribute, whatever the floor leaves out.
func (r *floorSubscription) loadSample(ctx context.Context) (tftypes.Value, error) {
	r.sampleOnce.Do(func() {
		var full resource.SchemaResponse
		r.real.Schema(ctx, resource.SchemaRequest{}, &full)
		typ := full.Schema.Type().TerraformType(ctx)
		r.sample, r.sampleErr = (&tfprotov6.RawState{JSON: sampleState}).UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{})
	})
	return r.sample, r.sampleErr
}

// fill is v with the values keep leaves to the sample taken from it, and
// id as its id.
func (r *floorSubscription) fill(ctx context.Context, v tftypes.Value, id string, keep func(tftypes.Value) bool) (tftypes.Value, error) {
	sample, err := r.loadSample(ctx)
	if err != nil {
		return v, fmt.Errorf("unreadable sample: %w", err)
	}
	return tftypes.Transform(v, func(p *tftypes.AttributePath, v tftypes.Value) (tftypes.Value, error) {
		switch {
		case p.Equal(idPath):
			return tftypes.NewValue(tftypes.String, id), nil
		case keep(v):
			return v, nil
		}
		s, _, err := tftypes.WalkAttributePath(sample, p)
		if err != nil {
			return v, fmt.Errorf("the sample has no %s: %w", p, err)
		}
		return s.(tftypes.Value), nil
	})
}

// Create is the plan with every unknown value taken from the sample, and a
// new id of the service's shape.
func (r *floorSubscription) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	newID := newID()
	state, err := r.fill(ctx, req.Plan.Raw, newID, tftypes.Value.IsKnown)
	if err != nil {
		resp.Diagnostics.AddError("Could not fill the plan", err.Error())
		return
	}
	resp.State.Raw = state
	resp.Diagnostics.Append(resp.Identity.SetAttribute(ctx, path.Root("id"), newID)...)
}

// ImportState takes the id, or the identity's id, as the provider does;
// Read then fills the rest.
func (r *floorSubscription) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resource.ImportStatePassthroughWithIdentity(ctx, path.Root("id"), path.Root("id"), req, resp)
}

// Read leaves the state as it is, but for an import's, and answers the
// identity the framework asks for, as the provider's Read does.
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
	if imported(req.State.Raw) {
		// Only the id: the rest from the sample, as the provider's Read
		// fills an import from the service's answer.
		state, err := r.fill(ctx, req.State.Raw, id, func(v tftypes.Value) bool { return !v.IsNull() })
		if err != nil {
			resp.Diagnostics.AddError("Could not fill the import", err.Error())
			return
		}
		resp.State.Raw = state
	}
	resp.Diagnostics.Append(resp.Identity.SetAttribute(ctx, path.Root("id"), id)...)
}

// planIDPath is plan_id's path, set in every state the floor made and in
// none an import began.
var planIDPath = tftypes.NewAttributePath().WithAttributeName("plan_id")

// imported tells a state that holds only what ImportState put in it.
func imported(state tftypes.Value) bool {
	v, _, err := tftypes.WalkAttributePath(state, planIDPath)
	return err == nil && v.(tftypes.Value).IsNull()
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
