package provider

import (
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The nested objects a subscription carries, plan_details and the two
// allowances, are alike in the resource and the data sources: every
// attribute computed, described once here, built for either schema.

// planDetailsModel is plan_details; planModel (plan_data_source.go) embeds
// it, since a plan has the same details.
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
