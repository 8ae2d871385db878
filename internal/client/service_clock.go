package client

import (
	"net/http"
	"sync"
	"time"
)

// serviceClock reads the service's clock from the Date header of its
// answers, against this machine's at the moment the answer came: the
// service dates what it makes (a subscription's createdAt) by its own
// clock, and a client that looks for what it made at a time of its own
// must know how far apart the two are. A Date header has whole seconds,
// so the offset is known to a second.
type serviceClock struct {
	now func() time.Time

	mu     sync.Mutex
	offset time.Duration
	known  bool
}

// observe reads an answer's Date header, received at the local time now.
func (c *serviceClock) observe(h http.Header, now time.Time) {
	date, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset, c.known = date.Sub(now.Truncate(time.Second)), true
}

// read is the service's clock less this machine's, as the last dated
// answer showed it; false before any.
func (c *serviceClock) read() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offset, c.known
}

// dated is the RoundTripper that shows every answer to the service's
// clock.
type dated struct {
	clock *serviceClock
	next  http.RoundTripper
}

func (t dated) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err == nil {
		t.clock.observe(resp.Header, t.clock.now())
	}
	return resp, err
}

// ServiceClockOffset is the service's clock less this machine's, to a
// second, as the last answer that carried a Date header showed it; false
// before any did.
func (c *Client) ServiceClockOffset() (time.Duration, bool) { return c.clock.read() }
