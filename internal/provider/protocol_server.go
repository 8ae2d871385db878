package provider

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/protocol"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/recovery"
)

// seam is the protocol server in front of every other (NewProtocol6): the
// one place that sees each of Terraform's calls whole, before any
// speed-up answers one itself. It does three things the framework leaves
// undone:
//
//   - StopProvider stops the provider's clients (client.Client.Stop): the
//     framework answers it and does nothing else, while Terraform, after
//     an interrupt, goes on calling the provider for the resources it had
//     not reached, each with a fresh context, and at plan time each of
//     those would read the service again. From then on nothing is sent,
//     and a create already sent is seen through.
//   - It tells the recovery session (package recovery) which subscriptions
//     this state holds: every Read, every plan of an instance in state
//     (answered without a Read under -refresh=false) and every import.
//   - At the run's end it adds the journal's report to the last call's
//     answer: Terraform does not say which call is the last, so a call of
//     mobileplan_subscription that ends with none other in flight waits
//     up to lastOperationGrace for another to start; one that starts
//     takes the report over. In an apply, each create's plan comes right
//     before its apply and waits on nothing: only an apply reports there.
//     A plan walk plans each instance it has read: while one read is not
//     yet planned the walk is not over, however long Terraform pauses
//     (a loaded machine can pause it past the grace, and a report then
//     would name as leftovers subscriptions this state holds, read after
//     it), so the wait is unplannedReadGrace instead.
type seam struct {
	protocol.Server
	stop  *stopSignal
	rec   recorder
	grace seamGrace
	after func(time.Duration) <-chan time.Time // the clock's timer; time.After

	mu        sync.Mutex
	inFlight  int
	started   chan struct{}       // closed when a call starts
	unplanned map[string]struct{} // ids read and not yet planned
}

// recorder is what the seam tells the recovery session and asks of it:
// a *recovery.Session.
type recorder interface {
	Saw(id string)
	Planning()
	Applied()
	HasReport() bool
	ApplyWalk() bool
	Report(ctx context.Context, applyWalk bool) diag.Diagnostics
}

// seamGrace is how long a call that ends with none other in flight waits
// for another before it gives the report: last, with every read planned;
// unplannedRead, while a read instance's plan has not come (a refresh-only
// plan plans none, so the wait ends).
type seamGrace struct{ last, unplannedRead time.Duration }

// unplannedReadGrace bounds the wait for the plan of an instance read: a
// refresh-only plan sends none, and its report comes this much later.
const unplannedReadGrace = 5 * time.Second

// newSeam returns server with the seam in front of it; a server without
// every optional service of the framework's is returned as it is.
func newSeam(server tfprotov6.ProviderServer, stop *stopSignal, rec *recovery.Session) tfprotov6.ProviderServer {
	full, complete := server.(protocol.Server)
	if !complete {
		return server
	}
	return seamOf(full, stop, rec)
}

// seamOf is the seam in front of server, telling rec.
func seamOf(server protocol.Server, stop *stopSignal, rec recorder) *seam {
	return &seam{
		Server: server, stop: stop, rec: rec, after: time.After,
		grace:   seamGrace{last: lastOperationGrace, unplannedRead: unplannedReadGrace},
		started: make(chan struct{}), unplanned: map[string]struct{}{},
	}
}

// Unwrap is the server behind the seam: the speed-ups' tests reach theirs
// through it.
func (s *seam) Unwrap() tfprotov6.ProviderServer { return s.Server }

func (s *seam) StopProvider(ctx context.Context, req *tfprotov6.StopProviderRequest) (*tfprotov6.StopProviderResponse, error) {
	s.stop.stop()
	return s.Server.StopProvider(ctx, req)
}

func (s *seam) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if req.TypeName != subscriptionTypeName {
		return s.Server.ReadResource(ctx, req)
	}
	s.begin()
	var id string
	if req.CurrentState != nil {
		id = idOfState(req.CurrentState.MsgPack)
		s.rec.Saw(id)
	}
	resp, err := s.Server.ReadResource(ctx, req)
	if resp != nil {
		// A subscription found gone leaves the state: its instance is
		// planned as a create, with no prior state to match it by.
		if resp.NewState != nil && idOfState(resp.NewState.MsgPack) != "" {
			s.read(id)
		}
		resp.Diagnostics = append(resp.Diagnostics, s.end(ctx, false)...)
	}
	return resp, err
}

