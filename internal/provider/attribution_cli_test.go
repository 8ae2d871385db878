package provider

import (
	"bytes"
	"log"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
)

// lockedBuffer is a request log the emulator writes while the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// take returns what was logged since the last take.
func (b *lockedBuffer) take() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf.String()
	b.buf.Reset()
	return s
}

// Pipelines that share a token tell their requests apart in the service's
// logs: TF_APPEND_USER_AGENT ends every User-Agent, and a CI job's W3C
// trace context (TRACEPARENT, TRACESTATE) goes on every request with a
// span id of its own. A malformed traceparent sends nothing.
func TestCLI_requestsCarryTheRunsAttribution(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	emu, err := emulator.New(emulator.Options{Token: emulatortest.Token})
	if err != nil {
		t.Fatal(err)
	}
	logged := &lockedBuffer{}
	ts := httptest.NewServer(emulator.LogRequests(emu, log.New(logged, "", 0)))
	t.Cleanup(func() { ts.Close(); emu.Close() })
	srv := &emulatortest.Server{Emulator: emu, URL: ts.URL, Token: emulatortest.Token}

	tf := newTerraformCLI(t)
	tf.Write("main.tf", cliProvider(srv)+`
data "mobileplan_plans" "all" {}
`)
	const (
		traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
		parent  = "00-" + traceID + "-00f067aa0ba902b7-01"
	)
	requests := func(env ...string) []string {
		t.Helper()
		logged.take()
		if out, code := tf.Run(env, "plan", "-input=false"); code != 0 {
			t.Fatalf("plan exited %d:\n%s", code, out)
		}
		var lines []string
		for line := range strings.Lines(logged.take()) {
			if strings.Contains(line, " /v1/") {
				lines = append(lines, line)
			}
		}
		if len(lines) < 2 {
			t.Fatalf("the plan sent %d requests to /v1, want the pages of the plans", len(lines))
		}
		return lines
	}

	t.Run("a valid trace context and a pipeline's name", func(t *testing.T) {
		span := regexp.MustCompile(`traceparent="00-` + traceID + `-([0-9a-f]{16})-01" tracestate="ci=pipeline-a"$`)
		spans := map[string]bool{}
		for _, line := range requests("TF_APPEND_USER_AGENT=pipeline-a (team payments)", "TRACEPARENT="+parent, "TRACESTATE=ci=pipeline-a") {
			line = strings.TrimSpace(line)
			if !strings.Contains(line, ` user-agent="terraform-provider-mobileplan/`) || !strings.Contains(line, ` pipeline-a (team payments)" `) {
				t.Errorf("the User-Agent does not end with TF_APPEND_USER_AGENT: %s", line)
			}
			m := span.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("no traceparent of the trace with tracestate: %s", line)
				continue
			}
			if m[1] == "00f067aa0ba902b7" || m[1] == "0000000000000000" || spans[m[1]] {
				t.Errorf("span id %s is not a new one of its own: %s", m[1], line)
			}
			spans[m[1]] = true
		}
	})
	t.Run("a malformed traceparent", func(t *testing.T) {
		for _, bad := range []string{"00-" + strings.Repeat("0", 32) + "-00f067aa0ba902b7-01", "01-" + traceID + "-00f067aa0ba902b7-01", strings.ToUpper(parent), "garbage"} {
			for _, line := range requests("TRACEPARENT="+bad, "TRACESTATE=ci=x") {
				if strings.Contains(line, "traceparent=") || strings.Contains(line, "tracestate=") {
					t.Errorf("TRACEPARENT=%s sent a trace context: %s", bad, line)
				}
			}
		}
	})
	t.Run("none", func(t *testing.T) {
		for _, line := range requests() {
			if strings.Contains(line, "traceparent=") || !regexp.MustCompile(` user-agent="terraform-provider-mobileplan/[^"]* Terraform/[^" ]+"$`).MatchString(strings.TrimSpace(line)) {
				t.Errorf("without the variables the request carries more than the provider's User-Agent: %s", line)
			}
		}
	})
}
