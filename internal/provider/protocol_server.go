package provider

import (
	"context"
	"sync"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// stopOnStopProvider is server, the framework's, with the one thing the
// framework leaves undone: it answers StopProvider without doing anything. Terraform sends it on an interrupt
// and then cancels the operations in flight, but it goes on calling the
// provider for the resources it had not reached, each with a fresh
// context, and at plan time each of those would read the service again.
// So StopProvider stops the provider's clients (client.Client.Stop): from
// then on nothing is sent, while a create already sent is seen through.
// Whatever serves in front of it passes StopProvider on.
func stopOnStopProvider(server tfprotov6.ProviderServer, stop *stopSignal) tfprotov6.ProviderServer {
	full, complete := server.(frameworkServer)
	if !complete {
		return server
	}
	return &stoppingServer{frameworkServer: full, stop: stop}
}

// frameworkServer is every service the framework's server offers, the
// optional ones included: Terraform finds those by type assertion, so a
// wrapper that embedded only tfprotov6.ProviderServer would hide them.
type frameworkServer interface {
	tfprotov6.ProviderServer
	tfprotov6.ListResourceServer
	tfprotov6.ActionServer
	tfprotov6.StateStoreServer
}

type stoppingServer struct {
	frameworkServer
	stop *stopSignal
}

func (s *stoppingServer) StopProvider(ctx context.Context, req *tfprotov6.StopProviderRequest) (*tfprotov6.StopProviderResponse, error) {
	s.stop.stop()
	return s.frameworkServer.StopProvider(ctx, req)
}

// stopSignal is a provider's StopProvider: once given, it stops every
// client the provider has configured and every one it configures later.
type stopSignal struct {
	mu      sync.Mutex
	stopped bool
	clients []*client.Client
}

func (s *stopSignal) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	for _, c := range s.clients {
		c.Stop()
	}
}

// watch stops c when the provider is asked to stop, at once if it was.
func (s *stopSignal) watch(c *client.Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		c.Stop()
		return
	}
	s.clients = append(s.clients, c)
}
