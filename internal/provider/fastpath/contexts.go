package fastpath

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/protocol"
)

// ReleaseContexts returns server, the framework's, with in front of it what
// keeps the framework from holding on to the context of every request it
// has answered.
//
// The framework's protocol server keeps the cancel function of each
// request's context until StopProvider (registerContext in
// terraform-plugin-framework's internal/proto6server/serve.go, as of
// v1.19.0), and with it the context and all its values reach:
// terraform-plugin-go's loggers for that request, and the request's gRPC
// stream. A refreshing plan sends several requests per instance, so what
// stays live grows with the workspace: 33 KB an instance, 165 MB for 5,000
// subscriptions under OpenTofu, whose collector then works through all of
// it in every cycle; a plain framework provider holds more (47 KB an
// instance). Here the framework is given, for each request of an instance,
// a context that reads through to the request's while it runs and is cut
// from it once the answer is back, and the framework keeps only that:
// about 200 bytes a request.
//
// A request's context is done for whatever still holds it once its
// answer is back, and carries no values any more: no logger, so a
// goroutine that logs with it afterwards logs nothing. Every request this
// covers is answered when its method returns (unlike ListResource's
// stream, which it leaves alone).
//
// Delete this once the framework lets go of a request's context when the
// request ends: TestReleaseContexts_keepsNothingOfAnsweredRequests then
// fails at its row "the framework alone", which keeps about as little as
// its row "behind ReleaseContexts" does.
func ReleaseContexts(server tfprotov6.ProviderServer) tfprotov6.ProviderServer {
	full, ok := server.(protocol.Server)
	if !ok {
		return server
	}
	return &releasingServer{Server: full}
}

type releasingServer struct{ protocol.Server }

// released is the context a request's context becomes once it is
// answered: done, without values.
var released = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// releasable reads through to a request's context until release.
type releasable struct {
	parent atomic.Pointer[context.Context]
}

func newReleasable(parent context.Context) *releasable {
	r := &releasable{}
	r.parent.Store(&parent)
	return r
}

func (r *releasable) release() { r.parent.Store(&released) }

func (r *releasable) ctx() context.Context { return *r.parent.Load() }

func (r *releasable) Deadline() (time.Time, bool) { return r.ctx().Deadline() }
func (r *releasable) Done() <-chan struct{}       { return r.ctx().Done() }
func (r *releasable) Err() error                  { return r.ctx().Err() }
func (r *releasable) Value(key any) any           { return r.ctx().Value(key) }

// answered calls call with a releasable context of ctx, released when
// call returns.
func answered[Resp any](ctx context.Context, call func(context.Context) (Resp, error)) (Resp, error) {
	r := newReleasable(ctx)
	defer r.release()
	return call(r)
}

func (s *releasingServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return answered(ctx, func(ctx context.Context) (*tfprotov6.ValidateResourceConfigResponse, error) {
		return s.Server.ValidateResourceConfig(ctx, req)
	})
}

func (s *releasingServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	return answered(ctx, func(ctx context.Context) (*tfprotov6.UpgradeResourceStateResponse, error) {
		return s.Server.UpgradeResourceState(ctx, req)
	})
}

func (s *releasingServer) UpgradeResourceIdentity(ctx context.Context, req *tfprotov6.UpgradeResourceIdentityRequest) (*tfprotov6.UpgradeResourceIdentityResponse, error) {
	return answered(ctx, func(ctx context.Context) (*tfprotov6.UpgradeResourceIdentityResponse, error) {
		return s.Server.UpgradeResourceIdentity(ctx, req)
	})
}

func (s *releasingServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	return answered(ctx, func(ctx context.Context) (*tfprotov6.ReadResourceResponse, error) {
		return s.Server.ReadResource(ctx, req)
	})
}

func (s *releasingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	return answered(ctx, func(ctx context.Context) (*tfprotov6.PlanResourceChangeResponse, error) {
		return s.Server.PlanResourceChange(ctx, req)
	})
}

func (s *releasingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	return answered(ctx, func(ctx context.Context) (*tfprotov6.ApplyResourceChangeResponse, error) {
		return s.Server.ApplyResourceChange(ctx, req)
	})
}

func (s *releasingServer) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	return answered(ctx, func(ctx context.Context) (*tfprotov6.ImportResourceStateResponse, error) {
		return s.Server.ImportResourceState(ctx, req)
	})
}

func (s *releasingServer) MoveResourceState(ctx context.Context, req *tfprotov6.MoveResourceStateRequest) (*tfprotov6.MoveResourceStateResponse, error) {
	return answered(ctx, func(ctx context.Context) (*tfprotov6.MoveResourceStateResponse, error) {
		return s.Server.MoveResourceState(ctx, req)
	})
}

func (s *releasingServer) ValidateDataResourceConfig(ctx context.Context, req *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	return answered(ctx, func(ctx context.Context) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
		return s.Server.ValidateDataResourceConfig(ctx, req)
	})
}

func (s *releasingServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	return answered(ctx, func(ctx context.Context) (*tfprotov6.ReadDataSourceResponse, error) {
		return s.Server.ReadDataSource(ctx, req)
	})
}
