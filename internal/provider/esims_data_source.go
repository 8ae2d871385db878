package provider

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

var _ datasource.DataSourceWithConfigure = (*esimsDataSource)(nil)

func newEsimsDataSource() datasource.DataSource { return &esimsDataSource{} }

// esimsDataSource is mobileplan_esims: the eSIM inventory, filtered by the
// provider.
type esimsDataSource struct{ baseDataSource }

type esimsDataSourceModel struct {
	Label     types.String `tfsdk:"label"`
	SmdpState types.String `tfsdk:"smdp_state"`
	Assigned  types.Bool   `tfsdk:"assigned"`
	MaxItems  types.Int64  `tfsdk:"max_items"`
	ICCIDs    []string     `tfsdk:"iccids"`
	Esims     []esimModel  `tfsdk:"esims"`
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
			"esims":     itemsAttribute("The eSIMs found.", esimAttributes(false)),
		},
	}
}

func (d *esimsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	defer d.run.operation()(&resp.Diagnostics)
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
		what: "eSIMs", seq: d.esims.All(ctx), keep: keep, maxItems: cfg.MaxItems,
		convert: newEsimModel, key: func(e client.Esim) string { return e.ICCID }, itemType: itemType(esimAttributes(false)),
	}.read(ctx, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
