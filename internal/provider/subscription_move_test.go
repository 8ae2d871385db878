package provider

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/diagnostics"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// The move from restapi_object at the protocol, as Terraform and OpenTofu
// call it: before any ConfigureProvider, with the source state as the
// generic REST provider stored it.
//
// testdata/restapi-object holds a restapi_object's attributes in the two
// shapes its current releases store:
//   - v1.20.0.json: written by the generic REST provider v1.20.0 (the
//     version tools/restapi pins; SDKv2, schema version 0), the "sim"
//     instance of TestCLI_moveFromGenericRESTProvider's first apply under
//     OpenTofu 1.12.6, copied from its terraform.tfstate.
//   - framework.json: the same object in the shape of its rewrite on
//     terraform-plugin-framework (also schema version 0), which the Go
//     module proxy does not serve: read_search is an object there, and
//     ignore_changes_to, ignore_all_server_changes and
//     ignore_server_additions are added; written from that version's
//     schema, since it cannot be built here.
//
// The tests put a subscription of their own emulator in them: id, api_data
// and api_response (the service's answer to a read of it).

var restAPIShapes = []string{"v1.20.0.json", "framework.json"}

const restAPIAddress = "registry.terraform.io/mastercard/restapi"

// restAPIObjectOf is a restapi_object's attributes of shape (a file of
// testdata/restapi-object) at path, for the object the service answered
// apiResponse about, under id.
func restAPIObjectOf(t *testing.T, shape, path, id, apiResponse string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "restapi-object", shape))
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]any
	if err := json.Unmarshal(b, &attrs); err != nil {
		t.Fatal(err)
	}
	attrs["path"], attrs["id"], attrs["api_response"], attrs["create_response"] = path, id, apiResponse, apiResponse
	attrs["api_data"] = map[string]any{"id": id}
	return attrs
}

// restAPIObjectV1 is the state of a restapi_object of the generic REST
// provider 1.20.0 of an object the service never answered about.
func restAPIObjectV1(t *testing.T, path, id string) map[string]any {
	t.Helper()
	b, err := json.Marshal(map[string]any{"id": id, "esimIccid": "8988300000000000001", "planId": "plan_001", "state": "ready"})
	if err != nil {
		t.Fatal(err)
	}
	return restAPIObjectOf(t, "v1.20.0.json", path, id, string(b))
}

// serviceAnswer is the body of the service's answer to GET path, as the
// generic REST provider stores it in api_response.
func serviceAnswer(t *testing.T, srv *emulatortest.Server, path string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+srv.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %v %s", path, err, resp.Status)
	}
	return string(b)
}

func moveRequest(t *testing.T, provider, typ string, attrs map[string]any) *tfprotov6.MoveResourceStateRequest {
	t.Helper()
	b, err := json.Marshal(attrs)
	if err != nil {
		t.Fatal(err)
	}
	return &tfprotov6.MoveResourceStateRequest{
		SourceProviderAddress: provider, SourceTypeName: typ, SourceSchemaVersion: 0,
		SourceState: &tfprotov6.RawState{JSON: b}, TargetTypeName: prototest.SubscriptionType,
	}
}

func identityOf(t *testing.T, data *tfprotov6.ResourceIdentityData) string {
	t.Helper()
	if data == nil || data.IdentityData == nil {
		return "<none>"
	}
	v, err := data.IdentityData.Unmarshal(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"id": tftypes.String}})
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	_ = v.As(&attrs)
	return str(attrs["id"])
}

