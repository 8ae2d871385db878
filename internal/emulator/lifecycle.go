package emulator

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mobileplan/terraform-provider-mobileplan/webhook"
)

// Lifecycle changes the real service makes on its own (first use of an eSIM,
// data usage, roaming, SM-DP+ changes, time passing). The emulator exposes
// them as control operations so tests and users can drive them.

// Usage thresholds (percent) at which the service notifies.
var usageThresholds = []int{50, 80, 100}

var countryCode = regexp.MustCompile(`^[A-Z]{2}$`)
var smdpStateWord = regexp.MustCompile(`^[A-Z][A-Z_]*$`)

// controlError is a control operation's failure: an HTTP status and Error body.
type controlError struct {
	status int
	body   *ErrorBody
}

func (e *controlError) Error() string { return e.body.Message }

func notFound(what, id string) *controlError {
	return &controlError{404, newError(codeNotFound, fmt.Sprintf("%s %q does not exist", what, id))}
}

func badRequest(msg string) *controlError {
	return &controlError{400, newError(codeInvalidRequest, msg)}
}

// The operations below change the store; the caller holds s.mu and ch
// collects what they touched.

// activate marks the subscription's eSIM as first used.
func (s *store) activate(ch *change, id string) error {
	sub := s.subByID[id]
	if sub == nil {
		return notFound("subscription", id)
	}
	if sub.ActivatedAt != nil {
		return &controlError{409, newError(codeConflict, fmt.Sprintf("subscription %q is already %s", id, sub.state(s.clock())))}
	}
	s.activateLocked(ch, sub)
	ch.putSub(sub)
	return nil
}

// activateLocked sets the activation fields and adds its events; the
// caller stores sub.
func (s *store) activateLocked(ch *change, sub *subscription) {
	now := s.clock()
	ch.onUndo(func() { sub.ActivatedAt, sub.ExpireAt = nil, nil })
	sub.ActivatedAt = ptr(now)
	sub.ExpireAt = ptr(now + sub.Plan.PeriodDays*max(sub.Plan.PeriodIterations, 1)*86400)
	v1 := webhook.SubscriptionActivatedEvent{Header: header(webhook.TypeSubscriptionActivated, now), SubscriptionID: sub.ID, EsimICCID: sub.EsimICCID}
	v2 := webhook.AttachmentActivatedEvent{Header: header(webhook.TypeAttachmentActivated, now)}
	v2.Data.Esim = sub.EsimICCID
	v2.Data.Plan = eventPlanOf(sub.Plan)
	v2.Data.AttachmentID = sub.AttachmentID
	ch.events = append(ch.events, v1, v2)
	// First use installs the eSIM's profile: an SM-DP+ state change, which
	// the service announces like any other.
	if e := s.esimByICCID[sub.EsimICCID]; e != nil && e.SmdpState != "INSTALLED" {
		old := e.SmdpState
		ch.onUndo(func() { e.SmdpState = old })
		e.SmdpState = "INSTALLED"
		ch.putEsim(s, e)
		ch.events = append(ch.events, smdpEvent(e.ICCID, "INSTALLED", now))
	}
}

// recordUsage consumes data. A ready subscription is activated first, since
// usage means its eSIM is in use. Thresholds crossed fire events; when one
// record crosses several, the attachment event is sent only for the highest,
// as the interface document warns may happen under heavy consumption.
func (s *store) recordUsage(ch *change, id string, dataBytes int64) error {
	if dataBytes <= 0 {
		return badRequest("dataBytes must be a positive integer")
	}
	sub := s.subByID[id]
	if sub == nil {
		return notFound("subscription", id)
	}
	if sub.ActivatedAt == nil {
		s.activateLocked(ch, sub)
	}
	if sub.state(s.clock()) == StateExpired {
		return &controlError{409, newError(codeConflict, fmt.Sprintf("subscription %q has expired", id))}
	}
	oldRemaining, oldNotified := sub.Remaining.DataBytes, sub.ThresholdsNotified
	ch.onUndo(func() { sub.Remaining.DataBytes, sub.ThresholdsNotified = oldRemaining, oldNotified })
	sub.ThresholdsNotified = append([]int(nil), oldNotified...) // the undo keeps the old slice intact
	purchased := *sub.Purchased.DataBytes
	remaining := max(*sub.Remaining.DataBytes-dataBytes, 0)
	sub.Remaining.DataBytes = ptr(remaining)
	used := purchased - remaining
	percent := float64(used) * 100 / float64(purchased)

	now := s.clock()
	highest := 0
	for _, t := range usageThresholds {
		if percent < float64(t) || notified(sub.ThresholdsNotified, t) {
			continue
		}
		sub.ThresholdsNotified = append(sub.ThresholdsNotified, t)
		ch.events = append(ch.events, webhook.SubscriptionAllowanceThresholdBreachedEvent{
			Header: header(webhook.TypeSubscriptionAllowanceThresholdBreached, now), SubscriptionID: sub.ID, BreachedService: "data",
			Threshold: t, EsimICCID: sub.EsimICCID,
		})
		highest = t
	}
	// Only fixed-validity plans get attachment usage events; a plan that
	// repeats its period is recurring.
	if highest > 0 && sub.Plan.PeriodIterations <= 1 {
		ev := webhook.AttachmentAllowanceConsumedEvent{Header: header(webhook.TypeAttachmentAllowanceConsumed, now)}
		ev.Data.UsagePercentage = percent
		ev.Data.DataUsageBytes = float64(used)
		ev.Data.Esim = sub.EsimICCID
		ev.Data.Plan = eventPlanOf(sub.Plan)
		ev.Data.AttachmentID = sub.AttachmentID
		ch.events = append(ch.events, ev)
	}
	ch.putSub(sub)
	return nil
}

