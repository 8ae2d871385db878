//go:build unix

package provider

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
)

// When Terraform goes away mid-apply, killed or interrupted, the provider
// sends nothing more and exits within a second or so.

// slowCreates fronts an emulator: the first attempt of every create is
// answered 429 with a Retry-After, so the provider holds retries it has not
// sent yet; a retry is processed after a delay. It records when each create
// attempt arrived, and counts the connections open to it.
type slowCreates struct {
	emu        *emulator.Emulator
	retryAfter time.Duration
	latency    time.Duration

	mu       sync.Mutex
	arrivals []time.Time
	refused  int
	open     int
}

// connState counts s's open connections, from when the server accepts
// one: its server's ConnState hook. A connection is closed only after the
// handler of each request the server read on it has returned; one whose
// client's process died is closed once the server reads EOF or a reset.
func (s *slowCreates) connState(_ net.Conn, state http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch state {
	case http.StateNew:
		s.open++
	case http.StateClosed, http.StateHijacked:
		s.open--
	}
}

// drainAccepted returns once the server at url has accepted every
// connection made to it before the call: it sends a request of its own on
// a new connection, which the server accepts after those.
func drainAccepted(t *testing.T, url string) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	resp, err := c.Get(url + "/v1/plans")
	if err != nil {
		t.Fatalf("the test's own request after terraform exited: %v", err)
	}
	_ = resp.Body.Close()
}

func (s *slowCreates) openConns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

func (s *slowCreates) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		s.emu.ServeHTTP(w, r)
		return
	}
	s.mu.Lock()
	s.arrivals = append(s.arrivals, time.Now())
	first := s.refused < 10
	if first {
		s.refused++
	}
	s.mu.Unlock()
	if first {
		w.Header().Set("Retry-After", strconv.Itoa(int(s.retryAfter.Seconds())))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		_, _ = w.Write([]byte(`{"code":"rateLimited","message":"slow down","docsUrl":null}`))
		return
	}
	time.Sleep(s.latency) // a slow service finishes what it received
	s.emu.ServeHTTP(w, r)
}

func (s *slowCreates) counts(after time.Time) (total, late, refused int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, at := range s.arrivals {
		if at.After(after) {
			late++
		}
	}
	return len(s.arrivals), late, s.refused
}

func terraformPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath(acctest.TerraformBinary())
	if err != nil {
		t.Skipf("the CLI %s cannot be found: %v", acctest.TerraformBinary(), err)
	}
	return p
}

// providerChildren lists the live provider processes whose parent is pid.
func providerChildren(t *testing.T, pid int, binary string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, state := procStat(child); ppid == pid && state != "Z" {
			if exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); exe == binary {
				out = append(out, child)
			}
		}
	}
	return out
}

// procStat returns a process's parent id and state; 0 and "" once it is gone.
func procStat(pid int) (ppid int, state string) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, ""
	}
	// pid (comm) state ppid ...; comm may hold spaces, so cut at the last ')'.
	fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(fields) < 2 {
		return 0, ""
	}
	ppid, _ = strconv.Atoi(fields[1])
	return ppid, fields[0]
}

func alive(pids []int) []int {
	var out []int
	for _, pid := range pids {
		if _, state := procStat(pid); state != "" && state != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

func TestCLI_terraformGoneMidApplyStopsProvider(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t)
	if runtime.GOOS != "linux" {
		t.Skip("finds the provider process through /proc")
	}
	for name, sig := range map[string]os.Signal{"killed": syscall.SIGKILL, "interrupted": os.Interrupt} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			terraformGoneMidApply(t, sig)
		})
	}
}

func terraformGoneMidApply(t *testing.T, sig os.Signal) {
	emu, err := emulator.New(emulator.Options{Token: emulatortest.Token})
	if err != nil {
		t.Fatal(err)
	}
	front := &slowCreates{emu: emu, retryAfter: 4 * time.Second, latency: 2 * time.Second}
	ts := httptest.NewUnstartedServer(front)
	ts.Config.ConnState = front.connState
	ts.Start()
	t.Cleanup(func() { ts.Close(); emu.Close() })
	srv := &emulatortest.Server{Emulator: emu, URL: ts.URL, Token: emulatortest.Token}

	tf := newTerraformCLI(t)
	tf.Write("main.tf", cliProvider(srv)+`
resource "mobileplan_subscription" "fleet" {
  count   = 10
  plan_id = "plan_001"
}
`)
	binary := tf.ProviderPath()
	apply := startBackground(t, tf, "apply", "-auto-approve", "-input=false")
	out, cmd, exited := apply.out, apply.cmd, apply.exited

	// Wait until all ten creates were refused once: the provider now holds
	// ten retries it has not sent.
	deadline := time.Now().Add(90 * time.Second)
	for {
		if _, _, refused := front.counts(time.Time{}); refused == 10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the creates never started:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	providers := providerChildren(t, cmd.Process.Pid, binary)
	if len(providers) == 0 {
		t.Fatalf("no provider process under terraform %d", cmd.Process.Pid)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()

	// The provider must be gone within a few seconds, before the
	// Retry-After of the refused creates has passed.
	for len(alive(providers)) > 0 && time.Since(signalled) < 10*time.Second {
		time.Sleep(50 * time.Millisecond)
	}
	gone := time.Since(signalled)
	if left := alive(providers); len(left) > 0 {
		t.Errorf("provider process(es) %v still running %s after terraform was %v", left, gone.Round(time.Millisecond), sig)
	} else if gone > 3*time.Second {
		t.Errorf("the provider took %s to exit after terraform was %v; want at most 3s", gone.Round(time.Millisecond), sig)
	} else {
		t.Logf("provider gone %s after terraform was %v", gone.Round(time.Millisecond), sig)
	}

	// Once the CLI and its providers are gone, nothing is left to send. A
	// connection they opened is counted once the server accepts it, and
	// closed only after each request the server read on it was handled; a
	// request of the test's own, on a new connection, is answered only after
	// every connection queued before it was accepted. So once that request
	// is answered and no connection is open, the service has seen every
	// create that will ever reach it.
	select {
	case <-exited:
	case <-time.After(time.Minute):
		t.Fatalf("terraform still running a minute after it was %v:\n%s", sig, out.String())
	}
	if len(alive(providers)) == 0 {
		drainAccepted(t, ts.URL)
		deadline := time.Now().Add(30 * time.Second)
		for front.openConns() > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%d connection(s) to the service still open 30s after terraform and its providers exited", front.openConns())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// A request already on its way at the signal may land a moment later.
	const inFlight = 200 * time.Millisecond
	total, late, _ := front.counts(signalled.Add(inFlight))
	if late > 0 {
		t.Errorf("%d of %d create attempts reached the service after terraform was %v", late, total, sig)
	}
	if t.Failed() {
		t.Logf("terraform output:\n%s", out.String())
	}
}
