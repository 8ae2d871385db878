package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
)

// Teams that managed subscriptions with the generic REST provider
// (Mastercard/restapi) before this one existed move them over with a
// `moved` block from restapi_object (moves across providers came with
// Terraform 1.8 and OpenTofu 1.10).
//
// Terraform and OpenTofu move state before they configure any provider
// (state refactoring is designed to run offline), so the move cannot ask
// the service. It reads the subscription from what the generic provider
// stored of it, api_response, the service's own answer at its last read,
// and maps it with the code Read uses: the moved state is whole, and a plan
// made with -refresh=false plans no create either. The refresh that
// follows the move in the same plan reads the subscription from the
// service. Until that read has found it, the state carries a mark
// (movedFromKey), under which Read turns a 404 into an error instead of
// forgetting the subscription: forgetting it would plan a create, and at a
// service with no delete a create buys a second subscription.

var _ resource.ResourceWithMoveState = (*subscriptionResource)(nil)

const (
	restAPIObjectType = "restapi_object"
	// restAPIProvider ends the generic REST provider's address on any
	// registry host (registry.terraform.io, registry.opentofu.org, a
	// mirror's).
	restAPIProvider = "mastercard/restapi"
	// subscriptionsPath is the collection a restapi_object of a
	// subscription was created in.
	subscriptionsPath = "/v1/subscriptions"
)

func (r *subscriptionResource) MoveState(context.Context) []resource.StateMover {
	// No SourceSchema: the generic REST provider's schema differs between
	// its major versions (read_search is a map in 1.x, an object later,
	// which adds attributes), and the move reads only attributes that every
	// version stores alike, from the raw state.
	return []resource.StateMover{{StateMover: moveFromRestAPIObject}}
}

// restAPIObjectState is what the move reads of a restapi_object's state:
// the same in every version of the generic REST provider since 1.0 (schema
// version 0 in all of them). The id is the one the provider learnt from
// id_attribute, unless object_id set it by hand; api_response is the body
// of the service's answer to its last read (or create) of the object.
type restAPIObjectState struct {
	ID          string `json:"id"`
	ObjectID    string `json:"object_id"`
	Path        string `json:"path"`
	APIResponse string `json:"api_response"`
}

func moveFromRestAPIObject(ctx context.Context, req resource.MoveStateRequest, resp *resource.MoveStateResponse) {
	if !isRestAPIObject(req.SourceProviderAddress, req.SourceTypeName) {
		resp.Diagnostics.Append(diagnostics.MoveUnsupportedSource(req.SourceProviderAddress, req.SourceTypeName))
		return
	}
	src := diagnostics.MoveSource{Provider: req.SourceProviderAddress, Type: req.SourceTypeName}
	if req.SourceRawState == nil || len(req.SourceRawState.JSON) == 0 {
		resp.Diagnostics.Append(diagnostics.MoveNotSubscription(src, "its state is empty or in the flat format of Terraform 0.11, which holds no JSON to read"))
		return
	}
	var obj restAPIObjectState
	if err := json.Unmarshal(req.SourceRawState.JSON, &obj); err != nil {
		resp.Diagnostics.Append(diagnostics.MoveNotSubscription(src, "its state could not be read: "+err.Error()))
		return
	}
	id := obj.ID
	if obj.ObjectID != "" {
		id = obj.ObjectID
	}
	src.Path, src.ID = obj.Path, id
	if !isSubscriptionsPath(obj.Path) {
		resp.Diagnostics.Append(diagnostics.MoveNotSubscription(src, fmt.Sprintf("its path is not %s, the service's subscriptions", subscriptionsPath)))
		return
	}
	if id == "" {
		resp.Diagnostics.Append(diagnostics.MoveNotSubscription(src, "its state holds no id"))
		return
	}
	sub, fact := subscriptionOfAPIResponse(obj.APIResponse, id)
	if sub == nil {
		resp.Diagnostics.Append(diagnostics.MoveNotSubscription(src, fact))
		return
	}
	tflog.Debug(ctx, "moving a restapi_object to mobileplan_subscription", map[string]any{
		"id": id, "path": obj.Path, "source_provider": req.SourceProviderAddress, "source_schema_version": req.SourceSchemaVersion,
	})
	// The inputs an import leaves unset: the configuration's come in with
	// the plan that follows, as after an import.
	model, diags := subscriptionResourceModelOf(sub, noInputs())
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.TargetState.Set(ctx, &model)...)
	resp.Diagnostics.Append(setSubscriptionIdentity(ctx, resp.TargetIdentity, types.StringValue(sub.ID))...)
	mark, _ := json.Marshal(src)
	resp.Diagnostics.Append(resp.TargetPrivate.SetKey(ctx, movedFromKey, mark)...)
}

// subscriptionOfAPIResponse is the subscription id of a restapi_object's
// api_response, or nil and why it holds none.
func subscriptionOfAPIResponse(apiResponse, id string) (*client.Subscription, string) {
	if apiResponse == "" {
		return nil, "its state holds no api_response, the service's answer the subscription would be moved from (refresh it with the generic provider first)"
	}
	var sub client.Subscription
	if err := json.Unmarshal([]byte(apiResponse), &sub); err != nil {
		return nil, "its api_response is not a subscription: " + err.Error()
	}
	switch {
	case sub.ID != id:
		return nil, fmt.Sprintf("its api_response is of id %q, not of the object's id", sub.ID)
	case sub.EsimICCID == "" || sub.PlanID == "" || sub.State == "":
		return nil, "its api_response has no eSIM, plan or state, as every subscription has"
	}
	return &sub, ""
}

// isRestAPIObject reports whether a moved state is a restapi_object of the
// generic REST provider, whichever registry host its address names; a CLI
// that sends only the provider's local name (restapi) is taken at its word.
// OpenTofu (1.12.6 measured) now and then names this provider as the
// source of one instance of a moved for_each resource, under load, in the
// apply's plan after a plan that named the generic one: this provider has
// no restapi_object, so such a state can only be the generic provider's,
// and it is read as one (decoded and checked like any other).
func isRestAPIObject(providerAddress, typeName string) bool {
	addr := strings.ToLower(providerAddress)
	return typeName == restAPIObjectType &&
		(addr == "restapi" || addr == restAPIProvider || strings.HasSuffix(addr, "/"+restAPIProvider) || strings.HasSuffix(addr, "/"+thisProvider))
}

// thisProvider is this provider's namespace and type, as a CLI's provider
// address ends with them.
const thisProvider = "mobileplan/mobileplan"

// isSubscriptionsPath reports whether a restapi_object's path is the
// subscriptions collection: /v1/subscriptions below the generic provider's
// uri, which may hold a prefix of its own (/v1/subscriptions below
// https://gateway/mobile) or the version (/subscriptions below
// https://api.example.com/v1). A trailing slash is the same path.
func isSubscriptionsPath(p string) bool {
	p = strings.TrimRight(p, "/")
	return p == "/subscriptions" || strings.HasSuffix(p, subscriptionsPath)
}
