package provider

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

func newEsimsDataSource() datasource.DataSource { return &esimsDataSource{} }

type esimsDataSource struct{ client *client.Client }

type esimModel struct {
	ICCID          types.String `tfsdk:"iccid"`
	Label          types.String `tfsdk:"label"`
	SmdpState      types.String `tfsdk:"smdp_state"`
	SubscriptionID types.String `tfsdk:"subscription_id"`
	CountryISO2    types.String `tfsdk:"country_iso2"`
	CreatedAt      types.Int64  `tfsdk:"created_at"`
}

var esimAttrTypes = map[string]attr.Type{
	"iccid": types.StringType, "label": types.StringType, "smdp_state": types.StringType,
	"subscription_id": types.StringType, "country_iso2": types.StringType, "created_at": types.Int64Type,
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

type esimsDataSourceModel struct {
	Label     types.String `tfsdk:"label"`
	SmdpState types.String `tfsdk:"smdp_state"`
	Assigned  types.Bool   `tfsdk:"assigned"`
	MaxItems  types.Int64  `tfsdk:"max_items"`
	ICCIDs    types.List   `tfsdk:"iccids"`
	Esims     types.List   `tfsdk:"esims"`
}

func (d *esimsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_esims"
}

func (d *esimsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = dschema.Schema{
		MarkdownDescription: "Every eSIM of the account's inventory, in the service's order, optionally filtered — for example the free ones, to check there are enough before a rollout." + filterNote,
		Attributes: map[string]dschema.Attribute{
			"label": dschema.StringAttribute{MarkdownDescription: "Keep only eSIMs with this compatibility label.", Optional: true, Validators: notEmpty()},
			"smdp_state": dschema.StringAttribute{
				MarkdownDescription: "Keep only eSIMs in this SM-DP+ state, an uppercase word such as `AVAILABLE`, `INSTALLED` or `RELEASED`.",
				Optional:            true,
				Validators: []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^[A-Z][A-Z_]*$`),
					"must be an uppercase word such as AVAILABLE, as the service spells SM-DP+ states")},
			},
			"assigned":  dschema.BoolAttribute{MarkdownDescription: "`true` keeps only eSIMs assigned to a subscription; `false` keeps only free ones.", Optional: true},
			"max_items": maxItemsAttribute(),
			"iccids":    keysAttribute("ICCIDs of the eSIMs found, in the same order as `esims`."),
			"esims": dschema.ListNestedAttribute{
				MarkdownDescription: "The eSIMs found.",
				Computed:            true,
				NestedObject:        dschema.NestedAttributeObject{Attributes: esimAttributes(false)},
			},
		},
	}
}

func (d *esimsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = clientFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *esimsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg esimsDataSourceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	keep := func(e client.Esim) bool {
		return matches(cfg.Label, e.Label) && matches(cfg.SmdpState, &e.SmdpState) &&
			(cfg.Assigned.IsNull() || (e.SubscriptionID != nil) == cfg.Assigned.ValueBool())
	}
	cfg.Esims, cfg.ICCIDs = listing[client.Esim, esimModel]{
		what: "eSIMs", seq: d.client.Esims(ctx), keep: keep, maxItems: cfg.MaxItems,
		convert: newEsimModel, itemTypes: esimAttrTypes, key: func(e esimModel) types.String { return e.ICCID },
	}.read(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

func newEsimDataSource() datasource.DataSource {
	return &lookupDataSource[client.Esim, esimModel]{
		typeSuffix:  "_esim",
		what:        "eSIM",
		keyAttr:     "iccid",
		description: "One eSIM of the inventory, by ICCID. An eSIM that does not exist is an error.",
		attributes:  func() map[string]dschema.Attribute { return esimAttributes(true) },
		get:         (*client.Client).GetEsim,
		convert:     func(e *client.Esim) (esimModel, diag.Diagnostics) { return newEsimModel(*e) },
	}
}
