package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// subscriptionStateType is the resource's state type, its schema's.
var subscriptionStateType = subscriptionResourceSchema().Type().TerraformType(context.Background()).(tftypes.Object)

// subscriptionValues are the attributes of sub as the service answers them,
// Terraform values of the schema's types: the one mapping of a subscription
// from the client's type, which the resource and the data sources show. The
// data sources add usage (subscriptionModel): a usage counter in a resource
// would be drift on every refresh of a subscription in use.
func subscriptionValues(sub *client.Subscription) map[string]tftypes.Value {
	metadata := tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, nil)
	if sub.Metadata != nil {
		elems := make(map[string]tftypes.Value, len(sub.Metadata))
		for k, v := range sub.Metadata {
			elems[k] = tftypes.NewValue(tftypes.String, v)
		}
		metadata = tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, elems)
	}
	return map[string]tftypes.Value{
		"id":                  stringValue(sub.ID),
		"plan_id":             stringValue(sub.PlanID),
		"esim_iccid":          stringValue(sub.EsimICCID),
		"state":               stringValue(sub.State),
		"created_at":          numberValue(sub.CreatedAt),
		"activated_at":        numberOrNull(sub.ActivatedAt),
		"expire_at":           numberOrNull(sub.ExpireAt),
		"metadata":            metadata,
		"plan_details":        planDetailsShape.value(&sub.Plan),
		"purchased_allowance": allowanceShape.value(&sub.PurchasedAllowance),
	}
}

// subscriptionState is the resource's state for sub, with the inputs the
// service does not keep (`plan`, `early_renewal_hours`) taken from in, and
// ready_for_renewal false: it is true only in a plan that renews. This is
// what resp.State.Set of the model would store, built directly.
// State.Set reflects over the model and converts each attribute through the
// framework's types, which was 8% of the provider's CPU time in a
// refreshing plan; this is a fifth of its allocations.
// TestSubscriptionState_isWhatStateSetStores compares the two.
func subscriptionState(ctx context.Context, sub *client.Subscription, in subscriptionResourceModel) (tftypes.Value, error) {
	planValue, err := in.Plan.ToTerraformValue(ctx)
	if err != nil {
		return tftypes.Value{}, err
	}
	hours, err := in.EarlyRenewalHours.ToTerraformValue(ctx)
	if err != nil {
		return tftypes.Value{}, err
	}
	attrs := subscriptionValues(sub)
	attrs["plan"] = planValue
	attrs["early_renewal_hours"] = hours
	attrs["ready_for_renewal"] = boolValue(false)
	return tftypes.NewValue(subscriptionStateType, attrs), nil
}

// subscriptionStateKept reads from a state the attributes Read keeps: the
// id, to read the subscription by, and the inputs the service does not
// return, `plan` and `early_renewal_hours`. The rest of the model is left
// null. Read's req.State.Get of the whole model reflected over every
// attribute, a tenth of the provider's CPU time in a refreshing plan.
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
	hours, err := types.Int64Type.ValueFromTerraform(ctx, attrs["early_renewal_hours"])
	if err != nil {
		return model, err
	}
	model.ID, model.Plan, model.EarlyRenewalHours = id.(types.String), plan.(types.Object), hours.(types.Int64)
	return model, nil
}

// noInputs are the inputs of a subscription Terraform did not make: none.
func noInputs() subscriptionResourceModel {
	return subscriptionResourceModel{Plan: types.ObjectNull(inlinePlanAttrTypes), EarlyRenewalHours: types.Int64Null()}
}
