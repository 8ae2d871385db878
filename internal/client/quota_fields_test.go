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
