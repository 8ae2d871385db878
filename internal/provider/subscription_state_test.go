package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// Read's state, built directly, is exactly what the framework's State.Set
// of the model stores, on many answers of the service: every optional field
// absent or present, metadata absent, empty or not, with and without an
// inline plan; and its type is the schema's.
func TestSubscriptionState_sameAsStateSet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var schemaResp resource.SchemaResponse
	(&subscriptionResource{}).Schema(ctx, resource.SchemaRequest{}, &schemaResp)
	if !schemaResp.Schema.Type().TerraformType(ctx).Equal(subscriptionStateType) {
		t.Fatalf("subscriptionStateType %s differs from the schema's %s", subscriptionStateType, schemaResp.Schema.Type().TerraformType(ctx))
	}
	rng := rand.New(rand.NewPCG(15, 4)) //nolint:gosec // test data, reproducible
	for i := range 500 {
		sub := randomSubscription(rng)
		plan := types.ObjectNull(inlinePlanAttrTypes)
		if rng.IntN(2) == 0 {
			plan = types.ObjectValueMust(inlinePlanAttrTypes, map[string]attr.Value{
				"coverage_id": types.StringValue("cov-eu"), "data_mbs": types.Int64Value(rng.Int64()), "period_days": types.Int64Value(30),
			})
		}
		attrs, diags := newSubscriptionAttrs(sub)
		want := tfsdk.State{Schema: schemaResp.Schema}
		diags.Append(want.Set(ctx, &subscriptionResourceModel{subscriptionAttrs: attrs, Plan: plan})...)
		if diags.HasError() {
			t.Fatal(diags)
		}
		got, err := subscriptionState(ctx, sub, plan)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(want.Raw) {
			t.Fatalf("answer %d:\nState.Set %s\ndirect    %s", i, want.Raw, got)
		}
		wantDV, err1 := tfprotov6.NewDynamicValue(subscriptionStateType, want.Raw)
		gotDV, err2 := tfprotov6.NewDynamicValue(subscriptionStateType, got)
		if err1 != nil || err2 != nil || (len(sub.Metadata) < 2 && string(wantDV.MsgPack) != string(gotDV.MsgPack)) {
			t.Fatalf("answer %d: encodings differ (%v, %v)", i, err1, err2)
		}
	}
}

// The id and plan Read keeps are what State.Get of the whole model reads,
// on many states of every shape.
func TestSubscriptionStateKept_sameAsStateGet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var schemaResp resource.SchemaResponse
	(&subscriptionResource{}).Schema(ctx, resource.SchemaRequest{}, &schemaResp)
	h := &protoHarness{typ: subscriptionStateType}
	rng := rand.New(rand.NewPCG(15, 6)) //nolint:gosec // test data, reproducible
	for i := range 500 {
		raw := randomValue(rng, subscriptionStateType, false)
		if raw.IsNull() {
			raw = h.object(map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, "sub_1")})
		}
		var want subscriptionResourceModel
		if diags := (tfsdk.State{Schema: schemaResp.Schema, Raw: raw}).Get(ctx, &want); diags.HasError() {
			t.Fatal(diags)
		}
		got, err := subscriptionStateKept(ctx, raw)
		if err != nil {
			t.Fatal(err)
		}
		if !got.ID.Equal(want.ID) || !got.Plan.Equal(want.Plan) {
			t.Fatalf("state %d: id %s plan %s, State.Get: id %s plan %s", i, got.ID, got.Plan, want.ID, want.Plan)
		}
	}
}

func randomSubscription(rng *rand.Rand) *client.Subscription {
	i64 := func() *int64 {
		if rng.IntN(3) == 0 {
			return nil
		}
		v := rng.Int64() - rng.Int64()
		return &v
	}
	str := func() *string {
		if rng.IntN(3) == 0 {
			return nil
		}
		v := fmt.Sprintf("s%d", rng.IntN(100))
		return &v
	}
	sub := &client.Subscription{
		ID: fmt.Sprintf("sub_%016x", rng.Uint64()), EsimICCID: "8900000000000000001", PlanID: "plan_004",
		CreatedAt: rng.Int64(), ActivatedAt: i64(), ExpireAt: i64(), State: "ready",
		Plan: client.PlanForAttachment{Name: str(), DataMegaBytes: i64(), PeriodDays: i64(), PeriodIterations: i64(),
			ThrottledSpeedKbps: i64(), Label: str(), CoverageProfileID: str()},
		PurchasedAllowance: client.Allowance{DataBytes: i64(), VoiceSeconds: i64(), SmsMessages: i64()},
		RemainingAllowance: client.Allowance{DataBytes: i64(), VoiceSeconds: i64(), SmsMessages: i64()},
	}
	switch rng.IntN(3) {
	case 1:
		sub.Metadata = map[string]string{}
	case 2:
		sub.Metadata = map[string]string{"team": "a", "cost_center": fmt.Sprint(rng.IntN(9))}
	}
	return sub
}
