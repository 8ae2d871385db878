package provider

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// checkBaseURL accepts https URLs, and http only for loopback hosts (the
// emulator): the API token travels in every request's Authorization header
// and must never cross a network in clear text.
func checkBaseURL(raw string) error {
	// Messages quote the URL with anything before an '@' redacted, even
	// when it does not parse: it may be a password.
	shown := client.RedactURL(raw)
	u, err := url.Parse(raw)
	if err != nil {
		// The parser's own message quotes the whole URL: give its reason
		// only when there is no credential to hide.
		var urlErr *url.Error
		if shown != raw || !errors.As(err, &urlErr) {
			return fmt.Errorf("%q is not a URL", shown)
		}
		return fmt.Errorf("%q is not a URL: %w", raw, urlErr.Err)
	}
	if u.User != nil {
		return fmt.Errorf("%q carries credentials in the URL; set api_token instead", shown)
	}
	if u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("%q is not an absolute http(s) URL such as https://api.example.com", shown)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q has a query or fragment; give only scheme, host, port and an optional path prefix", shown)
	}
	if u.Scheme == "http" && !isLoopbackHost(u.Hostname()) {
		return fmt.Errorf("%q uses plain http to a host that is not loopback; the API token would travel in clear text. Use https, or http only with localhost, 127.0.0.1 or [::1] (the emulator)", shown)
	}
	return nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
