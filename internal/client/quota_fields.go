package client

import (
	"net/http"
	"strconv"
	"strings"
)

// A service may describe its quota on any answer, 429s included: with the
// IETF draft's fields (RateLimit-Policy: "default";q=5;w=1 and
// RateLimit: "default";r=2;t=1: q units per w seconds, r units left), or
// with the older X-RateLimit-Limit and -Remaining. Whether the service
// sends either is not known, so they only ever add to what the pace knows
// (pace.go): absent, malformed or absurd, they are ignored.

// quotaReading is what one answer's quota fields say.
type quotaReading struct {
	// perSecond is the quota's rate, q/w; remaining is r, what is left of
	// it after this answer; limit is q.
	perSecond float64
	limit     int
	remaining int
	form      string // "RateLimit" or "X-RateLimit", for the log and the warning
}

// Bounds past which a value is taken for an error of the service's, not
// a fact about its quota.
const (
	maxQuotaUnits  = 10_000_000
	maxQuotaWindow = 24 * 60 * 60
)

// readQuotaFields reads the quota fields of h. ok is false when there are
// none; problem is set when there are some that cannot be used.
func readQuotaFields(h http.Header) (q quotaReading, ok bool, problem string) {
	if h.Get("RateLimit") != "" || h.Get("RateLimit-Policy") != "" {
		return readIETFQuota(h)
	}
	if h.Get("X-RateLimit-Limit") != "" || h.Get("X-RateLimit-Remaining") != "" {
		return readXQuota(h)
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
			reading := quotaReading{perSecond: float64(q) / float64(w), limit: q, remaining: r, form: "RateLimit"}
			if !found || float64(r)/float64(q) < float64(best.remaining)/float64(best.limit) {
				best, found = reading, true
			}
		}
	}
	if !found {
		return quotaReading{}, false, "no RateLimit item with a sane r matches a RateLimit-Policy item with sane q and w"
	}
	return best, true, ""
}

// readXQuota reads X-RateLimit-Limit as the quota per second: the fields
// name no window, and -Reset is a Unix time at some services and seconds
// at others, so the pace relies on the limit and how -Remaining moves.
func readXQuota(h http.Header) (quotaReading, bool, string) {
	limit, errL := strconv.Atoi(strings.TrimSpace(h.Get("X-RateLimit-Limit")))
	remaining, errR := strconv.Atoi(strings.TrimSpace(h.Get("X-RateLimit-Remaining")))
	if errL != nil || errR != nil || limit < 1 || limit > maxQuotaUnits || remaining < 0 || remaining > limit {
		return quotaReading{}, false, "X-RateLimit-Limit and -Remaining must be whole numbers, the remaining count no more than the limit"
	}
	return quotaReading{perSecond: float64(limit), limit: limit, remaining: remaining, form: "X-RateLimit"}, true, ""
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
