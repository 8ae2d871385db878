package emulator

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/webhook"
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

// activate marks the subscription's eSIM as first used.
func (s *store) activate(id string) ([]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.subByID[id]
	if sub == nil {
		return nil, notFound("subscription", id)
	}
	if sub.ActivatedAt != nil {
		return nil, &controlError{409, newError(codeConflict, fmt.Sprintf("subscription %q is already %s", id, sub.state(s.clock())))}
	}
	return s.activateLocked(sub), nil
}

func (s *store) activateLocked(sub *subscription) []any {
	now := s.clock()
	sub.ActivatedAt = ptr(now)
	sub.ExpireAt = ptr(now + sub.Plan.PeriodDays*max(sub.Plan.PeriodIterations, 1)*86400)
	v1 := webhook.SubscriptionActivatedEvent{Header: header(webhook.TypeSubscriptionActivated, now), SubscriptionID: sub.ID, EsimICCID: sub.EsimICCID}
	v2 := webhook.AttachmentActivatedEvent{Header: header(webhook.TypeAttachmentActivated, now)}
	v2.Data.Esim = sub.EsimICCID
	v2.Data.Plan = eventPlanOf(sub.Plan)
	v2.Data.AttachmentID = sub.AttachmentID
	events := []any{v1, v2}
	// First use installs the eSIM's profile: an SM-DP+ state change, which
	// the service announces like any other.
	if e := s.esimByICCID[sub.EsimICCID]; e != nil && e.SmdpState != "INSTALLED" {
		e.SmdpState = "INSTALLED"
		events = append(events, smdpEvent(e.ICCID, "INSTALLED", now))
	}
	return events
}

// recordUsage consumes data. A ready subscription is activated first, since
// usage means its eSIM is in use. Thresholds crossed fire events; when one
// record crosses several, the attachment event is sent only for the highest,
// as the interface document warns may happen under heavy consumption.
func (s *store) recordUsage(id string, dataBytes int64) ([]any, error) {
	if dataBytes <= 0 {
		return nil, badRequest("dataBytes must be a positive integer")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sub := s.subByID[id]
	if sub == nil {
		return nil, notFound("subscription", id)
	}
	var events []any
	if sub.ActivatedAt == nil {
		events = s.activateLocked(sub)
	}
	if sub.state(s.clock()) == StateExpired {
		return nil, &controlError{409, newError(codeConflict, fmt.Sprintf("subscription %q has expired", id))}
	}
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
		events = append(events, webhook.SubscriptionAllowanceThresholdBreachedEvent{
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
		events = append(events, ev)
	}
	return events, nil
}

func notified(done []int, t int) bool {
	for _, d := range done {
		if d == t {
			return true
		}
	}
	return false
}

func (s *store) moveEsim(iccid, country string) ([]any, error) {
	country = strings.ToUpper(country)
	if !countryCode.MatchString(country) {
		return nil, badRequest("countryIso2 must be an ISO 3166 alpha-2 code such as DE")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.esimByICCID[iccid]
	if e == nil {
		return nil, notFound("eSIM", iccid)
	}
	if e.CountryISO2 != nil && *e.CountryISO2 == country {
		return nil, nil // no change detected, no event
	}
	e.CountryISO2 = ptr(country)
	ev := webhook.SubscriptionV2EsimLocationChangedEvent{Header: header(webhook.TypeSubscriptionV2EsimLocationChanged, s.clock())}
	ev.Data.Esim = iccid
	ev.Data.CountryISO2 = country
	return []any{ev}, nil
}

func (s *store) setSmdpState(iccid, state string) ([]any, error) {
	if !smdpStateWord.MatchString(state) {
		return nil, badRequest("state must be an uppercase word such as RELEASED")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.esimByICCID[iccid]
	if e == nil {
		return nil, notFound("eSIM", iccid)
	}
	if e.SmdpState == state {
		return nil, nil // no change, no event
	}
	e.SmdpState = state
	return []any{smdpEvent(iccid, state, s.clock())}, nil
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

// advanceClock moves the emulator's clock forward; subscriptions whose
// expireAt has passed read as expired from then on.
func (s *store) advanceClock(seconds int64) (int64, error) {
	if seconds <= 0 {
		return 0, badRequest("seconds must be a positive integer")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clockOffset += seconds
	return s.clock(), nil
}

func (s *store) reset(ds Dataset) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load(ds.normalized(), nil, 0, 0)
}
