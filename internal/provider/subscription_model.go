package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// subscriptionAttrs are the attributes that come from the service's answer.
// The resource, the mobileplan_subscription data source and the items of
// mobileplan_subscriptions all carry exactly these.
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
	RemainingAllowance types.Object `tfsdk:"remaining_allowance"`
}

var allowanceAttrTypes = map[string]attr.Type{
	"data_bytes":    types.Int64Type,
	"voice_seconds": types.Int64Type,
	"sms_messages":  types.Int64Type,
}

var planDetailsAttrTypes = map[string]attr.Type{
	"name":                 types.StringType,
	"data_megabytes":       types.Int64Type,
	"period_days":          types.Int64Type,
	"period_iterations":    types.Int64Type,
	"throttled_speed_kbps": types.Int64Type,
	"label":                types.StringType,
	"coverage_profile_id":  types.StringType,
}

// Service defaults of PlanForAttachment fields the answer may leave out.
const (
	defaultPeriodIterations   = 1
	defaultThrottledSpeedKbps = 0
)

func newSubscriptionAttrs(sub *client.Subscription) (subscriptionAttrs, diag.Diagnostics) {
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
	p := sub.Plan
	planDetails, d := types.ObjectValue(planDetailsAttrTypes, map[string]attr.Value{
		"name":                 types.StringPointerValue(p.Name),
		"data_megabytes":       types.Int64PointerValue(p.DataMegaBytes),
		"period_days":          types.Int64PointerValue(p.PeriodDays),
		"period_iterations":    types.Int64Value(valueOr(p.PeriodIterations, defaultPeriodIterations)),
		"throttled_speed_kbps": types.Int64Value(valueOr(p.ThrottledSpeedKbps, defaultThrottledSpeedKbps)),
		"label":                types.StringPointerValue(p.Label),
		"coverage_profile_id":  types.StringPointerValue(p.CoverageProfileID),
	})
	diags.Append(d...)
	purchased, d := allowanceValue(sub.PurchasedAllowance)
	diags.Append(d...)
	remaining, d := allowanceValue(sub.RemainingAllowance)
	diags.Append(d...)
	return subscriptionAttrs{
		ID:                 types.StringValue(sub.ID),
		PlanID:             types.StringValue(sub.PlanID),
		EsimICCID:          types.StringValue(sub.EsimICCID),
		State:              types.StringValue(sub.State),
		CreatedAt:          types.Int64Value(sub.CreatedAt),
		ActivatedAt:        types.Int64PointerValue(sub.ActivatedAt),
		ExpireAt:           types.Int64PointerValue(sub.ExpireAt),
		Metadata:           metadata,
		PlanDetails:        planDetails,
		PurchasedAllowance: purchased,
		RemainingAllowance: remaining,
	}, diags
}

func allowanceValue(a client.Allowance) (types.Object, diag.Diagnostics) {
	return types.ObjectValue(allowanceAttrTypes, map[string]attr.Value{
		"data_bytes":    types.Int64PointerValue(a.DataBytes),
		"voice_seconds": types.Int64PointerValue(a.VoiceSeconds),
		"sms_messages":  types.Int64PointerValue(a.SmsMessages),
	})
}

func valueOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
