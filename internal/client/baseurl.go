package client

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"strings"
)

// ParseBaseURL is the one rule for the service's base address, used by the
// client and by every check made before it is built. It accepts https URLs,
// and http only for loopback hosts (the emulator): the API token travels in
// every request's Authorization header and must never cross a network in
// clear text. The URL must carry no credentials, query or fragment, and
// must not end in /v1, the version every path of the service begins with. Errors
// quote the URL with its user information redacted, even when it does not
// parse, because it may hold a password.
func ParseBaseURL(raw string) (*url.URL, error) {
	shown := RedactURL(raw)
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil {
		// The parser's own message quotes the whole URL: give its reason
		// only when there is no credential to hide.
		var urlErr *url.Error
		if shown != raw || !errors.As(err, &urlErr) {
			return nil, fmt.Errorf("%q is not a URL", shown)
		}
		return nil, fmt.Errorf("%q is not a URL: %w", raw, urlErr.Err)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%q carries credentials in the URL; set the API token instead", shown)
	}
	if u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("%q is not an absolute http(s) URL such as https://api.example.com", shown)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%q has a query or fragment; give only scheme, host, port and an optional path prefix", shown)
	}
	if path.Base(u.Path) == "v1" {
		return nil, fmt.Errorf("%q ends in /v1; give the service's root, without /v1: every path of the service begins with it", shown)
	}
	if u.Scheme == "http" && !isLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("%q uses plain http to a host that is not loopback; the API token would travel in clear text. Use https, or http only with localhost, an address in 127.0.0.0/8 or [::1] (the emulator)", shown)
	}
	return u, nil
}

// RedactURL returns raw with its user information (user:password@)
// replaced by REDACTED, also when raw does not parse as a URL, so that an
// error can quote what was written without the credential. Everything up
// to the last '@' goes: in a URL that does not parse, nothing else tells
// where the password ends.
func RedactURL(raw string) string {
	prefix, rest := "", raw
	if i := strings.Index(raw, "://"); i >= 0 {
		prefix, rest = raw[:i+3], raw[i+3:]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return raw
	}
	return prefix + "REDACTED@" + rest[at+1:]
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
