package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// recordSightings returns server with, in front of it, what the journal of
// creates learns from Terraform's calls (recovery.go): which subscriptions
// the state holds, seen in every Read, every plan of an instance in state
// and every import; that the process planned; and that it applied. It
// sits in front of every other server so that no speed-up answering a
// call itself hides one. Without a journal, server is returned as it is.
func recordSightings(server tfprotov6.ProviderServer, rec *recovery) tfprotov6.ProviderServer {
	full, complete := server.(frameworkServer)
	if rec == nil || !complete {
		return server
	}
	return &sightingServer{frameworkServer: full, rec: rec}
}

type sightingServer struct {
	frameworkServer
	rec *recovery
}

func (s *sightingServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if req.TypeName == subscriptionTypeName && req.CurrentState != nil {
		s.rec.sighted(ctx, req.CurrentState.MsgPack)
	}
	return s.frameworkServer.ReadResource(ctx, req)
}

func (s *sightingServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	if req.TypeName == subscriptionTypeName {
		s.rec.planned.Store(true)
		if req.PriorState != nil {
			s.rec.sighted(ctx, req.PriorState.MsgPack)
		}
	}
	return s.frameworkServer.PlanResourceChange(ctx, req)
}

func (s *sightingServer) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	if req.TypeName == subscriptionTypeName && req.ID != "" {
		s.rec.sightedID(ctx, req.ID)
	}
	return s.frameworkServer.ImportResourceState(ctx, req)
}

func (s *sightingServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	s.rec.applied.Store(true)
	return s.frameworkServer.ApplyResourceChange(ctx, req)
}
