package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// floorResource lives only in Terraform's state: Create makes up an id,
// Read keeps the state as it is, Delete forgets it.
type floorResource struct{}

type floorModel struct {
	ID       types.String `tfsdk:"id"`
	Triggers types.Map    `tfsdk:"triggers"`
}

func newFloorResource() resource.Resource { return floorResource{} }

func (floorResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_resource"
}

func (floorResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Stores an id and a map of triggers; a change of triggers replaces it.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "Random identifier, set at creation.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"triggers": schema.MapAttribute{
				ElementType:   types.StringType,
				Optional:      true,
				Description:   "Arbitrary values whose change replaces the resource.",
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplace()},
			},
		},
	}
}

func (floorResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m floorModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := make([]byte, 8)
	_, _ = rand.Read(id) // crypto/rand.Read never fails (Go 1.24+)
	m.ID = types.StringValue(hex.EncodeToString(id))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Read leaves the state as the framework hands it back: there is nothing
// remote to compare it with.
func (floorResource) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

// Update is never planned (every attribute either is computed once or
// replaces the resource), but the framework requires it.
func (floorResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m floorModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (floorResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
