package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// A subscription is identified by its id alone: the service names
// subscriptions account-wide, and the account is the provider's. Terraform
// 1.12 and later store this identity next to the state, accept it in
// `import { identity = { id = ... } }`, and the list resource returns it for
// each subscription it finds.

var _ resource.ResourceWithIdentity = (*subscriptionResource)(nil)

type subscriptionIdentityModel struct {
	ID types.String `tfsdk:"id"`
}

const importIDExample = "sub_0123456789abcdef"

func (r *subscriptionResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = subscriptionIdentitySchema()
}

func subscriptionIdentitySchema() identityschema.Schema {
	return identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"id": identityschema.StringAttribute{
				RequiredForImport: true,
				Description:       "Id of the subscription, such as `" + importIDExample + "`.",
			},
		},
	}
}

// setSubscriptionIdentity records id as the identity. identity is nil when
// the framework has no identity to fill (never with an identity schema, but
// the guard costs nothing). On CLIs without identity support (Terraform
// 1.11) the framework still asks for one and drops it on the way out.
func setSubscriptionIdentity(ctx context.Context, identity *tfsdk.ResourceIdentity, id types.String) diag.Diagnostics {
	if identity == nil {
		return nil
	}
	return identity.Set(ctx, subscriptionIdentityModel{ID: id})
}

func (r *subscriptionResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id := req.ID
	// A CLI without identity (Terraform 1.11) sends a null one: only an
	// identity that is there can be read.
	if id == "" && req.Identity != nil && !req.Identity.Raw.IsNull() {
		var identity subscriptionIdentityModel
		resp.Diagnostics.Append(req.Identity.Get(ctx, &identity)...)
		if resp.Diagnostics.HasError() {
			return
		}
		id = identity.ID.ValueString()
	}
	if id == "" {
		resp.Diagnostics.AddError("Missing subscription id",
			"Import a subscription by its id, for example: terraform import mobileplan_subscription.example "+importIDExample+
				", or with an import block holding `id = \""+importIDExample+"\"` or (Terraform 1.12 and later) `identity = { id = \""+importIDExample+"\" }`.")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(setSubscriptionIdentity(ctx, resp.Identity, types.StringValue(id))...)
}
