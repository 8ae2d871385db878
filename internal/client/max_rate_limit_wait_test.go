package client

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// DefaultMaxRateLimitWait is what the docs tell users a request may wait
// out the service's rate limit: any request but a create, and a create
// without timeouts.create (the provider's default create timeout is this
// constant). Each figure is read from the doc's own sentence, so doubling
// or halving the constant, or the figure in a doc, fails here.
func TestDefaultMaxRateLimitWaitIsWhatTheDocsSay(t *testing.T) {
	t.Parallel()
	for _, doc := range []struct {
		path string
		says string // a sentence of the doc, its figure in a group, in minutes
	}{
		{"templates/guides/rate-limits.md.tmpl", "`timeouts.create` (default (\\d+) minutes), for any other request (\\d+) minutes."},
		{"templates/index.md.tmpl", "for up to (\\d+) minutes (a create: its `timeouts.create`)."},
		// Generated from the schema's description of timeouts.create.
		{"docs/resources/subscription.md", "Default `(\\d+)m`. When it runs out, nothing was sent"},
	} {
		b, err := os.ReadFile("../../" + doc.path)
		if err != nil {
			t.Fatal(err)
		}
		// The sentence as written, wrapped anywhere.
		pattern := strings.ReplaceAll(regexp.QuoteMeta(doc.says), " ", `\s+`)
		pattern = strings.ReplaceAll(pattern, `\(\\d\+\)`, `(\d+)`)
		m := regexp.MustCompile(pattern).FindStringSubmatch(string(b))
		if m == nil {
			t.Errorf("%s no longer says %q: find where it gives the rate limit's wait, and say it here", doc.path, doc.says)
			continue
		}
		for _, figure := range m[1:] {
			minutes, err := strconv.Atoi(figure)
			if err != nil {
				t.Fatal(err)
			}
			if said := time.Duration(minutes) * time.Minute; said != DefaultMaxRateLimitWait {
				t.Errorf("%s says %v, DefaultMaxRateLimitWait is %v", doc.path, said, DefaultMaxRateLimitWait)
			}
		}
	}
}
