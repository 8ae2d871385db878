package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// subscriptionAttrs are the resource's attributes that come from the
// service's answer, read from a plan or state. The values are written by
// subscriptionState (subscription_state.go), from the one mapping of a
// subscription, subscriptionValues.
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