// A restapi_object of a subscription, in either shape, moves without the
// provider configured, to the state an import of the subscription makes,
// with its identity; the refresh that follows finds it and clears the
// move's mark. Nothing is created.
func TestMoveState_restapiObjectIsImportedState(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	sub := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_002"})
	answer := serviceAnswer(t, srv, "/v1/subscriptions/"+sub.ID)
	h := prototest.NewProtoHarness(t, testServer(), srv)
	ctx := context.Background()

	imported, err := h.Server.ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: prototest.SubscriptionType, ID: sub.ID})
	if err != nil || len(imported.Diagnostics) > 0 {
		t.Fatalf("import: %v %s", err, prototest.DiagText(imported.Diagnostics))
	}
	importedState := h.Read(t, h.Value(t, imported.ImportedResources[0].State))

	for _, shape := range restAPIShapes {
		// The last: OpenTofu now and then names the target's provider as
		// the source of one instance (isRestAPIObject).
		for _, addr := range []string{restAPIAddress, "registry.opentofu.org/Mastercard/restapi", "registry.opentofu.org/mobileplan/mobileplan"} {
			t.Run(shape+" from "+addr, func(t *testing.T) {
				unconfigured := testServer()
				if _, err := unconfigured.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{}); err != nil {
					t.Fatal(err)
				}
				resp, err := unconfigured.MoveResourceState(ctx, moveRequest(t, addr, "restapi_object", restAPIObjectOf(t, shape, "/v1/subscriptions", sub.ID, answer)))
				if err != nil || len(resp.Diagnostics) > 0 {
					t.Fatalf("move: %v %s", err, prototest.DiagText(resp.Diagnostics))
				}
				moved := h.Value(t, resp.TargetState)
				if diff, _ := moved.Diff(importedState); len(diff) > 0 {
					t.Errorf("the moved state differs from the imported one: %v", diff)
				}
				if got := identityOf(t, resp.TargetIdentity); got != sub.ID {
					t.Errorf("identity %q, want %q", got, sub.ID)
				}
				if !strings.Contains(string(resp.TargetPrivate), movedFromKey) {
					t.Errorf("the moved state carries no mark of the move: %s", resp.TargetPrivate)
				}
				read, err := h.Server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: prototest.SubscriptionType, CurrentState: resp.TargetState, Private: resp.TargetPrivate})
				if err != nil || len(read.Diagnostics) > 0 {
					t.Fatalf("read: %v %s", err, prototest.DiagText(read.Diagnostics))
				}
				if diff, _ := h.Value(t, read.NewState).Diff(importedState); len(diff) > 0 {
					t.Errorf("the refreshed moved state differs from the imported one: %v", diff)
				}
				if strings.Contains(string(read.Private), movedFromKey) {
					t.Errorf("the refresh that found the subscription kept the move's mark: %s", read.Private)
				}
			})
		}
	}
	if n := srv.RequestCounts()["POST /v1/subscriptions"]; n != 1 {
		t.Errorf("%d creates, want only the test's own", n)
	}
}

