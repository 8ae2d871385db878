package provider

import (
	"context"
	"math"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
)

// Renewal, opt in with early_renewal_hours: a subscription that has expired,
// or is active and expires within that many hours, is replaced, the way
// hashicorp/tls renews a certificate. ready_for_renewal is false in state;
// the plan that finds the subscription due sets it to true and requires
// replacement on it. The new subscription is a create like any other: a
// new eSIM, and the old subscription forgotten, since the service deletes
// none.
//
// What moves a subscription into its window is time alone, so the plan
// that renews it has a prior state equal to its proposed new state. A
// shortcut that answers such plans without the framework (package fastpath)
// must leave to it every state renewalPossible accepts, whatever the clock
// says: ModifyPlan renews only such states (subscriptionSpeedUps tells it
// so).

var (
	earlyRenewalHoursPath = path.Root("early_renewal_hours")
	expireAtPath          = path.Root("expire_at")
	readyForRenewalPath   = path.Root("ready_for_renewal")
)

// renewalTimeAttributes are the attributes that, with the clock, decide a
// renewal: a plan whose prior state equals its proposed one changes with
// time alone only when renewalPossible says so of them.
var renewalTimeAttributes = []string{earlyRenewalHoursPath.String(), expireAtPath.String()}

// renewalPossible reports whether a subscription may be due for renewal at
// some time, given which of renewalTimeAttributes are set (not null) in its
// state: renewIfDue renews only when all of them are.
func renewalPossible(isSet func(attribute string) bool) bool {
	for _, name := range renewalTimeAttributes {
		if !isSet(name) {
			return false
		}
	}
	return true
}

// renewIfDue marks the plan of an existing subscription for renewal when
// it is due, and reports whether it did. Every plan of every subscription
// passes here, and almost none sets early_renewal_hours: the rule
// (renewalPossible) asks first for early_renewal_hours in the plan, read
// straight from the plan's value, and nothing else, the clock included, is
// read unless the answer can be a renewal.
func (r *subscriptionResource) renewIfDue(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) bool {
	possible := renewalPossible(func(name string) bool {
		value := resp.Plan.Raw // early_renewal_hours is the configuration's
		if name == expireAtPath.String() {
			value = req.State.Raw
		}
		return isSet(value, name)
	})
	if !possible {
		return false
	}
	var hours, expireAt types.Int64
	var state, id, iccid types.String
	diags := resp.Plan.GetAttribute(ctx, earlyRenewalHoursPath, &hours)
	diags.Append(req.State.GetAttribute(ctx, expireAtPath, &expireAt)...)
	diags.Append(req.State.GetAttribute(ctx, path.Root("state"), &state)...)
	if diags.HasError() || !renewalDue(state.ValueString(), expireAt.ValueInt64(), hours.ValueInt64(), r.now().Unix()) {
		resp.Diagnostics.Append(diags...)
		return false
	}
	diags.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	diags.Append(req.State.GetAttribute(ctx, path.Root("esim_iccid"), &iccid)...)
	diags.Append(resp.Plan.SetAttribute(ctx, readyForRenewalPath, true)...)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return false
	}
	resp.RequiresReplace = append(resp.RequiresReplace, readyForRenewalPath)
	resp.Diagnostics.Append(diagnostics.Renewal(earlyRenewalHoursPath, id.ValueString(), iccid.ValueString(),
		state.ValueString() == client.StateExpired, time.Unix(expireAt.ValueInt64(), 0), hours.ValueInt64()))
	return true
}

// isSet reports whether object, a plan or state of the resource, holds a
// known, non-null value of its top-level attribute name: one map lookup,
// where the framework's GetAttribute would look the path up in the schema
// and convert the value.
func isSet(object tftypes.Value, name string) bool {
	v, err := object.ApplyTerraform5AttributePathStep(tftypes.AttributeName(name))
	value, ok := v.(tftypes.Value)
	return err == nil && ok && value.IsKnown() && !value.IsNull()
}

// renewalDue reports whether a subscription in state, expiring at expireAt
// (Unix seconds), is due for renewal at now with early_renewal_hours hours:
// it has expired, or expires less than that many hours from now. A
// negative hours, which the validator refuses, counts as 0; a window beyond
// what int64 seconds hold reaches any expiry.
func renewalDue(state string, expireAt, hours, now int64) bool {
	if state == client.StateExpired {
		return true
	}
	hours = max(hours, 0)
	if hours > math.MaxInt64/3600 {
		return true
	}
	window := hours * 3600
	if now > 0 && window > math.MaxInt64-now {
		return true
	}
	return expireAt < now+window
}
