package provider

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/fastpath"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/recovery"
)

// ModifyPlan decides replacement in one place, because whether the plan a
// subscription was made from has changed depends on two attributes at once:
// a configuration in the inline form must be compared with `plan_details`
// after an import (Read cannot know which form made the subscription), and
// switching between the forms for the same plan is no change at all. It
// renews a subscription that early_renewal_hours finds due
// (subscription_renewal.go), which only time makes due, so it is checked
// on plans equal to the prior state too. It also warns, at plan time, about
// what the service cannot do: delete a subscription, so that replacing or
// destroying one leaves it running. For a create it runs the preflight
// (preflight.go).
func (r *subscriptionResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() {
		// A create: a new subscription, or the create half of a
		// replacement, which Terraform plans again with no prior state.
		planCreate(ctx, r.run, r.preflight, r.recovery, req.Config, &resp.Diagnostics)
		return
	}
	if req.Plan.Raw.IsNull() {
		var id, iccid types.String
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("esim_iccid"), &iccid)...)
		resp.Diagnostics.Append(diagnostics.DestroyOnlyForgets(id.ValueString(), iccid.ValueString()))
		return
	}
	if r.renewIfDue(ctx, req, resp) || resp.Diagnostics.HasError() {
		return // a renewal replaces the subscription whatever else changed
	}
	if req.Plan.Raw.Equal(req.State.Raw) {
		return // nothing changes: the common case of every refresh-and-plan
	}
	var state subscriptionResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var config subscriptionResourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &config)...)
	if resp.Diagnostics.HasError() {
		return
	}
	changed, at, diags := planChanged(ctx, config, state)
	resp.Diagnostics.Append(diags...)
	if !changed || resp.Diagnostics.HasError() {
		return
	}
	resp.RequiresReplace = append(resp.RequiresReplace, at)
	unknown, diags := unknownInput(ctx, config)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if unknown {
		resp.Diagnostics.Append(diagnostics.ReplaceUnknownPlan(at, state.ID.ValueString(), state.EsimICCID.ValueString()))
		return
	}
	resp.Diagnostics.Append(diagnostics.ReplaceLeavesOld(at, state.ID.ValueString(), state.EsimICCID.ValueString()))
}

// planCreate is all ModifyPlan does for a create, and all it may do: the
// accelerator that plans creates without the framework calls it through
// planSubscriptionCreate (subscriptionSpeedUps). It runs the preflight and changes nothing in the
// plan. ready_for_renewal stays unknown: set here, the plan of a renewal
// would show it unchanged (false in state, false in the new
// subscription's plan) and hide which attribute forces the replacement.
// It counts the create for the journal of creates, whose report at the
// run's end says what the apply takes (package recovery).
func planCreate(ctx context.Context, run *operations, p *preflight, rec *recovery.Session, config tfsdk.Config, diags *diag.Diagnostics) {
	defer run.planning()(diags)
	request := func() string { return requestOfConfig(ctx, config) }
	diags.Append(rec.PlanCreate(request)...)
	p.checkCreate(ctx, config, createFacts{takesLeftover: func() bool { return rec.MayTake(request) }, applyWalk: rec.ApplyWalk}, diags)
}

// subscriptionSpeedUps is what package fastpath's accelerator is told of
// mobileplan_subscription: ModifyPlan leaves a plan equal to the prior
// state as it is unless renewalPossible accepts the state, and does for a
// create only what planCreate, called through planCreateOf (the
// provider's, which holds its configuration), does; the provider defers
// only from Configure, as configureDeferred (the provider's) reports.
func subscriptionSpeedUps(planCreateOf func(ctx context.Context, config tftypes.Value) (diag.Diagnostics, bool), configureDeferred func() bool) fastpath.Resource {
	return fastpath.Resource{
		TypeName:          subscriptionTypeName,
		RenewalAttributes: slices.Clone(renewalTimeAttributes),
		RenewalPossible:   renewalPossible,
		PlanCreate:        planCreateOf,
		ConfigureDeferred: configureDeferred,
	}
}

// planChanged reports whether the configuration describes another plan than
// the one the subscription in state was made from, and which attribute says so.
func planChanged(ctx context.Context, config, state subscriptionResourceModel) (bool, path.Path, diag.Diagnostics) {
	if !config.PlanID.IsNull() {
		at := path.Root("plan_id")
		if config.PlanID.IsUnknown() {
			return true, at, nil
		}
		return config.PlanID.ValueString() != state.PlanID.ValueString(), at, nil
	}
	at := path.Root("plan")
	if config.Plan.IsUnknown() || config.Plan.IsNull() {
		return config.Plan.IsUnknown(), at, nil
	}
	var want inlinePlanModel
	diags := config.Plan.As(ctx, &want, basetypes.ObjectAsOptions{UnhandledUnknownAsEmpty: true})
	if diags.HasError() {
		return false, at, diags
	}
	if want.CoverageID.IsUnknown() || want.DataMBs.IsUnknown() || want.PeriodDays.IsUnknown() {
		return true, at, diags
	}
	if !state.Plan.IsNull() {
		var had inlinePlanModel
		diags.Append(state.Plan.As(ctx, &had, basetypes.ObjectAsOptions{})...)
		return !want.CoverageID.Equal(had.CoverageID) || !want.DataMBs.Equal(had.DataMBs) || !want.PeriodDays.Equal(had.PeriodDays), at, diags
	}
	// Imported, or created from plan_id: compare with what the service says
	// the subscription's plan is. An inline plan always has one period and
	// no label, so a plan with either is another product even when the
	// three configurable numbers match.
	details := state.PlanDetails.Attributes() // none when null
	iterations, _ := details["period_iterations"].(basetypes.Int64Value)
	label, _ := details["label"].(basetypes.StringValue)
	same := want.CoverageID.Equal(details["coverage_profile_id"]) &&
		want.DataMBs.Equal(details["data_megabytes"]) &&
		want.PeriodDays.Equal(details["period_days"]) &&
		(iterations.IsNull() || iterations.ValueInt64() == 1) &&
		label.IsNull()
	return !same, at, diags
}

// unknownInput reports whether the plan a configuration describes is not
// known until apply.
func unknownInput(ctx context.Context, config subscriptionResourceModel) (bool, diag.Diagnostics) {
	if config.PlanID.IsUnknown() || config.Plan.IsUnknown() {
		return true, nil
	}
	if config.Plan.IsNull() {
		return false, nil
	}
	var want inlinePlanModel
	diags := config.Plan.As(ctx, &want, basetypes.ObjectAsOptions{UnhandledUnknownAsEmpty: true})
	return want.CoverageID.IsUnknown() || want.DataMBs.IsUnknown() || want.PeriodDays.IsUnknown(), diags
}
