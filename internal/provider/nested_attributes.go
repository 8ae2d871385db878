package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// planDetailsModel is what a subscription shows of its plan
// (plan_details), and what a plan shows of itself besides its id, flags and
// creation time. Declared as declared_object.go says.
type planDetailsModel struct {
	Name               types.String `tfsdk:"name" from:"Name" desc:"Name of the plan. Deprecated by the service." planDesc:"Name of the plan."`
	DataMegabytes      types.Int64  `tfsdk:"data_megabytes" from:"DataMegaBytes" desc:"Data allocation in megabytes."`
	PeriodDays         types.Int64  `tfsdk:"period_days" from:"PeriodDays" desc:"Validity of one period in days."`
	PeriodIterations   types.Int64  `tfsdk:"period_iterations" from:"PeriodIterations" default:"1" desc:"How many times the period repeats (the service's default is 1)."`
	ThrottledSpeedKbps types.Int64  `tfsdk:"throttled_speed_kbps" from:"ThrottledSpeedKbps" default:"0" desc:"Speed after the data is used up, in kbit/s; 0 means no use is allowed afterwards."`
	Label              types.String `tfsdk:"label" from:"Label" desc:"Plan-eSIM compatibility label; null when the plan has none."`
	CoverageProfileID  types.String `tfsdk:"coverage_profile_id" from:"CoverageProfileID" desc:"Coverage profile of the plan."`
}

// planDetails is plan_details, read from a subscription's copy of its plan
// (client.PlanForAttachment) or from the plan itself (client.Plan).
var planDetails = declare[planDetailsModel](map[string]string{"name": planNameDeprecation})

// planNameDeprecation: the service deprecates `name` of a subscription's
// plan (PlanForAttachment), not of the plan itself, which the plan data
// sources show without one.
const planNameDeprecation = "The service deprecates the name of a subscription's plan (plan.name); it may stop sending it, and this attribute would then be null. " +
	"Tell plans apart by plan_id, or read the name from the mobileplan_plan data source."

// allowanceModel is purchased_allowance and remaining_allowance.
type allowanceModel struct {
	DataBytes    types.Int64 `tfsdk:"data_bytes" from:"DataBytes" desc:"Data allowance in bytes; null when the service reports none."`
	VoiceSeconds types.Int64 `tfsdk:"voice_seconds" from:"VoiceSeconds" desc:"Voice in seconds; null when the plan has no voice."`
	SmsMessages  types.Int64 `tfsdk:"sms_messages" from:"SmsMessages" desc:"Number of SMS messages; null when the plan has no SMS."`
}

var allowances = declare[allowanceModel](nil)

// inlinePlanAttribute is the resource's `plan` input: a plan described in
// place. inlinePlanModel reads it.
func inlinePlanAttribute() rschema.SingleNestedAttribute {
	return rschema.SingleNestedAttribute{
		MarkdownDescription: "A plan described inline; the service creates a custom plan from it. Exactly one of `plan_id` and `plan` must be set. Changing it replaces the subscription, unless it describes the same plan as `plan_details` (as after an import), which only records it in state.",
		Optional:            true,
		Attributes: map[string]rschema.Attribute{
			"coverage_id": rschema.StringAttribute{
				MarkdownDescription: "Id of the coverage profile, such as `cov-eu`; after an import it is compared with `plan_details.coverage_profile_id`.",
				Required:            true,
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"data_mbs": rschema.Int64Attribute{
				MarkdownDescription: "Data allocation in megabytes; at least 1.",
				Required:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
			"period_days": rschema.Int64Attribute{
				MarkdownDescription: "Validity of the plan in days; at least 1.",
				Required:            true,
				Validators:          []validator.Int64{int64validator.AtLeast(1)},
			},
		},
	}
}

// inlinePlanModel is the `plan` input, read.
type inlinePlanModel struct {
	CoverageID types.String `tfsdk:"coverage_id"`
	DataMBs    types.Int64  `tfsdk:"data_mbs"`
	PeriodDays types.Int64  `tfsdk:"period_days"`
}

// The `plan` input's attribute types, its schema's.
var inlinePlanAttrTypes = inlinePlanAttribute().GetType().(types.ObjectType).AttrTypes
