package provider

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/protocol"
)

// The seam reads a subscription's id from a state as Terraform sends it,
// whatever comes before it, and no id from a state without one.
func TestIdOfState(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"activated_at": tftypes.Number, "id": tftypes.String, "plan": tftypes.Object{AttributeTypes: map[string]tftypes.Type{"coverage_id": tftypes.String}},
	}}
	state := func(id tftypes.Value) []byte {
		v, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, map[string]tftypes.Value{
			"activated_at": tftypes.NewValue(tftypes.Number, 1),
			"id":           id,
			"plan":         tftypes.NewValue(typ.AttributeTypes["plan"], map[string]tftypes.Value{"coverage_id": tftypes.NewValue(tftypes.String, "cov")}),
		}))
		if err != nil {
			t.Fatal(err)
		}
		return v.MsgPack
	}
	for name, c := range map[string]struct {
		state []byte
		want  string
	}{
		"an id":       {state(tftypes.NewValue(tftypes.String, "sub_0123")), "sub_0123"},
		"a null id":   {state(tftypes.NewValue(tftypes.String, nil)), ""},
		"an unknown":  {state(tftypes.NewValue(tftypes.String, tftypes.UnknownValue)), ""},
		"no state":    {nil, ""},
		"not msgpack": {[]byte("{}"), ""},
	} {
		if got := idOfState(c.state); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}

// The run's report comes from its last call: one that ends with none other
// in flight waits the grace for another. A plan walk plans each instance
// it has read, so while a read's plan has not come the wait is the longer
// unplannedRead: a pause between a Read and its plan, as a loaded machine
// makes, once gave the report before the state's other Reads, naming what
// the state held.
func TestSeam_reportWaitsForThePlansOfWhatWasRead(t *testing.T) {
	t.Parallel()
	const never = -1
	for _, row := range []struct {
		rule       string
		planAfter  time.Duration // when the read instance's plan starts; never: no plan (refresh-only)
		gone       bool          // the Read finds the subscription gone
		readHeld   time.Duration // how long the Read's answer waited
		reportedBy string        // "read", "plan"
	}{
		{rule: "a plan right after the read reports", planAfter: 100 * time.Millisecond, readHeld: 100 * time.Millisecond, reportedBy: "plan"},
		{rule: "a plan after a pause past the grace still reports", planAfter: 800 * time.Millisecond, readHeld: 800 * time.Millisecond, reportedBy: "plan"},
		{rule: "no plan of what was read: the read reports after unplannedRead", planAfter: never, readHeld: 5 * time.Second, reportedBy: "read"},
		{rule: "a subscription found gone is planned anew: the read reports after the grace", planAfter: never, gone: true, readHeld: 500 * time.Millisecond, reportedBy: "read"},
	} {
		t.Run(row.rule, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				rec := &reportOnce{}
				s := seamOf(seamServer{gone: row.gone}, &stopSignal{}, rec)
				var planned []*tfprotov6.Diagnostic
				var plan sync.WaitGroup
				if row.planAfter != never {
					plan.Go(func() {
						time.Sleep(row.planAfter)
						resp, _ := s.PlanResourceChange(t.Context(), &tfprotov6.PlanResourceChangeRequest{TypeName: subscriptionTypeName, PriorState: seamState(t, "sub_a")})
						planned = resp.Diagnostics
					})
				}
				start := time.Now()
				read, _ := s.ReadResource(t.Context(), &tfprotov6.ReadResourceRequest{TypeName: subscriptionTypeName, CurrentState: seamState(t, "sub_a")})
				held := time.Since(start)
				plan.Wait()
				by := map[bool]string{true: "read", false: "plan"}[len(read.Diagnostics) > 0]
				if len(read.Diagnostics)+len(planned) != 1 || by != row.reportedBy || held != row.readHeld {
					t.Errorf("reported %d times, by the %s, the read held %v; want once, by the %s, the read held %v",
						len(read.Diagnostics)+len(planned), by, held, row.reportedBy, row.readHeld)
				}
			})
		})
	}
}

// The grace and unplannedRead are pinned: the rows above assume them.
func TestSeamGraceIsPinned(t *testing.T) {
	if lastOperationGrace != 500*time.Millisecond || unplannedReadGrace != 5*time.Second {
		t.Errorf("grace %v, unplannedRead %v: the seam's rows assume 500ms and 5s", lastOperationGrace, unplannedReadGrace)
	}
}

// reportOnce has one report to give, in a plan walk.
type reportOnce struct {
	mu    sync.Mutex
	given bool
}

func (r *reportOnce) Saw(string)      {}
func (r *reportOnce) Planning()       {}
func (r *reportOnce) Applied()        {}
func (r *reportOnce) ApplyWalk() bool { return false }
func (r *reportOnce) HasReport() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return !r.given
}

func (r *reportOnce) Report(context.Context, bool) diag.Diagnostics {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.given = true
	return diag.Diagnostics{diag.NewWarningDiagnostic("the report", "")}
}

// seamServer answers a Read with the state it was given, or none when
// the subscription is gone, and a plan with nothing.
type seamServer struct {
	protocol.Server
	gone bool
}

func (s seamServer) ReadResource(_ context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if s.gone {
		return &tfprotov6.ReadResourceResponse{}, nil
	}
	return &tfprotov6.ReadResourceResponse{NewState: req.CurrentState}, nil
}

func (s seamServer) PlanResourceChange(context.Context, *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	return &tfprotov6.PlanResourceChangeResponse{}, nil
}

func seamState(t *testing.T, id string) *tfprotov6.DynamicValue {
	t.Helper()
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"id": tftypes.String}}
	v, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, map[string]tftypes.Value{"id": tftypes.NewValue(tftypes.String, id)}))
	if err != nil {
		t.Fatal(err)
	}
	return &v
}
