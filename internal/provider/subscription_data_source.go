package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// mobileplan_subscription reads one subscription by id. Its attributes are
// also those of each item of mobileplan_subscriptions: the resource's
// (subscriptionItemModel), and usage, which only the data sources show.

var _ datasource.DataSourceWithConfigure = (*lookupDataSource[client.Subscription, subscriptionItemModel])(nil)

func newSubscriptionDataSource() datasource.DataSource {
	return &lookupDataSource[client.Subscription, subscriptionItemModel]{
		typeSuffix:  "_subscription",
		what:        "subscription",
		keyAttr:     "id",
		description: "One subscription, by id, with the same read-only attributes as the `mobileplan_subscription` resource. A subscription that does not exist is an error.",
		attributes:  subscriptionDataSourceAttributes(true),
		get: func(ctx context.Context, c *client.Client, id string) (*client.Subscription, error) {
			return c.GetSubscription(ctx, id)
		},
		convert: subscriptionItemModelOf,
	}
}

// subscriptionDataSourceAttributes are the attributes of a subscription as a
// data source shows it: one, whose `id` is the lookup key, or an item of
// a list (declaredObject.dataSourceAttributes: inList).
func subscriptionDataSourceAttributes(one bool) map[string]dschema.Attribute {
	id := dschema.StringAttribute{MarkdownDescription: descID, Computed: true}
	if one {
		id = dschema.StringAttribute{MarkdownDescription: "Id of the subscription to read.", Required: true, Validators: notEmpty()}
	}
	return map[string]dschema.Attribute{
		"id": id,
		// Not deprecated with the service's planId: plan_details has no
		// id, so this is the only way to know the plan (see the resource).
		"plan_id":      dschema.StringAttribute{MarkdownDescription: descSubscriptionPlanID, Computed: true},
		"esim_iccid":   dschema.StringAttribute{MarkdownDescription: descEsimICCID, Computed: true},
		"state":        dschema.StringAttribute{MarkdownDescription: descState, Computed: true},
		"created_at":   dschema.Int64Attribute{MarkdownDescription: descCreatedAt, Computed: true},
		"activated_at": dschema.Int64Attribute{MarkdownDescription: descActivatedAt, Computed: true},
		"expire_at":    dschema.Int64Attribute{MarkdownDescription: descExpireAt, Computed: true},
		"metadata":     dschema.MapAttribute{MarkdownDescription: descMetadata, Computed: true, ElementType: types.StringType},
		"plan_details": dschema.SingleNestedAttribute{MarkdownDescription: descPlanDetails, Computed: true,
			Attributes: planDetails.dataSourceAttributes(false, !one)},
		"purchased_allowance": dschema.SingleNestedAttribute{MarkdownDescription: descPurchasedAllowance, Computed: true,
			Attributes: allowances.dataSourceAttributes(false, !one)},
		"remaining_allowance": dschema.SingleNestedAttribute{MarkdownDescription: descRemainingAllowance, Computed: true,
			Attributes: allowances.dataSourceAttributes(false, !one)},
	}
}
