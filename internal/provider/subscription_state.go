package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// inlinePlanAttrTypes are the `plan` input's.
var inlinePlanAttrTypes = map[string]attr.Type{"coverage_id": types.StringType, "data_mbs": types.Int64Type, "period_days": types.Int64Type}

// Terraform types of the resource's state, the same as its schema's.
var (
	allowanceType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"data_bytes": tftypes.Number, "voice_seconds": tftypes.Number, "sms_messages": tftypes.Number,
	}}
	planDetailsType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"name": tftypes.String, "data_megabytes": tftypes.Number, "period_days": tftypes.Number, "period_iterations": tftypes.Number,
		"throttled_speed_kbps": tftypes.Number, "label": tftypes.String, "coverage_profile_id": tftypes.String,
	}}
	inlinePlanType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"coverage_id": tftypes.String, "data_mbs": tftypes.Number, "period_days": tftypes.Number,
	}}
	subscriptionStateType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"id": tftypes.String, "plan_id": tftypes.String, "plan": inlinePlanType, "esim_iccid": tftypes.String,
		"state": tftypes.String, "created_at": tftypes.Number, "activated_at": tftypes.Number, "expire_at": tftypes.Number,
		"metadata":     tftypes.Map{ElementType: tftypes.String},
		"plan_details": planDetailsType, "purchased_allowance": allowanceType, "remaining_allowance": allowanceType,
	}}
)

// subscriptionState is the resource's state for sub, with the `plan` input
// as given: what resp.State.Set of a subscriptionResourceModel made of
// newSubscriptionAttrs(sub) and plan stores, built directly. State.Set
// reflects over the model and converts each attribute through the
// framework's types, which was 8% of the provider's CPU time in a
// refreshing plan (issue 15); this is a fifth of its allocations.
// TestSubscriptionState_sameAsStateSet compares the two on many answers.
func subscriptionState(ctx context.Context, sub *client.Subscription, plan types.Object) (tftypes.Value, error) {
	planValue, err := plan.ToTerraformValue(ctx)
	if err != nil {
		return tftypes.Value{}, err
	}
	metadata := tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, nil)
	if sub.Metadata != nil {
		elems := make(map[string]tftypes.Value, len(sub.Metadata))
		for k, v := range sub.Metadata {
			elems[k] = tftypes.NewValue(tftypes.String, v)
		}
		metadata = tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, elems)
	}
	p := sub.Plan
	return tftypes.NewValue(subscriptionStateType, map[string]tftypes.Value{
		"id":           tftypes.NewValue(tftypes.String, sub.ID),
		"plan_id":      tftypes.NewValue(tftypes.String, sub.PlanID),
		"plan":         planValue,
		"esim_iccid":   tftypes.NewValue(tftypes.String, sub.EsimICCID),
		"state":        tftypes.NewValue(tftypes.String, sub.State),
		"created_at":   tftypes.NewValue(tftypes.Number, sub.CreatedAt),
		"activated_at": numberOrNull(sub.ActivatedAt),
		"expire_at":    numberOrNull(sub.ExpireAt),
		"metadata":     metadata,
		"plan_details": tftypes.NewValue(planDetailsType, map[string]tftypes.Value{
			"name":                 stringOrNull(p.Name),
			"data_megabytes":       numberOrNull(p.DataMegaBytes),
			"period_days":          numberOrNull(p.PeriodDays),
			"period_iterations":    tftypes.NewValue(tftypes.Number, valueOr(p.PeriodIterations, defaultPeriodIterations)),
			"throttled_speed_kbps": tftypes.NewValue(tftypes.Number, valueOr(p.ThrottledSpeedKbps, defaultThrottledSpeedKbps)),
			"label":                stringOrNull(p.Label),
			"coverage_profile_id":  stringOrNull(p.CoverageProfileID),
		}),
		"purchased_allowance": allowanceState(sub.PurchasedAllowance),
		"remaining_allowance": allowanceState(sub.RemainingAllowance),
	}), nil
}

func allowanceState(a client.Allowance) tftypes.Value {
	return tftypes.NewValue(allowanceType, map[string]tftypes.Value{
		"data_bytes":    numberOrNull(a.DataBytes),
		"voice_seconds": numberOrNull(a.VoiceSeconds),
		"sms_messages":  numberOrNull(a.SmsMessages),
	})
}

func numberOrNull(p *int64) tftypes.Value {
	if p == nil {
		return tftypes.NewValue(tftypes.Number, nil)
	}
	return tftypes.NewValue(tftypes.Number, *p)
}

func stringOrNull(p *string) tftypes.Value {
	if p == nil {
		return tftypes.NewValue(tftypes.String, nil)
	}
	return tftypes.NewValue(tftypes.String, *p)
}

// subscriptionStateKept reads from a state the two attributes Read keeps:
// the id, to read the subscription by, and the `plan` input, which the
// service does not return. The rest of the model is left null. Read's
// req.State.Get of the whole model reflected over every attribute, a tenth
// of the provider's CPU time in a refreshing plan (issue 15).
// TestSubscriptionStateKept_sameAsStateGet compares the two.
func subscriptionStateKept(ctx context.Context, raw tftypes.Value) (subscriptionResourceModel, error) {
	var model subscriptionResourceModel
	var attrs map[string]tftypes.Value
	if err := raw.As(&attrs); err != nil {
		return model, err
	}
	id, err := types.StringType.ValueFromTerraform(ctx, attrs["id"])
	if err != nil {
		return model, err
	}
	plan, err := types.ObjectType{AttrTypes: inlinePlanAttrTypes}.ValueFromTerraform(ctx, attrs["plan"])
	if err != nil {
		return model, err
	}
	model.ID, model.Plan = id.(types.String), plan.(types.Object)
	return model, nil
}
