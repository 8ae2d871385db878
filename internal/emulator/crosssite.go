package emulator

import (
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Control operations need no token, so they must not be reachable from a
// web page the user happens to visit. A page on another site can make the
// browser send a "simple" POST (text/plain, form types) without asking
// first, and DNS rebinding lets it reach 127.0.0.1 under its own host name.
// So control operations refuse:
//   - a POST or PUT whose Content-Type is not application/json (a browser
//     sends that cross-site only after a CORS preflight, which the emulator
//     never grants);
//   - an Origin header that is not a loopback origin;
//   - a Host header that is not a loopback name or address (rebinding).

// crossSiteRefusal says why r may come from another site, or "" when it
// may not.
func crossSiteRefusal(r *http.Request) (status int, reason string) {
	if !loopbackHost(r.Host) {
		return http.StatusForbidden, "control operations answer only to a loopback Host (localhost, 127.0.0.0/8, ::1), not " + quoteOrEmpty(r.Host)
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host == "" || !loopbackHost(u.Host) {
			return http.StatusForbidden, "control operations refuse requests from the web origin " + quoteOrEmpty(origin) + "; only loopback origins may call them"
		}
	}
	if r.Method == http.MethodPost || r.Method == http.MethodPut {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/json" {
			return http.StatusUnsupportedMediaType, "control operations take Content-Type: application/json (send it even without a body)"
		}
	}
	return 0, ""
}

// loopbackHost reports whether a Host header value (name or address, with
// or without a port) is a loopback name or address.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func quoteOrEmpty(s string) string {
	if s == "" {
		return "an empty one"
	}
	return `"` + s + `"`
}
