package client

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// A service may describe its quota on any answer, 429s included: with the
// IETF draft's fields (RateLimit-Policy: "default";q=5;w=1 and
// RateLimit: "default";r=2;t=1: q units per w seconds, r units left, t
// seconds until the quota is whole again), or with the older
// X-RateLimit-Limit, -Remaining and -Reset, which name no window: the
// limit is a number per window whose length only -Reset shows. Whether
// the service sends either is not known, so they only ever add to what the
// pace knows (pace_policy.go): absent, malformed or absurd, they are
// ignored.

// quotaReading is what one answer's quota fields say.
type quotaReading struct {
	limit     int           // q, units per window
	window    time.Duration // w; 0 when the fields do not say (X-RateLimit)
	remaining int           // r, units left after this answer
	reset     time.Duration // t, until the quota is whole again; -1 when not said
	form      string        // "RateLimit" or "X-RateLimit", for the log and the warning
}

// Bounds past which a value is taken for an error of the service's, not
// a fact about its quota.
const (
	maxQuotaUnits  = 10_000_000
	maxQuotaWindow = 24 * 60 * 60
	// unixTimeFrom tells -Reset as a Unix time, as GitHub sends it, from
	// -Reset as seconds to wait: no window is 30 years long.
	unixTimeFrom = 1_000_000_000
)

// readQuotaFields reads the quota fields of h, an answer received at now.
// ok is false when there are none; problem is set when there are some
// that cannot be used.
func readQuotaFields(h http.Header, now time.Time) (q quotaReading, ok bool, problem string) {
	if h.Get("RateLimit") != "" || h.Get("RateLimit-Policy") != "" {
		return readIETFQuota(h)
	}
	if h.Get("X-RateLimit-Limit") != "" || h.Get("X-RateLimit-Remaining") != "" {
		return readXQuota(h, now)
	}
	return quotaReading{}, false, ""
}

func readIETFQuota(h http.Header) (quotaReading, bool, string) {
	policies := structuredItems(h.Values("RateLimit-Policy"))
	limits := structuredItems(h.Values("RateLimit"))
	if len(policies) == 0 || len(limits) == 0 {
		return quotaReading{}, false, "RateLimit and RateLimit-Policy must come together"
	}
	// With several policies, the one nearest exhaustion is the limit.
	found := false
	var best quotaReading
	for _, l := range limits {
		r, err := strconv.Atoi(l.params["r"])
		if err != nil || r < 0 || r > maxQuotaUnits {
			continue
		}
		reset := time.Duration(-1)
		if s, set := l.params["t"]; set {
			t, err := strconv.Atoi(s)
			if err != nil || t < 0 || t > maxQuotaWindow {
				continue
			}
			reset = time.Duration(t) * time.Second
		}
		for _, p := range policies {
			if p.name != l.name {
				continue
			}
			q, errQ := strconv.Atoi(p.params["q"])
			w := 1
			var errW error
			if s, set := p.params["w"]; set {
				w, errW = strconv.Atoi(s)
			}
			if errQ != nil || errW != nil || q < 1 || q > maxQuotaUnits || w < 1 || w > maxQuotaWindow || r > q {
				continue
			}
			reading := quotaReading{limit: q, window: time.Duration(w) * time.Second, remaining: r, reset: reset, form: "RateLimit"}
			if !found || float64(r)/float64(q) < float64(best.remaining)/float64(best.limit) {
				best, found = reading, true
			}
		}
	}
	if !found {
		return quotaReading{}, false, "no RateLimit item with a sane r and t matches a RateLimit-Policy item with sane q and w"
	}
	return best, true, ""
}

// readXQuota reads X-RateLimit-Limit as a number per window, and -Reset
// as the time until the count is whole again: seconds, or a Unix time at
// services that send one (GitHub).
func readXQuota(h http.Header, now time.Time) (quotaReading, bool, string) {
	limit, errL := strconv.Atoi(strings.TrimSpace(h.Get("X-RateLimit-Limit")))
	remaining, errR := strconv.Atoi(strings.TrimSpace(h.Get("X-RateLimit-Remaining")))
	if errL != nil || errR != nil || limit < 1 || limit > maxQuotaUnits || remaining < 0 || remaining > limit {
		return quotaReading{}, false, "X-RateLimit-Limit and -Remaining must be whole numbers, the remaining count no more than the limit"
	}
	reading := quotaReading{limit: limit, remaining: remaining, reset: -1, form: "X-RateLimit"}
	if s := strings.TrimSpace(h.Get("X-RateLimit-Reset")); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		switch {
		case err != nil || v < 0:
			return quotaReading{}, false, "X-RateLimit-Reset must be a whole number of seconds, or a Unix time"
		case v >= unixTimeFrom:
			// A Unix time is held to the bound of seconds to wait: a day
			// ahead or more is no quota's window, or a clock far off.
			reading.reset = max(0, time.Unix(v, 0).Sub(now))
			if reading.reset > maxQuotaWindow*time.Second {
				return quotaReading{}, false, "X-RateLimit-Reset is a Unix time more than a day away"
			}
		case v <= maxQuotaWindow:
			reading.reset = time.Duration(v) * time.Second
		default:
			return quotaReading{}, false, "X-RateLimit-Reset is neither a number of seconds under a day nor a Unix time"
		}
	}
	return reading, true, ""
}

// structuredItem is one member of a structured field list (RFC 9651): a
// name, as a string or a token, with its parameters.
type structuredItem struct {
	name   string
	params map[string]string
}

// structuredItems reads the lists of values, leniently: what is not an
// item with parameters is left out.
func structuredItems(values []string) []structuredItem {
	var items []structuredItem
	for _, v := range values {
		for _, member := range strings.Split(v, ",") {
			parts := strings.Split(strings.TrimSpace(member), ";")
			name := strings.TrimSpace(parts[0])
			if unquoted, err := strconv.Unquote(name); err == nil {
				name = unquoted
			}
			if name == "" {
				continue
			}
			item := structuredItem{name: name, params: map[string]string{}}
			for _, p := range parts[1:] {
				k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
				item.params[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(val)
			}
			items = append(items, item)
		}
	}
	return items
}
