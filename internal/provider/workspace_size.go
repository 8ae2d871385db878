package provider

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// workspaceSize remembers, between the provider processes of one working
// directory and workspace, how many mobileplan_subscription instances its
// state holds. Terraform never tells a provider how many Reads a refresh
// will send, and the paged refresh (paged_refresh.go) needs to know: ten
// Reads held while the scan crosses pages no Read has asked for yet look
// the same whether thousands more will follow or none. With the size
// remembered, a refresh of a large state reads the list to its end
// whatever order Terraform sends its Reads in, and sends the same requests
// in every run.
//
// Each process counts what it sees: the Reads of instances in state (a
// refresh), and the creates and deletes it applies. When Terraform ends it,
// it writes the size: the Reads it saw, or what was remembered when it saw
// none (an apply), plus its creates, less its deletes. The plan of
// `terraform apply` refreshes and the apply then creates, in two processes,
// one after the other, so each finds what the one before wrote. The file
// lives beside the journal of creates, in Terraform's data directory, one
// a workspace; a lost or stale file costs requests, never a wrong answer.
type workspaceSize struct {
	path string

	once       sync.Once
	remembered int // read from the file once; 0 when there is none

	reads, creates, deletes atomic.Int64
}

// KeepWorkspaceSize makes the provider remember its state's size for the
// working directory dir; the returned func writes it when the process
// ends.
func KeepWorkspaceSize(dir string) (Option, func()) {
	journalPath, _ := journal.Locate(dir)
	w := &workspaceSize{path: strings.TrimSuffix(journalPath, ".journal") + ".size"}
	return func(o *options) { o.size = w }, w.end
}

// expected is the size remembered when the process started: the number of
// subscription instances the last run here left in state. 0 without one.
func (w *workspaceSize) expected() int {
	if w == nil {
		return 0
	}
	w.once.Do(func() {
		b, err := os.ReadFile(w.path)
		if err != nil {
			return
		}
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 && n <= maxRememberedSize {
			w.remembered = n
		}
	})
	return w.remembered
}

// maxRememberedSize bounds what a size file may say: a larger number is
// not one this provider wrote, and would let the paged refresh read pages
// without end.
const maxRememberedSize = 10_000_000

// end writes the size this process leaves, when it saw any subscription.
func (w *workspaceSize) end() {
	if w == nil {
		return
	}
	reads, creates, deletes := w.reads.Load(), w.creates.Load(), w.deletes.Load()
	if reads+creates+deletes == 0 {
		return
	}
	base := reads
	if base == 0 {
		base = int64(w.expected())
	}
	n := max(base+creates-deletes, 0)
	if err := os.MkdirAll(filepath.Dir(w.path), 0o700); err != nil {
		return
	}
	// A whole file or none: a process killed while writing leaves the old one.
	tmp := w.path + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(n, 10)+"\n"), 0o600); err != nil {
		return
	}
	_ = os.Rename(tmp, w.path)
}

// countInstances returns server with, in front of it, what counts the
// instances the workspace's state holds for w. Without w, server is
// returned as it is.
func countInstances(server tfprotov6.ProviderServer, w *workspaceSize) tfprotov6.ProviderServer {
	full, complete := server.(frameworkServer)
	if w == nil || !complete {
		return server
	}
	return &sizeServer{frameworkServer: full, size: w}
}

type sizeServer struct {
	frameworkServer
	size *workspaceSize
}

func (s *sizeServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	if req.TypeName == subscriptionTypeName && present(req.CurrentState) {
		s.size.reads.Add(1)
	}
	return s.frameworkServer.ReadResource(ctx, req)
}

func (s *sizeServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	resp, err := s.frameworkServer.ApplyResourceChange(ctx, req)
	if req.TypeName != subscriptionTypeName || err != nil || resp == nil {
		return resp, err
	}
	switch was, is := present(req.PriorState), present(resp.NewState); {
	case !was && is:
		s.size.creates.Add(1)
	case was && !is:
		s.size.deletes.Add(1)
	}
	return resp, err
}

// present reports whether v holds an object, not null.
func present(v *tfprotov6.DynamicValue) bool {
	return v != nil && (len(v.MsgPack) > 0 && !isNullMsgPack(v.MsgPack) || len(v.JSON) > 0 && string(v.JSON) != "null")
}

// isNullMsgPack: a null object is msgpack's nil, one byte.
func isNullMsgPack(b []byte) bool { return len(b) == 1 && b[0] == 0xc0 }
