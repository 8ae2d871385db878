package provider

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/testcert"
)

// A company network as CI meets it: the service is reached through a
// proxy named by HTTPS_PROXY, under a name only the proxy resolves
// (mobileplan.test), and its certificate comes from a private certificate
// authority. Go sends no request for a loopback host through a proxy, so
// the service is named by a host that is not loopback and that only the
// proxy turns into the emulator's address: every request the provider
// makes has to pass the proxy, or fail.

const privateHost = "mobileplan.test"

// connectProxy is an HTTPS proxy on loopback: it tunnels CONNECT requests
// for privateHost to the emulator, and records every request it receives.
type connectProxy struct {
	URL  string
	mu   sync.Mutex
	seen []string // method, host and Authorization header of each request
}

func startConnectProxy(t *testing.T) *connectProxy {
	t.Helper()
	p := &connectProxy{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen = append(p.seen, r.Method+" "+r.Host+" "+r.Header.Get("Authorization"))
		p.mu.Unlock()
		host, port, _ := net.SplitHostPort(r.Host)
		if r.Method != http.MethodConnect || host != privateHost {
			http.Error(w, "this proxy tunnels only to "+privateHost, http.StatusForbidden)
			return
		}
		upstream, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", port))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			upstream.Close()
			return
		}
		go func() { _, _ = io.Copy(upstream, buf); upstream.Close() }()
		_, _ = io.Copy(conn, upstream)
		conn.Close()
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

func (p *connectProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string{}, p.seen...)
}

// startPrivateService is the emulator over TLS with ca's certificate, its
// address as the proxy makes it reachable, and the proxy.
func startPrivateService(t *testing.T, ca testcert.Authority) (*emulatortest.Server, string, *connectProxy) {
	t.Helper()
	srv := emulatortest.StartTLS(t, emulator.Options{}, &tls.Config{Certificates: []tls.Certificate{ca.Server}, MinVersion: tls.VersionTLS12})
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return srv, "https://" + net.JoinHostPort(privateHost, u.Port()), startConnectProxy(t)
}

func TestCLI_privateCAThroughProxy(t *testing.T) {
	t.Parallel()
	acctest.SkipUnlessAcceptance(t) // the subtests skip without TF_ACC, and the counts below would fail
	ca := testcert.New(t, "mobileplan test private CA", privateHost)
	srv, baseURL, proxy := startPrivateService(t, ca)
	config := func(caSetting string) string {
		return `
terraform {
  required_providers {
    mobileplan = { source = "mobileplan/mobileplan" }
  }
}

provider "mobileplan" {
  base_url  = "` + baseURL + `"
  api_token = "` + srv.Token + `"
` + caSetting + `
}

resource "mobileplan_subscription" "s" {
  plan_id = "plan_001"
}
`
	}
	proxyEnv := []string{"HTTPS_PROXY=" + proxy.URL, "https_proxy=" + proxy.URL, "NO_PROXY=", "no_proxy="}

	t.Run("untrusted until the CA is given", func(t *testing.T) {
		tf := newTerraformCLI(t, proxyEnv...)
		tf.Write("main.tf", config(""))
		out, code := tf.Run(nil, "apply", "-auto-approve", "-input=false")
		if code == 0 {
			t.Fatalf("the provider trusted a private CA it was not given:\n%s", out)
		}
		for _, want := range []string{"certificate signed by unknown authority", "ca_cert_pem", "MOBILEPLAN_CA_CERT_PEM"} {
			if !strings.Contains(unwrap(out), want) {
				t.Errorf("the failure lacks %q:\n%s", want, out)
			}
		}

		tf.Write("ca.pem", ca.PEM)
		tf.Write("main.tf", config(`  ca_cert_pem = file("ca.pem")`))
		tf.Must("apply", "-auto-approve", "-input=false")
		tf.ExpectNoChanges()
	})

	t.Run("the CA from the environment", func(t *testing.T) {
		tf := newTerraformCLI(t, append(proxyEnv, EnvCACertPEM+"="+ca.PEM)...)
		tf.Write("main.tf", config(""))
		tf.Must("apply", "-auto-approve", "-input=false")
	})

	if n := srv.RequestCounts()["POST /v1/subscriptions"]; n != 2 {
		t.Errorf("%d subscriptions created through the proxy, want 2", n)
	}
	// Every request went through the proxy as a tunnel to the service's
	// origin: the proxy saw no request of its own, and so never the token.
	seen := proxy.requests()
	if len(seen) == 0 {
		t.Fatal("the proxy saw no request: the provider did not use HTTPS_PROXY")
	}
	want := "CONNECT " + strings.TrimPrefix(baseURL, "https://") + " "
	for _, r := range seen {
		if r != want {
			t.Errorf("the proxy saw %q; want only tunnels to the service, %q, with no token", r, want)
		}
	}

	t.Run("NO_PROXY bypasses the proxy", func(t *testing.T) {
		before := len(proxy.requests())
		tf := newTerraformCLI(t, "HTTPS_PROXY="+proxy.URL, "https_proxy="+proxy.URL, "NO_PROXY="+privateHost, "no_proxy="+privateHost, EnvCACertPEM+"="+ca.PEM)
		tf.Write("main.tf", config("  max_retries = 0")+"\ndata \"mobileplan_plan\" \"p\" {\n  id = \"plan_001\"\n}\n")
		out, code := tf.Run(nil, "plan", "-input=false")
		// Without the proxy, mobileplan.test is resolved by the machine,
		// where it does not exist (.test is reserved for tests).
		if code == 0 || !strings.Contains(out, privateHost) {
			t.Fatalf("with NO_PROXY naming the host, the plan reached the service:\n%s", out)
		}
		if after := len(proxy.requests()); after != before {
			t.Errorf("the proxy saw %d requests for a host NO_PROXY names", after-before)
		}
	})
}

// The token rules hold through a proxy as without one: plain http to a
// host that is not loopback is refused before any request, so the token
// never reaches a proxy in clear text.
func TestCLI_plainHTTPRefusedThroughProxy(t *testing.T) {
	t.Parallel()
	proxy := startConnectProxy(t)
	tf := newTerraformCLI(t, "HTTP_PROXY="+proxy.URL, "http_proxy="+proxy.URL, "HTTPS_PROXY="+proxy.URL, "https_proxy="+proxy.URL)
	tf.Write("main.tf", `
terraform {
  required_providers {
    mobileplan = { source = "mobileplan/mobileplan" }
  }
}

provider "mobileplan" {
  base_url  = "http://`+privateHost+`:8089"
  api_token = "a-token-for-the-proxy-to-never-see"
}

data "mobileplan_plan" "p" {
  id = "plan_001"
}
`)
	out, code := tf.Run(nil, "plan", "-input=false")
	if code == 0 || !strings.Contains(unwrap(out), "the API token would travel in clear text") {
		t.Fatalf("plain http to a remote host through a proxy was not refused:\n%s", out)
	}
	if seen := proxy.requests(); len(seen) != 0 {
		t.Errorf("the proxy saw %v", seen)
	}
}