func (s *seam) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	if req.TypeName != subscriptionTypeName {
		return s.Server.PlanResourceChange(ctx, req)
	}
	s.begin()
	s.rec.Planning()
	if req.PriorState != nil {
		id := idOfState(req.PriorState.MsgPack)
		s.rec.Saw(id)
		s.planned(id)
	}
	resp, err := s.Server.PlanResourceChange(ctx, req)
	if resp != nil {
		resp.Diagnostics = append(resp.Diagnostics, s.end(ctx, false)...)
	}
	return resp, err
}

func (s *seam) ImportResourceState(ctx context.Context, req *tfprotov6.ImportResourceStateRequest) (*tfprotov6.ImportResourceStateResponse, error) {
	if req.TypeName != subscriptionTypeName {
		return s.Server.ImportResourceState(ctx, req)
	}
	s.begin()
	s.rec.Saw(req.ID)
	resp, err := s.Server.ImportResourceState(ctx, req)
	if resp != nil {
		resp.Diagnostics = append(resp.Diagnostics, s.end(ctx, false)...)
	}
	return resp, err
}

func (s *seam) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	if req.TypeName != subscriptionTypeName {
		return s.Server.ApplyResourceChange(ctx, req)
	}
	s.begin()
	s.rec.Applied()
	resp, err := s.Server.ApplyResourceChange(ctx, req)
	if resp != nil {
		resp.Diagnostics = append(resp.Diagnostics, s.end(ctx, true)...)
	}
	return resp, err
}

// begin marks a call of mobileplan_subscription as under way.
func (s *seam) begin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight++
	close(s.started)
	s.started = make(chan struct{})
}

// read marks id's instance as read, its plan to come; planned, as planned.
func (s *seam) read(id string) {
	if id == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unplanned[id] = struct{}{}
}

func (s *seam) planned(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.unplanned, id)
}

// end marks a call as done, and returns the journal's report when it is
// the run's last (above).
func (s *seam) end(ctx context.Context, apply bool) []*tfprotov6.Diagnostic {
	s.mu.Lock()
	s.inFlight--
	idle, started := s.inFlight == 0, s.started
	wait := s.grace.last
	if len(s.unplanned) > 0 {
		wait = s.grace.unplannedRead
	}
	s.mu.Unlock()
	if !idle || !s.rec.HasReport() || s.rec.ApplyWalk() != apply {
		return nil
	}
	select {
	case <-started:
		return nil
	case <-s.after(wait):
	}
	s.mu.Lock()
	busy := s.inFlight > 0
	s.mu.Unlock()
	if busy {
		return nil
	}
	return toProtocol(s.rec.Report(ctx, apply))
}

// idOfState is the id attribute of a subscription's state as the protocol
// carries it (a msgpack map): read through the top-level keys, every other
// value skipped, so that seeing a state costs no decoding of it. "" when
// it has none, or cannot be read.
func idOfState(state []byte) string {
	if len(state) == 0 {
		return ""
	}
	dec := msgpack.GetDecoder()
	defer msgpack.PutDecoder(dec)
	dec.Reset(bytes.NewReader(state))
	n, err := dec.DecodeMapLen()
	if err != nil {
		return ""
	}
	for range n {
		key, err := dec.DecodeString()
		if err != nil {
			return ""
		}
		if key == "id" {
			id, err := dec.DecodeString() // a null or unknown id is no id
			if err != nil {
				return ""
			}
			return id
		}
		if err := dec.Skip(); err != nil {
			return ""
		}
	}
	return ""
}

// toProtocol is diags as the protocol carries them.
func toProtocol(diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	out := make([]*tfprotov6.Diagnostic, 0, len(diags))
	for _, d := range diags {
		severity := tfprotov6.DiagnosticSeverityWarning
		if d.Severity() == diag.SeverityError {
			severity = tfprotov6.DiagnosticSeverityError
		}
		out = append(out, &tfprotov6.Diagnostic{Severity: severity, Summary: d.Summary(), Detail: d.Detail()})
	}
	return out
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
