package diagnostics

import (
	"strings"
	"testing"
)

func TestListCut(t *testing.T) {
	for _, c := range []struct {
		name         string
		limit        int64
		more         int
		all          bool
		summary, fix string
	}{
		{"the whole rest counted", 100, 50, true, "Only 100 subscriptions listed: 50 more match", "set limit = 150 in the list block"},
		{"the read-ahead ended first", 100, 2500, false, "Only 100 subscriptions listed: at least 2500 more match", "counts up to 2500 subscriptions past the limit, and the list went on. To find more, set a limit above 2600 in the list block"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := ListCut(c.limit, c.more, c.all, 2500)
			if d.Summary() != c.summary {
				t.Errorf("summary %q, want %q", d.Summary(), c.summary)
			}
			if !strings.Contains(d.Detail(), c.fix) {
				t.Errorf("detail %q lacks %q", d.Detail(), c.fix)
			}
		})
	}
}
