package provider

import (
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// Descriptions shared by the resource and the data sources, so that the
// same attribute reads the same on every docs page.
const (
	descID                 = "Subscription id, assigned by the service. Also the import id."
	descSubscriptionPlanID = "Id of the plan the subscription was made from (for an inline plan, the custom plan the service created)."
	descEsimICCID          = "ICCID of the eSIM the service assigned to the subscription."
	descState              = "Lifecycle state: `ready` (created, eSIM not used yet), `active` (in use) or `expired` (past `expire_at`)."
	descCreatedAt          = "When the subscription was created, in Unix seconds."
	descActivatedAt        = "When the subscription became active, in Unix seconds; null until its eSIM is first used."
	descExpireAt           = "When the subscription expires, in Unix seconds: null until it becomes active, then `activated_at` + `period_days` × `period_iterations` days."
	descMetadata           = "Metadata the service keeps on the subscription (string keys and values)."
	descPlanDetails        = "The plan as attached to the subscription."
	descPurchasedAllowance = "Data, voice and SMS the plan grants."
	descRemainingAllowance = "What is left of `purchased_allowance`."
)

type planDetailsModel struct {
	Name               types.String `tfsdk:"name"`
	DataMegabytes      types.Int64  `tfsdk:"data_megabytes"`
	PeriodDays         types.Int64  `tfsdk:"period_days"`
	PeriodIterations   types.Int64  `tfsdk:"period_iterations"`
	ThrottledSpeedKbps types.Int64  `tfsdk:"throttled_speed_kbps"`
	Label              types.String `tfsdk:"label"`
	CoverageProfileID  types.String `tfsdk:"coverage_profile_id"`
}

// attrDesc describes one computed attribute of a nested object.
type attrDesc struct {
	isInt bool
	desc  string
}

var planDetailsDescriptions = map[string]attrDesc{
	"name":                 {false, "Name of the plan (deprecated by the service)."},
	"data_megabytes":       {true, "Data allocation in megabytes."},
	"period_days":          {true, "Validity of one period in days."},
	"period_iterations":    {true, "How many times the period repeats (the service's default is 1)."},
	"throttled_speed_kbps": {true, "Speed after the data is used up, in kbit/s; 0 means no use is allowed afterwards."},
	"label":                {false, "Plan-eSIM compatibility label; null when the plan has none."},
	"coverage_profile_id":  {false, "Coverage profile of the plan."},
}

var allowanceDescriptions = map[string]attrDesc{
	"data_bytes":    {true, "Data allowance in bytes; null when the service reports none."},
	"voice_seconds": {true, "Voice in seconds; null when the plan has no voice."},
	"sms_messages":  {true, "Number of SMS messages; null when the plan has no SMS."},
}

func resourceComputedAttributes(descs map[string]attrDesc) map[string]rschema.Attribute {
	out := make(map[string]rschema.Attribute, len(descs))
	for name, d := range descs {
		if d.isInt {
			out[name] = rschema.Int64Attribute{MarkdownDescription: d.desc, Computed: true}
		} else {
			out[name] = rschema.StringAttribute{MarkdownDescription: d.desc, Computed: true}
		}
	}
	return out
}

func dataSourceComputedAttributes(descs map[string]attrDesc) map[string]dschema.Attribute {
	out := make(map[string]dschema.Attribute, len(descs))
	for name, d := range descs {
		if d.isInt {
			out[name] = dschema.Int64Attribute{MarkdownDescription: d.desc, Computed: true}
		} else {
			out[name] = dschema.StringAttribute{MarkdownDescription: d.desc, Computed: true}
		}
	}
	return out
}

// subscriptionDataSourceAttributes are the attributes of a subscription as a
// data source shows it; idRequired makes `id` the lookup key.
func subscriptionDataSourceAttributes(idRequired bool) map[string]dschema.Attribute {
	id := dschema.StringAttribute{MarkdownDescription: descID, Computed: true}
	if idRequired {
		id = dschema.StringAttribute{MarkdownDescription: "Id of the subscription to read.", Required: true, Validators: notEmpty()}
	}
	return map[string]dschema.Attribute{
		"id":           id,
		"plan_id":      dschema.StringAttribute{MarkdownDescription: descSubscriptionPlanID, Computed: true},
		"esim_iccid":   dschema.StringAttribute{MarkdownDescription: descEsimICCID, Computed: true},
		"state":        dschema.StringAttribute{MarkdownDescription: descState, Computed: true},
		"created_at":   dschema.Int64Attribute{MarkdownDescription: descCreatedAt, Computed: true},
		"activated_at": dschema.Int64Attribute{MarkdownDescription: descActivatedAt, Computed: true},
		"expire_at":    dschema.Int64Attribute{MarkdownDescription: descExpireAt, Computed: true},
		"metadata":     dschema.MapAttribute{MarkdownDescription: descMetadata, Computed: true, ElementType: types.StringType},
		"plan_details": dschema.SingleNestedAttribute{MarkdownDescription: descPlanDetails, Computed: true,
			Attributes: dataSourceComputedAttributes(planDetailsDescriptions)},
		"purchased_allowance": dschema.SingleNestedAttribute{MarkdownDescription: descPurchasedAllowance, Computed: true,
			Attributes: dataSourceComputedAttributes(allowanceDescriptions)},
		"remaining_allowance": dschema.SingleNestedAttribute{MarkdownDescription: descRemainingAllowance, Computed: true,
			Attributes: dataSourceComputedAttributes(allowanceDescriptions)},
	}
}

// clientFrom takes the configured client out of ProviderData. It is nil
// before the provider is configured (during validation), which callers
// tolerate because no request is made then.
func clientFrom(data any, diags *diag.Diagnostics) *client.Client {
	if data == nil {
		return nil
	}
	if d, ok := data.(*resourceData); ok {
		return d.client
	}
	c, ok := data.(*client.Client)
	if !ok {
		diags.AddError("Unexpected provider data", "The provider handed over an unexpected client type; this is a bug in the provider, please report it.")
		return nil
	}
	return c
}
