package provider

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// checkBaseURL accepts https URLs, and http only for loopback hosts (the
// emulator): the API token travels in every request's Authorization header
// and must never cross a network in clear text.
func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%q is not a URL: %w", raw, err)
	}
	if u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("%q is not an absolute http(s) URL such as https://api.example.com", raw)
	}
	if u.User != nil {
		return fmt.Errorf("%q carries credentials in the URL; set api_token instead", redactUserinfo(u))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q has a query or fragment; give only scheme, host, port and an optional path prefix", raw)
	}
	if u.Scheme == "http" && !isLoopbackHost(u.Hostname()) {
		return fmt.Errorf("%q uses plain http to a host that is not loopback; the API token would travel in clear text. Use https, or http only with localhost, 127.0.0.1 or [::1] (the emulator)", raw)
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

func redactUserinfo(u *url.URL) string {
	c := *u
	c.User = url.User("REDACTED")
	return c.String()
}
