package client

import "time"

// quotaShape is how the service's count comes back once spent.
type quotaShape int

const (
	// shapeBucket refills continuously, at q/w.
	shapeBucket quotaShape = iota
	// shapeWindow comes back whole, all at once, at its window's end.
	shapeWindow
)

func (s quotaShape) String() string {
	if s == shapeWindow {
		return "window"
	}
	return "bucket"
}

// quotaModel is what the quota fields have said so far: q per w, what was
// left at the latest answer, and the shape the count has shown.
//
// The fields do not name the shape; the count shows it. A bucket's t (the
// time until it is whole again) is what refilling the units spent takes,
// (q-r) / (q/w); a window's is the time to its end, whatever r is. So a t
// longer than a bucket would need, with a second for whole-second
// rounding, shows a window, and a count that rises before the t it was
// given shows a bucket after all (it refills as it goes); the latter wins.
// X-RateLimit names no window: its length is the longest t seen.
type quotaModel struct {
	limit      int
	window     time.Duration
	windowSaid bool // by an IETF policy, not estimated from -Reset
	form       string

	remaining int       // at the latest reading,
	readAt    time.Time // made then,
	resetAt   time.Time // which said the quota is whole again then; zero: not said

	windowSeen, refillSeen bool
}

func (m *quotaModel) perSecond() float64 { return float64(m.limit) / m.window.Seconds() }

func (m *quotaModel) shape() quotaShape {
	if m.windowSeen && !m.refillSeen {
		return shapeWindow
	}
	return shapeBucket
}

// take adds a reading made at now, of the answer to a request sent at
// sentAt, and reports whether it is news: an answer counted in a window
// that had ended before the one the readings before it described,
// arriving late, is not. wholeSecond is the rounding of its times. A
// count that rises says something only of a request sent after the
// reading before it was made: answers arrive in any order, and others
// spend the count between two of this client's requests.
func (m *quotaModel) take(r quotaReading, now, sentAt time.Time, wholeSecond time.Duration) bool {
	if m.shape() == shapeWindow && !m.resetAt.IsZero() && r.reset >= 0 && now.Add(r.reset).Before(m.resetAt.Add(-m.window).Add(wholeSecond)) {
		return false
	}
	ordered := sentAt.After(m.readAt)
	first := m.limit == 0
	m.limit, m.form = r.limit, r.form
	switch {
	case r.window > 0:
		m.window, m.windowSaid = r.window, true
	case !m.windowSaid:
		m.window = max(m.window, r.reset.Round(time.Second), time.Second)
	}
	if !first && ordered && r.remaining > m.remaining+1 && !m.resetAt.IsZero() && now.Add(wholeSecond).Before(m.resetAt) {
		m.refillSeen = true
	}
	if r.reset >= 0 {
		refill := time.Duration(float64(r.limit-r.remaining) / m.perSecond() * float64(time.Second))
		if r.reset > refill+wholeSecond {
			m.windowSeen = true
		}
		end := now.Add(r.reset)
		// A window's t is rounded up to whole seconds, so each reading
		// gives a bound on its end, and the earliest is the closest.
		sameWindow := m.shape() == shapeWindow && !first && now.Before(m.resetAt) && (!ordered || r.remaining <= m.remaining+1)
		if sameWindow && ordered && end.After(m.resetAt.Add(wholeSecond)) {
			// Spending pushed the time it is whole again later, as a
			// bucket's t (until it is full) does: the later time holds.
			sameWindow = false
		}
		if !sameWindow || end.Before(m.resetAt) {
			m.resetAt = end
		}
	} else {
		m.resetAt = time.Time{}
	}
	if ordered || first {
		m.remaining, m.readAt = r.remaining, now
	}
	return true
}

// untilWhole is how long until the quota is whole again, as the latest
// reading said; 0 when it did not say.
func (m *quotaModel) untilWhole(now time.Time) time.Duration {
	if m.resetAt.IsZero() {
		return 0
	}
	return max(0, m.resetAt.Sub(now))
}