func notified(done []int, t int) bool {
	for _, d := range done {
		if d == t {
			return true
		}
	}
	return false
}

func (s *store) moveEsim(ch *change, iccid, country string) error {
	country = strings.ToUpper(country)
	if !countryCode.MatchString(country) {
		return badRequest("countryIso2 must be an ISO 3166 alpha-2 code such as DE")
	}
	e := s.esimByICCID[iccid]
	if e == nil {
		return notFound("eSIM", iccid)
	}
	if e.CountryISO2 != nil && *e.CountryISO2 == country {
		return nil // no change detected, no event
	}
	old := e.CountryISO2
	ch.onUndo(func() { e.CountryISO2 = old })
	e.CountryISO2 = ptr(country)
	ch.putEsim(s, e)
	ev := webhook.SubscriptionV2EsimLocationChangedEvent{Header: header(webhook.TypeSubscriptionV2EsimLocationChanged, s.clock())}
	ev.Data.Esim = iccid
	ev.Data.CountryISO2 = country
	ch.events = append(ch.events, ev)
	return nil
}

func (s *store) setSmdpState(ch *change, iccid, state string) error {
	if !smdpStateWord.MatchString(state) {
		return badRequest("state must be an uppercase word such as RELEASED")
	}
	e := s.esimByICCID[iccid]
	if e == nil {
		return notFound("eSIM", iccid)
	}
	if e.SmdpState == state {
		return nil // no change, no event
	}
	old := e.SmdpState
	ch.onUndo(func() { e.SmdpState = old })
	e.SmdpState = state
	ch.putEsim(s, e)
	ch.events = append(ch.events, smdpEvent(iccid, state, s.clock()))
	return nil
}

func header(typ string, now int64) webhook.Header {
	return webhook.Header{Type: typ, Timestamp: now}
}

func smdpEvent(iccid, state string, now int64) webhook.EsimSmdpStateChangedEvent {
	ev := webhook.EsimSmdpStateChangedEvent{Header: header(webhook.TypeEsimSmdpStateChanged, now)}
	ev.Data.Esim = iccid
	ev.Data.SmdpStateChange.State = state
	ev.Data.SmdpStateChange.ModifiedAt = now
	ev.Data.SmdpStateChange.ModificationResult = "SUCCESS"
	return ev
}

// MaxClockOffsetSeconds bounds how far the emulator's clock may run ahead of
// the wall clock: 200 years, twice the longest plan period, far from where
// Unix seconds overflow.
const MaxClockOffsetSeconds = 200 * 366 * 86400

// advanceClock moves the emulator's clock forward; subscriptions whose
// expireAt has passed read as expired from then on.
func (s *store) advanceClock(ch *change, seconds int64) (int64, error) {
	if seconds <= 0 || seconds > MaxClockOffsetSeconds-s.clockOffset {
		return 0, badRequest(fmt.Sprintf("seconds must be a positive integer, and the clock can run at most %d seconds (200 years) ahead of the wall clock; it is %d seconds ahead now",
			int64(MaxClockOffsetSeconds), s.clockOffset))
	}
	old := s.clockOffset
	ch.onUndo(func() { s.clockOffset = old })
	s.clockOffset += seconds
	ch.putMeta(metaClockOffset, s.clockOffset)
	return s.clock(), nil
}

// reset returns to ds and stores all of it.
func (s *store) reset(ch *change, ds Dataset) {
	saved := s.content // load replaces every slice and map, so this stays intact
	ch.onUndo(func() { s.content = saved })
	s.load(ds.normalized(), nil, 0, 0)
	ch.putAll(s)
}
