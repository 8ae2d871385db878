package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// subscriptionAttrs are the attributes of a subscription as the service
// answers it, which the resource and the data sources show alike.
type subscriptionAttrs struct {
	ID                 types.String `tfsdk:"id"`
	PlanID             types.String `tfsdk:"plan_id"`
	EsimICCID          types.String `tfsdk:"esim_iccid"`
	State              types.String `tfsdk:"state"`
	CreatedAt          types.Int64  `tfsdk:"created_at"`
	ActivatedAt        types.Int64  `tfsdk:"activated_at"`
	ExpireAt           types.Int64  `tfsdk:"expire_at"`
	Metadata           types.Map    `tfsdk:"metadata"`
	PlanDetails        types.Object `tfsdk:"plan_details"`
	PurchasedAllowance types.Object `tfsdk:"purchased_allowance"`
}

// subscriptionAttrsOf is the one mapping of a subscription from the
// client's type.
func subscriptionAttrsOf(sub *client.Subscription) (subscriptionAttrs, diag.Diagnostics) {
	var diags diag.Diagnostics
	metadata := types.MapNull(types.StringType)
	if sub.Metadata != nil {
		elems := make(map[string]attr.Value, len(sub.Metadata))
		for k, v := range sub.Metadata {
			elems[k] = types.StringValue(v)
		}
		var d diag.Diagnostics
		metadata, d = types.MapValue(types.StringType, elems)
		diags.Append(d...)
	}
	return subscriptionAttrs{
		ID:                 types.StringValue(sub.ID),
		PlanID:             types.StringValue(sub.PlanID),
		EsimICCID:          types.StringValue(sub.EsimICCID),
		State:              types.StringValue(sub.State),
		CreatedAt:          types.Int64Value(sub.CreatedAt),
		ActivatedAt:        types.Int64PointerValue(sub.ActivatedAt),
		ExpireAt:           types.Int64PointerValue(sub.ExpireAt),
		Metadata:           metadata,
		PlanDetails:        planDetails.objectOf(&sub.Plan),
		PurchasedAllowance: allowances.objectOf(&sub.PurchasedAllowance),
	}, diags
}

// subscriptionResourceModel is mobileplan_subscription: the subscription,
// and the inputs the service does not keep.
type subscriptionResourceModel struct {
	subscriptionAttrs
	Plan              types.Object   `tfsdk:"plan"`
	EarlyRenewalHours types.Int64    `tfsdk:"early_renewal_hours"`
	ReadyForRenewal   types.Bool     `tfsdk:"ready_for_renewal"`
	Timeouts          timeouts.Value `tfsdk:"timeouts"`
}

// timeoutsType is the type of the timeouts block's value.
var timeoutsType = timeoutsBlock().Type().(timeouts.Type)

// subscriptionResourceModelOf is the resource's state for sub, with the
// inputs taken from in, and ready_for_renewal false: it is true only in a
// plan that renews.
func subscriptionResourceModelOf(sub *client.Subscription, in subscriptionResourceModel) (subscriptionResourceModel, diag.Diagnostics) {
	attrs, diags := subscriptionAttrsOf(sub)
	return subscriptionResourceModel{
		subscriptionAttrs: attrs,
		Plan:              in.Plan,
		EarlyRenewalHours: in.EarlyRenewalHours,
		ReadyForRenewal:   types.BoolValue(false),
		Timeouts:          in.Timeouts,
	}, diags
}

// noInputs are the inputs of a subscription Terraform did not make: none.
func noInputs() subscriptionResourceModel {
	return subscriptionResourceModel{
		Plan: types.ObjectNull(inlinePlanAttrTypes), EarlyRenewalHours: types.Int64Null(),
		Timeouts: timeouts.Value{Object: types.ObjectNull(timeoutsType.AttrTypes)},
	}
}

// subscriptionItemModel is a subscription as the data sources show it: the
// resource's attributes, and usage, which only the data sources show (a
// usage counter in a resource would be drift on every refresh of a
// subscription in use).
type subscriptionItemModel struct {
	subscriptionAttrs
	RemainingAllowance types.Object `tfsdk:"remaining_allowance"`
}

func subscriptionItemModelOf(s client.Subscription) (subscriptionItemModel, diag.Diagnostics) {
	attrs, diags := subscriptionAttrsOf(&s)
	return subscriptionItemModel{subscriptionAttrs: attrs, RemainingAllowance: allowances.objectOf(&s.RemainingAllowance)}, diags
}

// timeoutsBlock is `timeouts { create }`: how long a create may wait before
// its request is sent, for the service's rate limit above all. A request
// once sent is seen through whatever the timeout, bounded by
// request_timeout, so that nothing the service created is left out of
// state.
func timeoutsBlock() schema.Block {
	block := timeouts.Block(context.Background(), timeouts.Opts{
		Create: true,
		CreateDescription: "How long a create may wait before its request is sent: for the service's rate limit, and for retries of a request that " +
			"could not be sent, such as `30s` or `2h45m` (a [Go duration](https://pkg.go.dev/time#ParseDuration) in s, m or h). Default `10m`. When it runs out, nothing was sent and the error says so: applying again is safe. " +
			"A request once sent is always seen through to its answer, bounded by the provider's `request_timeout`, so that no subscription " +
			"the service created is left out of state.",
	}).(schema.SingleNestedBlock)
	block.MarkdownDescription = "Time limits of this resource's operations."
	return block
}
