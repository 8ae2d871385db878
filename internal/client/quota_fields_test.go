package client

import (
	"net/http"
	"testing"
	"time"
)

// What each form of the quota fields says, and where a value stops being a
// fact about the quota: the bounds are rows too.
func TestReadQuotaFields(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		name    string
		header  map[string]string
		want    quotaReading
		ok      bool
		problem bool
	}{
		{
			name:   "IETF: q per w, r left, t to go",
			header: map[string]string{"RateLimit-Policy": `"default";q=50;w=10`, "RateLimit": `"default";r=12;t=7`},
			want:   quotaReading{limit: 50, window: 10 * time.Second, remaining: 12, reset: 7 * time.Second, form: "RateLimit"}, ok: true,
		},
		{
			name:   "IETF without w: a second; without t: not said",
			header: map[string]string{"RateLimit-Policy": `"default";q=5`, "RateLimit": `"default";r=2`},
			want:   quotaReading{limit: 5, window: time.Second, remaining: 2, reset: -1, form: "RateLimit"}, ok: true,
		},
		{
			name: "IETF, two policies: the one nearest exhaustion",
			header: map[string]string{
				"RateLimit-Policy": `"burst";q=100;w=60, "day";q=5000;w=86400`,
				"RateLimit":        `"burst";r=90;t=30, "day";r=10;t=3600`,
			},
			want: quotaReading{limit: 5000, window: 86400 * time.Second, remaining: 10, reset: time.Hour, form: "RateLimit"}, ok: true,
		},
		{
			name:    "IETF: a window of a day is the longest believed",
			header:  map[string]string{"RateLimit-Policy": `"default";q=5;w=86401`, "RateLimit": `"default";r=2;t=1`},
			problem: true,
		},
		{
			name:    "IETF: a t of a day is the longest believed",
			header:  map[string]string{"RateLimit-Policy": `"default";q=5;w=10`, "RateLimit": `"default";r=2;t=86401`},
			problem: true,
		},
		{
			name:   "IETF: ten million units are the most believed",
			header: map[string]string{"RateLimit-Policy": `"default";q=10000000;w=10`, "RateLimit": `"default";r=10000000;t=1`},
			want:   quotaReading{limit: 10_000_000, window: 10 * time.Second, remaining: 10_000_000, reset: time.Second, form: "RateLimit"}, ok: true,
		},
		{
			name:    "IETF: more are not",
			header:  map[string]string{"RateLimit-Policy": `"default";q=10000001;w=10`, "RateLimit": `"default";r=5;t=1`},
			problem: true,
		},
		{
			name:   "X-RateLimit: the limit per a window -Reset shows, in seconds",
			header: map[string]string{"X-RateLimit-Limit": "50", "X-RateLimit-Remaining": "49", "X-RateLimit-Reset": "10"},
			want:   quotaReading{limit: 50, remaining: 49, reset: 10 * time.Second, form: "X-RateLimit"}, ok: true,
		},
		{
			name:   "X-RateLimit: -Reset as a Unix time, as GitHub sends it",
			header: map[string]string{"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "4999", "X-RateLimit-Reset": "1800003599"},
			want:   quotaReading{limit: 5000, remaining: 4999, reset: 3599 * time.Second, form: "X-RateLimit"}, ok: true,
		},
		{
			name:   "X-RateLimit: a Unix time from 2001 on",
			header: map[string]string{"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "4", "X-RateLimit-Reset": "1000000000"},
			want:   quotaReading{limit: 5, remaining: 4, reset: 0, form: "X-RateLimit"}, ok: true,
		},
		{
			name:   "X-RateLimit: a Unix time up to a day away",
			header: map[string]string{"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "4", "X-RateLimit-Reset": "1800086400"},
			want:   quotaReading{limit: 5, remaining: 4, reset: 24 * time.Hour, form: "X-RateLimit"}, ok: true,
		},
		{
			name:    "X-RateLimit: a Unix time further away, neither",
			header:  map[string]string{"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "4", "X-RateLimit-Reset": "1800086401"},
			problem: true,
		},
		{
			name:   "X-RateLimit: seconds up to a day",
			header: map[string]string{"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "4", "X-RateLimit-Reset": "86400"},
			want:   quotaReading{limit: 5, remaining: 4, reset: 24 * time.Hour, form: "X-RateLimit"}, ok: true,
		},
		{
			name:    "X-RateLimit: between a day and 2001, neither",
			header:  map[string]string{"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "4", "X-RateLimit-Reset": "86401"},
			problem: true,
		},
		{
			name:   "X-RateLimit: without -Reset, not said",
			header: map[string]string{"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "4"},
			want:   quotaReading{limit: 5, remaining: 4, reset: -1, form: "X-RateLimit"}, ok: true,
		},
		{
			name:    "X-RateLimit: more left than the limit",
			header:  map[string]string{"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": "6"},
			problem: true,
		},
		{name: "none", header: map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			got, ok, problem := readQuotaFields(h, now)
			if got != tc.want || ok != tc.ok || (problem != "") != tc.problem {
				t.Errorf("got %+v, %v, %q; want %+v, %v, a problem: %v", got, ok, problem, tc.want, tc.ok, tc.problem)
			}
		})
	}
}

// readQuotaFields never panics, and what it returns keeps the bounds the
// pace relies on, whatever the headers say: a reading has a limit of 1 to
// maxQuotaUnits units, no more left than the limit and none below 0, a
// window of a second to maxQuotaWindow when the fields name one (none
// for X-RateLimit), and a time until the quota is whole again that is
// either not said (-1) or between 0 and maxQuotaWindow. No reading comes
// with a problem, and a problem is said of every header it cannot use.
func FuzzReadQuotaFields(f *testing.F) {
	const now = 1_800_000_000
	f.Add(`"default";q=50;w=10`, `"default";r=12;t=7`, "", "", "", int64(now))
	f.Add(`"burst";q=100;w=60, "day";q=5000;w=86400`, `"burst";r=90;t=30, "day";r=10;t=3600`, "", "", "", int64(now))
	f.Add(`"default";q=five;w=`, `default;r=-3;t=soon`, "", "", "", int64(now))
	f.Add("", "", "5000", "4999", "1800003599", int64(now))
	f.Add("", "", "50", "49", "10", int64(now))
	f.Add("", "", "lots", "-3", "soon", int64(now))
	f.Add("", "", "5", "4", "99999999999", int64(now))
	f.Add("", "", "5", "4", "1000000000", int64(0))
	f.Fuzz(func(t *testing.T, policy, limit, xLimit, xRemaining, xReset string, nowUnix int64) {
		h := http.Header{}
		for name, v := range map[string]string{"RateLimit-Policy": policy, "RateLimit": limit, "X-RateLimit-Limit": xLimit, "X-RateLimit-Remaining": xRemaining, "X-RateLimit-Reset": xReset} {
			if v != "" {
				h.Set(name, v)
			}
		}
		q, ok, problem := readQuotaFields(h, time.Unix(nowUnix, 0))
		day := maxQuotaWindow * time.Second
		if !ok {
			if q != (quotaReading{}) {
				t.Errorf("no reading, yet %+v", q)
			}
			if some := policy != "" || limit != "" || xLimit != "" || xRemaining != ""; some != (problem != "") {
				t.Errorf("fields %v, problem %q: a problem is said of fields, and only of them", h, problem)
			}
			return
		}
		if problem != "" {
			t.Errorf("a reading %+v with a problem %q", q, problem)
		}
		if q.limit < 1 || q.limit > maxQuotaUnits || q.remaining < 0 || q.remaining > q.limit {
			t.Errorf("%+v: want 1 to %d units, 0 to the limit left", q, maxQuotaUnits)
		}
		if q.reset != -1 && (q.reset < 0 || q.reset > day) {
			t.Errorf("%+v: a time until whole of %v, want -1 or 0 to %v", q, q.reset, day)
		}
		switch q.form {
		case "RateLimit":
			if q.window < time.Second || q.window > day {
				t.Errorf("%+v: a window of %v, want 1s to %v", q, q.window, day)
			}
		case "X-RateLimit":
			if q.window != 0 {
				t.Errorf("%+v: X-RateLimit names no window", q)
			}
		default:
			t.Errorf("%+v: form %q", q, q.form)
		}
	})
}