// A moved state that does not name a subscription is refused, with the
// object named and the way out, and no state.
func TestMoveState_refusesWhatIsNoSubscription(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	sub := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_001"})
	subAnswer := serviceAnswer(t, srv, "/v1/subscriptions/"+sub.ID)
	plan := serviceAnswer(t, srv, "/v1/plans/plan_001")
	for name, c := range map[string]struct {
		provider, typ string
		attrs         map[string]any
		want          []string
	}{
		"another path": {restAPIAddress, "restapi_object", restAPIObjectOf(t, "v1.20.0.json", "/v1/plans", "plan_001", plan),
			[]string{diagnostics.MoveSummary, `path "/v1/plans" and id "plan_001"`, "its path is not /v1/subscriptions"}},
		"a plan's answer at the subscriptions' path": {restAPIAddress, "restapi_object", restAPIObjectOf(t, "framework.json", "/v1/subscriptions", "plan_001", plan),
			[]string{diagnostics.MoveSummary, "has no eSIM, plan or state"}},
		"the answer of another object": {restAPIAddress, "restapi_object", restAPIObjectOf(t, "v1.20.0.json", "/v1/subscriptions/", "sub_0000000000000001", subAnswer),
			[]string{diagnostics.MoveSummary, `of id "` + sub.ID + `", not of the object's id`}},
		"no answer stored": {restAPIAddress, "restapi_object", restAPIObjectOf(t, "v1.20.0.json", "/v1/subscriptions", sub.ID, ""),
			[]string{diagnostics.MoveSummary, "holds no api_response"}},
		"no id": {restAPIAddress, "restapi_object", restAPIObjectOf(t, "v1.20.0.json", "/v1/subscriptions", "", subAnswer),
			[]string{diagnostics.MoveSummary, "holds no id"}},
		"another provider's restapi_object": {"registry.terraform.io/example/restapi", "restapi_object", restAPIObjectOf(t, "v1.20.0.json", "/v1/subscriptions", sub.ID, subAnswer),
			[]string{"Cannot move restapi_object to mobileplan_subscription", "registry.terraform.io/example/restapi", "import block"}},
		"another resource type": {restAPIAddress, "restapi_setting", restAPIObjectOf(t, "v1.20.0.json", "/v1/subscriptions", sub.ID, subAnswer),
			[]string{"Cannot move restapi_setting to mobileplan_subscription"}},
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := testServer().MoveResourceState(context.Background(), moveRequest(t, c.provider, c.typ, c.attrs))
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Severity != tfprotov6.DiagnosticSeverityError {
				t.Fatalf("want one error, got %s", prototest.DiagText(resp.Diagnostics))
			}
			text := resp.Diagnostics[0].Summary + ": " + resp.Diagnostics[0].Detail
			for _, want := range append(c.want, "Remove") {
				if !strings.Contains(text, want) {
					t.Errorf("the refusal lacks %q:\n%s", want, text)
				}
			}
			if resp.TargetState != nil {
				if v, err := resp.TargetState.Unmarshal(tftypes.DynamicPseudoType); err == nil && !v.IsNull() {
					t.Errorf("a refused move returned a state: %v", v)
				}
			}
		})
	}
	if n := srv.RequestCounts()["POST /v1/subscriptions"]; n != 1 {
		t.Errorf("%d creates, want only the test's own", n)
	}
}

// A moved subscription the service does not know passes the move, which
// cannot ask the service, and fails the refresh after it: never removed
// from state, so never planned as a create.
func TestMoveState_unknownSubscriptionFailsTheRefresh(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	h := prototest.NewProtoHarness(t, testServer(), srv)
	ctx := context.Background()
	const id = "sub_00000000000000ff"
	resp, err := h.Server.MoveResourceState(ctx, moveRequest(t, restAPIAddress, "restapi_object", restAPIObjectV1(t, "/v1/subscriptions", id)))
	if err != nil || len(resp.Diagnostics) > 0 {
		t.Fatalf("move: %v %s", err, prototest.DiagText(resp.Diagnostics))
	}
	read, err := h.Server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: prototest.SubscriptionType, CurrentState: resp.TargetState, Private: resp.TargetPrivate})
	if err != nil {
		t.Fatal(err)
	}
	text := prototest.DiagText(read.Diagnostics)
	for _, want := range []string{"[ERROR] " + diagnostics.MoveSummary, `path "/v1/subscriptions" and id "` + id + `"`, "HTTP 404", "It is not created", "import block"} {
		if !strings.Contains(text, want) {
			t.Errorf("the refresh lacks %q:\n%s", want, text)
		}
	}
	if n := srv.RequestCounts()["POST /v1/subscriptions"]; n != 0 {
		t.Errorf("%d creates", n)
	}

	// Without the mark, a subscription gone is forgotten with a warning,
	// as before: the mark alone makes the difference.
	plain, err := h.Server.ReadResource(ctx, &tfprotov6.ReadResourceRequest{TypeName: prototest.SubscriptionType, CurrentState: resp.TargetState})
	if err != nil || !strings.Contains(prototest.DiagText(plain.Diagnostics), "[WARNING] Subscription no longer exists") {
		t.Errorf("an unmarked subscription gone: %v %s", err, prototest.DiagText(plain.Diagnostics))
	}
}
