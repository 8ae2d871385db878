// Package journaltest writes journals for the tests of the packages that
// read them: what a killed run leaves, without killing one.
package journaltest

import (
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/journal"
)

// KilledRun writes, in the journal at path of home, an apply of service
// (with token) that made ids, each for request, and was killed, then a
// whole plan after it that saw none of them in its state: the ids are
// leftovers the next run takes or names.
func KilledRun(tb testing.TB, path string, home journal.Home, service, token, request string, ids []string) {
	tb.Helper()
	killed, err := journal.Open(path, home, service, journal.Options{Now: time.Now, Token: token})
	if err != nil {
		tb.Fatal(err)
	}
	for _, id := range ids {
		c := killed.NewCreate(request, time.Minute)
		if err := c.Sending(); err != nil {
			tb.Fatal(err)
		}
		if err := c.Made(id, time.Time{}); err != nil {
			tb.Fatal(err)
		}
	}
	_ = killed.Close()
	plan, err := journal.Open(path, home, service, journal.Options{Now: time.Now, Token: token})
	if err != nil {
		tb.Fatal(err)
	}
	if err := plan.End(true, false, nil, nil); err != nil {
		tb.Fatal(err)
	}
}

// KilledBeforeItsAnswer writes, in the journal at path of home, an apply
// of service (with token) killed with a create of request sent and no
// answer on record: the next run looks at the service for what it made.
func KilledBeforeItsAnswer(tb testing.TB, path string, home journal.Home, service, token, request string) {
	tb.Helper()
	killed, err := journal.Open(path, home, service, journal.Options{Now: time.Now, Token: token})
	if err != nil {
		tb.Fatal(err)
	}
	if err := killed.NewCreate(request, time.Minute).Sending(); err != nil {
		tb.Fatal(err)
	}
	_ = killed.Close()
}
