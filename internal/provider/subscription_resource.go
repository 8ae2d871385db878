package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/recovery"
)

var (
	_ resource.Resource                     = (*subscriptionResource)(nil)
	_ resource.ResourceWithConfigure        = (*subscriptionResource)(nil)
	_ resource.ResourceWithImportState      = (*subscriptionResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*subscriptionResource)(nil)
	_ resource.ResourceWithConfigValidators = (*subscriptionResource)(nil)
	_ resource.ResourceWithUpgradeState     = (*subscriptionResource)(nil)
)

// subscriptionTypeName is the resource's type name, and its list
// resource's.
const subscriptionTypeName = "mobileplan_subscription"

func newSubscriptionResource() resource.Resource { return &subscriptionResource{} }

type subscriptionResource struct {
	client        *client.Client
	run           *operations
	preflight     *preflight
	subscriptions subscriptionReader
	states        stateCodec
	now           func() time.Time // renewal's clock
	recovery      *recovery.Session
}

func (r *subscriptionResource) Metadata(_ context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = subscriptionTypeName
}

func (r *subscriptionResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = subscriptionResourceSchema()
}

func subscriptionResourceSchema() schema.Schema {
	// Every computed attribute keeps its state value in plans: they change
	// only at the service, and a refresh before each plan brings those
	// changes in. Without this, every plan after an in-place update of
	// `plan` would show them all as "known after apply".
	keepString := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	keepInt := []planmodifier.Int64{int64planmodifier.UseStateForUnknown()}
	keepObject := []planmodifier.Object{objectplanmodifier.UseStateForUnknown()}

	return schema.Schema{
		Version: 2, // 0 had remaining_allowance, 1 no renewal: see UpgradeState
		MarkdownDescription: "A mobile-plan subscription: the service assigns an eSIM of the account's inventory to a plan.\n\n" +
			"Give exactly one of `plan_id` (an existing plan) or `plan` (a plan described inline). The service has no update " +
			"and no delete of subscriptions: changing the plan replaces the subscription, and destroying it only removes it " +
			"from Terraform state while it keeps running at the service (Terraform shows a warning in both cases). " +
			"With `early_renewal_hours` set, a subscription that has expired, or expires within that many hours, is replaced by a new one.",
		Attributes: map[string]schema.Attribute{
			"early_renewal_hours": schema.Int64Attribute{
				MarkdownDescription: "Renew the subscription this many hours before it expires: once the refreshed subscription is `expired`, or `active` with `expire_at` " +
					"less than this many hours ahead, the plan sets `ready_for_renewal` and replaces the subscription. The new subscription takes a new eSIM " +
					"(a new ICCID, which the device must be given), and the old one stays at the service and leaves Terraform state. " +
					"`0` renews only once the subscription has expired. Unset (the default), a subscription is never renewed. " +
					"A subscription not yet active has no `expire_at` and is never renewed. Changing it changes nothing at the service.",
				Optional:   true,
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"ready_for_renewal": schema.BoolAttribute{
				MarkdownDescription: "`false` in state; a plan sets it to `true`, which replaces the subscription, when `early_renewal_hours` is set and the subscription is due for renewal.",
				Computed:            true,
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"id": schema.StringAttribute{
				MarkdownDescription: descID,
				Computed:            true,
				PlanModifiers:       keepString,
			},
			// Not deprecated, though the service deprecates a subscription's
			// planId: it is the input that names the plan to subscribe to
			// (the create request's planId is not deprecated), and the only
			// way to know a subscription's plan, since the service's plan
			// object of a subscription (PlanForAttachment) has no id.
			"plan_id": schema.StringAttribute{
				MarkdownDescription: "Id of the plan to subscribe to; it must exist and be neither archived nor an addon. Exactly one of `plan_id` and `plan` must be set. " +
					"When `plan` is used instead, this is set to the id of the plan the service made from it. Changing it replaces the subscription.",
				Optional:      true,
				Computed:      true,
				PlanModifiers: keepString,
				Validators:    []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"plan":         inlinePlanAttribute(),
			"esim_iccid":   schema.StringAttribute{MarkdownDescription: descEsimICCID, Computed: true, PlanModifiers: keepString},
			"state":        schema.StringAttribute{MarkdownDescription: descState, Computed: true, PlanModifiers: keepString},
			"created_at":   schema.Int64Attribute{MarkdownDescription: descCreatedAt, Computed: true, PlanModifiers: keepInt},
			"activated_at": schema.Int64Attribute{MarkdownDescription: descActivatedAt, Computed: true, PlanModifiers: keepInt},
			"expire_at":    schema.Int64Attribute{MarkdownDescription: descExpireAt, Computed: true, PlanModifiers: keepInt},
			"metadata": schema.MapAttribute{
				MarkdownDescription: descMetadata, Computed: true, ElementType: types.StringType,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.UseStateForUnknown()},
			},
			"plan_details": schema.SingleNestedAttribute{
				MarkdownDescription: descPlanDetails, Computed: true, PlanModifiers: keepObject,
				Attributes: planDetails.resourceAttributes(),
			},
			"purchased_allowance": schema.SingleNestedAttribute{
				MarkdownDescription: descPurchasedAllowance, Computed: true, PlanModifiers: keepObject,
				Attributes: allowances.resourceAttributes(),
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeoutsBlock(),
		},
	}
}

// defaultCreateTimeout is the create's bound when timeouts.create is unset:
// as long as a request waits out the service's rate limit without it.
const defaultCreateTimeout = client.DefaultMaxRateLimitWait

// UpgradeState brings a state of an earlier schema to the current one.
// Version 0 also held remaining_allowance, a usage counter that changed
// whenever the eSIM used data, so every refresh of a subscription in use
// reported drift; usage is read from the data sources now. Version 1 had
// no renewal: its states get early_renewal_hours unset and
// ready_for_renewal false, what a read would store, so that the first
// refresh after the upgrade reports no change.
func (r *subscriptionResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	v0, v1 := subscriptionResourceSchemaV0(), subscriptionResourceSchemaV1()
	return map[int64]resource.StateUpgrader{
		0: {PriorSchema: &v0, StateUpgrader: upgradeSubscriptionState},
		1: {PriorSchema: &v1, StateUpgrader: upgradeSubscriptionState},
	}
}

// subscriptionResourceSchemaV1 is the schema of version 1: today's without
// renewal. Give it its own attributes once a later version changes another
// one.
func subscriptionResourceSchemaV1() schema.Schema {
	s := subscriptionResourceSchema()
	s.Version = 1
	s.Blocks = nil
	attrs := maps.Clone(s.Attributes)
	delete(attrs, "early_renewal_hours")
	delete(attrs, "ready_for_renewal")
	s.Attributes = attrs
	return s
}

// subscriptionResourceSchemaV0 is the schema of version 0: version 1's with
// remaining_allowance.
func subscriptionResourceSchemaV0() schema.Schema {
	s := subscriptionResourceSchemaV1()
	s.Version = 0
	attrs := maps.Clone(s.Attributes)
	attrs["remaining_allowance"] = schema.SingleNestedAttribute{Computed: true, Attributes: allowances.resourceAttributes()}
	s.Attributes = attrs
	return s
}

// upgradeSubscriptionState upgrades a state of version 0 or 1.
func upgradeSubscriptionState(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	var attrs map[string]tftypes.Value
	if err := req.State.Raw.As(&attrs); err != nil {
		resp.Diagnostics.AddError("Could not upgrade the subscription's state", err.Error())
		return
	}
	delete(attrs, "remaining_allowance")
	attrs["early_renewal_hours"] = tftypes.NewValue(tftypes.Number, nil)
	attrs["ready_for_renewal"] = tftypes.NewValue(tftypes.Bool, false)
	attrs["timeouts"] = tftypes.NewValue(timeoutsType.TerraformType(ctx), nil)
	resp.State.Raw = tftypes.NewValue(resp.State.Schema.Type().TerraformType(ctx), attrs)
}

func (r *subscriptionResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		resourcevalidator.ExactlyOneOf(path.MatchRoot("plan_id"), path.MatchRoot("plan")),
	}
}

func (r *subscriptionResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	data := providerDataFrom(req.ProviderData, &resp.Diagnostics)
	r.client, r.run, r.preflight, r.subscriptions, r.states, r.now, r.recovery = data.client, data.run, data.preflight, data.subscriptions, data.states, data.now, data.recovery
}

func (r *subscriptionResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	defer r.run.applying()(&resp.Diagnostics)
	// The plan is a value of the state's schema, unknowns included: the
	// codec reads it as it reads a state.
	var plan subscriptionResourceModel
	resp.Diagnostics.Append(r.states.Get(ctx, tfsdk.State{Schema: req.Plan.Schema, Raw: req.Plan.Raw}, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	body := client.CreateSubscriptionRequest{}
	inputPath := path.Root("plan_id")
	if plan.Plan.IsNull() {
		body.PlanID = plan.PlanID.ValueString()
	} else {
		inputPath = path.Root("plan")
		var in inlinePlanModel
		resp.Diagnostics.Append(plan.Plan.As(ctx, &in, basetypes.ObjectAsOptions{})...)
		if resp.Diagnostics.HasError() {
			return
		}
		body.Plan = &client.InlinePlan{CoverageID: in.CoverageID.ValueString(), DataMBs: in.DataMBs.ValueInt64(), PeriodDays: in.PeriodDays.ValueInt64()}
	}

	createTimeout, diags := plan.Timeouts.Create(ctx, defaultCreateTimeout)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, createTimeout)
	defer cancel()

	sub, err := r.recovery.Take(ctx, body)
	if err != nil {
		resp.Diagnostics.Append(diagnostics.APIError("Could not check a subscription a killed run left out of state; nothing was sent (apply again to take it or create)", err, path.Empty()))
		return
	}
	if sub == nil {
		r.preflight.startCreating()
		var journalDiags diag.Diagnostics
		sub, journalDiags, err = r.recovery.Create(ctx, body, r.client.RequestTimeout(), func(ctx context.Context) (*client.Subscription, error) {
			return r.client.CreateSubscription(ctx, body)
		})
		resp.Diagnostics.Append(journalDiags...)
		if err != nil {
			attr := path.Empty()
			if client.IsPreconditionFailed(err) || client.IsBadRequest(err) {
				attr = inputPath // the plan was refused, or the service has no eSIM for it
			}
			resp.Diagnostics.Append(diagnostics.APIError("Could not create subscription", err, attr))
			return
		}
		if sub == nil {
			return // not sent: the journal's diagnostics say why
		}
	}
	r.recovery.Saw(sub.ID) // in state even if what follows fails: the framework keeps what was set
	model, diags := subscriptionResourceModelOf(sub, plan)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	resp.Diagnostics.Append(r.states.Set(ctx, &resp.State, &model)...)
	resp.Diagnostics.Append(setSubscriptionIdentity(ctx, resp.Identity, types.StringValue(sub.ID))...)
}

func (r *subscriptionResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	defer r.run.operation()(&resp.Diagnostics)
	var state subscriptionResourceModel
	resp.Diagnostics.Append(r.states.Get(ctx, req.State, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Identity first: a subscription found gone leaves no state, yet the
	// framework still wants an identity, which CLIs without identity support
	// never send.
	resp.Diagnostics.Append(setSubscriptionIdentity(ctx, resp.Identity, state.ID)...)
	id := state.ID.ValueString()
	sub, err := r.subscriptions.Subscription(ctx, id, state.CreatedAt.ValueInt64())
	moved := movedFrom(ctx, req.Private)
	switch {
	case client.IsNotFound(err) && moved != nil:
		// Moved in and never found: the moved state named no subscription
		// of this service. Forgetting it would plan a create.
		resp.Diagnostics.Append(diagnostics.MoveSubscriptionMissing(*moved, diagnostics.Detail(err)))
		return
	case client.IsNotFound(err):
		r.recovery.Removed(id)
		resp.Diagnostics.AddWarning("Subscription no longer exists",
			fmt.Sprintf("The service has no subscription %s any more, so it was removed from Terraform state, and Terraform plans to create it again.", id))
		resp.State.RemoveResource(ctx)
		return
	case err != nil:
		// Any other failure keeps the state as it was: a transient error
		// must never make Terraform forget a subscription.
		resp.Diagnostics.Append(diagnostics.APIError("Could not read subscription "+id, err, path.Empty()))
		return
	}
	model, diags := subscriptionResourceModelOf(sub, state)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	resp.Diagnostics.Append(r.states.Set(ctx, &resp.State, &model)...)
	r.recovery.Saw(id)
	if moved != nil {
		resp.Diagnostics.Append(resp.Private.SetKey(ctx, movedFromKey, nil)...) // found: an ordinary subscription from now on
	}
}

// Update is reached only when `plan` is written into state without a change
// of the plan it describes (after an import, or when switching between the
// two input forms for the same plan), or when early_renewal_hours changes.
// Nothing changes at the service, so it calls no API.
func (r *subscriptionResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state subscriptionResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	state.Plan, state.EarlyRenewalHours, state.Timeouts = plan.Plan, plan.EarlyRenewalHours, plan.Timeouts
	state.ReadyForRenewal = types.BoolValue(false)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	resp.Diagnostics.Append(setSubscriptionIdentity(ctx, resp.Identity, state.ID)...)
}

// Delete calls no API: the service cannot delete a subscription. Under
// lifecycle { destroy = false } the CLI does not call it at all.
func (r *subscriptionResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state subscriptionResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	r.recovery.Removed(state.ID.ValueString())
	resp.Diagnostics.Append(diagnostics.StillAtService(state.ID.ValueString(), state.EsimICCID.ValueString()))
}

// movedFromKey is the private state key of a subscription moved in
// (subscription_move.go) and not yet found at the service; its value names
// the moved object.
const movedFromKey = "moved_from"

// movedFrom is the object a subscription in state was moved from and not
// yet found at the service since; nil for any other subscription.
func movedFrom(ctx context.Context, private interface {
	GetKey(context.Context, string) ([]byte, diag.Diagnostics)
}) *diagnostics.MoveSource {
	raw, diags := private.GetKey(ctx, movedFromKey)
	var src diagnostics.MoveSource
	if diags.HasError() || len(raw) == 0 || json.Unmarshal(raw, &src) != nil {
		return nil
	}
	return &src
}
