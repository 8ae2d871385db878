package client

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
)

// Networks whose TLS a proxy intercepts with a certificate authority of
// their own, and services behind a private CA, need that CA trusted. It is
// added to the system's pool, never put in its place: the service's own
// certificate may still come from a public CA, and the rest of the
// machine's trust stays as it is. Proxies themselves need nothing here:
// the transport is net/http's default one, which takes HTTPS_PROXY,
// HTTP_PROXY and NO_PROXY from the environment (requests to loopback
// hosts never go through a proxy).

// CheckCACertPEM refuses extra CA certificates that are not PEM
// certificates: every PEM block must be a CERTIFICATE that parses, and there
// must be at least one.
func CheckCACertPEM(pemText string) error {
	_, err := parseCACerts([]byte(pemText))
	return err
}

func parseCACerts(rest []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("the CA certificates hold a PEM block of type %q; only CERTIFICATE blocks may be given (never a private key)", block.Type)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("CA certificate %d does not parse: %w", len(certs)+1, err)
		}
		certs = append(certs, cert)
	}
	if len(certs) == 0 {
		return nil, errors.New("the CA certificates hold no PEM certificate (a block beginning with -----BEGIN CERTIFICATE-----)")
	}
	return certs, nil
}

// transportTrusting is the default transport, trusting caCertPEM's
// certificates as well as the system's when it is not empty.
func transportTrusting(caCertPEM string) (http.RoundTripper, error) {
	t := defaultTransport()
	if caCertPEM == "" {
		return t, nil
	}
	certs, err := parseCACerts([]byte(caCertPEM))
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool() // no system pool (as on some minimal images): the given CAs alone
	}
	for _, c := range certs {
		pool.AddCert(c)
	}
	t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return t, nil
}
