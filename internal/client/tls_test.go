package client

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func certPEM(c *x509.Certificate) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}))
}

// A service whose certificate comes from an authority the system does not
// trust (httptest's own) fails verification, and is reached once that
// authority is given in CACertPEM.
func TestCACertPEM_trustsAPrivateAuthority(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_, _ = w.Write([]byte(`{"id":"plan_1"}`))
	}))
	t.Cleanup(srv.Close)
	zero := 0
	get := func(caCertPEM string) error {
		c, err := New(Config{BaseURL: srv.URL, Token: "t", CACertPEM: caCertPEM, MaxRetries: &zero})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.GetPlan(context.Background(), "plan_1")
		return err
	}
	var unknown x509.UnknownAuthorityError
	if err := get(""); !errors.As(err, &unknown) {
		t.Fatalf("without the authority: %v, want an unknown authority error", err)
	}
	if err := get(certPEM(srv.Certificate())); err != nil {
		t.Fatalf("with the authority: %v", err)
	}
}

// The authorities given are added to the system's, not put in their place.
func TestCACertPEM_addsToTheSystemPool(t *testing.T) {
	t.Parallel()
	system, err := x509.SystemCertPool()
	if err != nil {
		t.Skipf("no system pool here: %v", err)
	}
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	rt, err := transportTrusting(certPEM(srv.Certificate()))
	if err != nil {
		t.Fatal(err)
	}
	tlsConfig := rt.(*http.Transport).TLSClientConfig
	if tlsConfig.InsecureSkipVerify {
		t.Fatal("TLS verification is off")
	}
	pool := tlsConfig.RootCAs
	//nolint:staticcheck // Subjects is deprecated for the system pool of macOS and Windows only; here it counts a pool built from files
	if got, want := len(pool.Subjects()), len(system.Subjects())+1; got != want {
		t.Errorf("the pool holds %d authorities, want the system's and one more: %d", got, want)
	}
}

func TestCheckCACertPEM(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	good := certPEM(srv.Certificate())
	for name, c := range map[string]struct{ pem, want string }{
		"one certificate":  {good, ""},
		"two certificates": {good + "\n" + good, ""},
		"empty":            {"", "no PEM certificate"},
		"not PEM":          {"MIIB...", "no PEM certificate"},
		"a private key":    {"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", `type "PRIVATE KEY"`},
		"a broken one":     {good + "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "CA certificate 2 does not parse"},
	} {
		err := CheckCACertPEM(c.pem)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
