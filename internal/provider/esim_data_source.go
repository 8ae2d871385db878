package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// mobileplan_esim reads one eSIM by ICCID. Its model and attributes are
// also those of each item of mobileplan_esims.

var _ datasource.DataSourceWithConfigure = (*lookupDataSource[client.Esim, esimModel])(nil)

func newEsimDataSource() datasource.DataSource {
	return &lookupDataSource[client.Esim, esimModel]{
		typeSuffix:  "_esim",
		what:        "eSIM",
		keyAttr:     "iccid",
		description: "One eSIM of the inventory, by ICCID. An eSIM that does not exist is an error.",
		attributes:  esimAttributes(true),
		get: func(ctx context.Context, c *client.Client, iccid string) (*client.Esim, error) {
			return c.GetEsim(ctx, iccid)
		},
		convert: newEsimModel,
	}
}

type esimModel struct {
	ICCID          types.String `tfsdk:"iccid"`
	Label          types.String `tfsdk:"label"`
	SmdpState      types.String `tfsdk:"smdp_state"`
	SubscriptionID types.String `tfsdk:"subscription_id"`
	CountryISO2    types.String `tfsdk:"country_iso2"`
	CreatedAt      types.Int64  `tfsdk:"created_at"`
}

func newEsimModel(e client.Esim) (esimModel, diag.Diagnostics) {
	return esimModel{
		ICCID:          types.StringValue(e.ICCID),
		Label:          types.StringPointerValue(e.Label),
		SmdpState:      types.StringValue(e.SmdpState),
		SubscriptionID: types.StringPointerValue(e.SubscriptionID),
		CountryISO2:    types.StringPointerValue(e.CountryISO2),
		CreatedAt:      types.Int64Value(e.CreatedAt),
	}, nil
}

// esimAttributes are an eSIM's attributes as data sources show them;
// iccidRequired makes `iccid` the lookup key.
func esimAttributes(iccidRequired bool) map[string]dschema.Attribute {
	iccid := dschema.StringAttribute{MarkdownDescription: "ICCID of the eSIM.", Computed: true}
	if iccidRequired {
		iccid = dschema.StringAttribute{MarkdownDescription: "ICCID of the eSIM to read.", Required: true, Validators: notEmpty()}
	}
	return map[string]dschema.Attribute{
		"iccid":           iccid,
		"label":           dschema.StringAttribute{MarkdownDescription: "Compatibility label; only plans with the same label (or none) can use this eSIM.", Computed: true},
		"smdp_state":      dschema.StringAttribute{MarkdownDescription: "SM-DP+ state, an uppercase word such as `AVAILABLE`, `INSTALLED` or `RELEASED`.", Computed: true},
		"subscription_id": dschema.StringAttribute{MarkdownDescription: "Subscription the eSIM is assigned to; null while it is free in the inventory.", Computed: true},
		"country_iso2":    dschema.StringAttribute{MarkdownDescription: "ISO 3166 alpha-2 code of the country where the eSIM was last seen; null if never.", Computed: true},
		"created_at":      dschema.Int64Attribute{MarkdownDescription: "When the eSIM entered the inventory, in Unix seconds.", Computed: true},
	}
}
