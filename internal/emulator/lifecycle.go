package emulator

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
	"github.com/mobileplan/terraform-provider-mobileplan/webhook"
)

// Lifecycle changes the real service makes on its own (first use of an eSIM,
// data usage, roaming, SM-DP+ changes, time passing). The emulator exposes
// them as control operations so tests and users can drive them.

// Usage thresholds (percent) at which the service notifies.
var usageThresholds = []int{50, 80, 100}

var countryCode = regexp.MustCompile(`^[A-Z]{2}$`)
var smdpStateWord = regexp.MustCompile(`^[A-Z][A-Z_]*$`)

// The operations below change the state in tx, and add the webhook events
// the change causes to announce; they are sent once it is stored.

// activate marks the subscription's eSIM as first used.
func activate(tx *state.Tx, announce *[]any, id string) error {
	sub, ok := tx.Subscription(id)
	if !ok {
		return notFound("subscription", id)
	}
	if sub.ActivatedAt != nil {
		return &controlError{409, newError(codeConflict, fmt.Sprintf("subscription %q is already %s", id, stateOf(&sub, tx.Now())))}
	}
	_, err := markFirstUse(tx, announce, sub)
	return err
}

// markFirstUse starts the subscription's validity (activatedAt, expireAt)
// as the first use of its eSIM does, announces it, and installs the eSIM's
// profile; it returns the subscription as changed.
func markFirstUse(tx *state.Tx, announce *[]any, sub state.Subscription) (state.Subscription, error) {
	now := tx.Now()
	sub.ActivatedAt = ptr(now)
	sub.ExpireAt = ptr(now + sub.Plan.PeriodDays*max(sub.Plan.PeriodIterations, 1)*86400)
	if err := tx.UpdateSubscription(sub); err != nil {
		return sub, err
	}
	v1 := webhook.SubscriptionActivatedEvent{Header: header(webhook.TypeSubscriptionActivated, now), SubscriptionID: sub.ID, EsimICCID: sub.EsimICCID}
	v2 := webhook.AttachmentActivatedEvent{Header: header(webhook.TypeAttachmentActivated, now)}
	v2.Data.Esim = sub.EsimICCID
	v2.Data.Plan = eventPlanOf(sub.Plan)
	v2.Data.AttachmentID = sub.AttachmentID
	*announce = append(*announce, v1, v2)
	// First use installs the eSIM's profile: an SM-DP+ state change, which
	// the service announces like any other.
	if e, ok := tx.Esim(sub.EsimICCID); ok && e.SmdpState != "INSTALLED" {
		e.SmdpState = "INSTALLED"
		if err := tx.UpdateEsim(e); err != nil {
			return sub, err
		}
		*announce = append(*announce, smdpEvent(e.ICCID, "INSTALLED", now))
	}
	return sub, nil
}

// recordUsage consumes data. A ready subscription is activated first, since
// usage means its eSIM is in use. Thresholds crossed fire events; when one
// record crosses several, the attachment event is sent only for the highest,
// as the interface document warns may happen under heavy consumption.
func recordUsage(tx *state.Tx, announce *[]any, id string, dataBytes int64) error {
	if dataBytes <= 0 {
		return badRequest("dataBytes must be a positive integer")
	}
	sub, ok := tx.Subscription(id)
	if !ok {
		return notFound("subscription", id)
	}
	if sub.ActivatedAt == nil {
		var err error
		if sub, err = markFirstUse(tx, announce, sub); err != nil {
			return err
		}
	}
	if stateOf(&sub, tx.Now()) == StateExpired {
		return &controlError{409, newError(codeConflict, fmt.Sprintf("subscription %q has expired", id))}
	}
	sub.ThresholdsNotified = append([]int(nil), sub.ThresholdsNotified...) // the stored slice stays as it is, for the undo
	purchased := *sub.Purchased.DataBytes
	remaining := max(*sub.Remaining.DataBytes-dataBytes, 0)
	sub.Remaining.DataBytes = ptr(remaining)
	used := purchased - remaining
	percent := float64(used) * 100 / float64(purchased)

	now := tx.Now()
	highest := 0
	for _, t := range usageThresholds {
		if percent < float64(t) || notified(sub.ThresholdsNotified, t) {
			continue
		}
		sub.ThresholdsNotified = append(sub.ThresholdsNotified, t)
		*announce = append(*announce, webhook.SubscriptionAllowanceThresholdBreachedEvent{
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
		*announce = append(*announce, ev)
	}
	return tx.UpdateSubscription(sub)
}

func notified(done []int, t int) bool {
	for _, d := range done {
		if d == t {
			return true
		}
	}
	return false
}

func moveEsim(tx *state.Tx, announce *[]any, iccid, country string) error {
	country = strings.ToUpper(country)
	if !countryCode.MatchString(country) {
		return badRequest("countryIso2 must be an ISO 3166 alpha-2 code such as DE")
	}
	e, ok := tx.Esim(iccid)
	if !ok {
		return notFound("eSIM", iccid)
	}
	if e.CountryISO2 != nil && *e.CountryISO2 == country {
		return nil // no change detected, no event
	}
	e.CountryISO2 = ptr(country)
	if err := tx.UpdateEsim(e); err != nil {
		return err
	}
	ev := webhook.SubscriptionV2EsimLocationChangedEvent{Header: header(webhook.TypeSubscriptionV2EsimLocationChanged, tx.Now())}
	ev.Data.Esim = iccid
	ev.Data.CountryISO2 = country
	*announce = append(*announce, ev)
	return nil
}

func setSmdpState(tx *state.Tx, announce *[]any, iccid, smdpState string) error {
	if !smdpStateWord.MatchString(smdpState) {
		return badRequest("state must be an uppercase word such as RELEASED")
	}
	e, ok := tx.Esim(iccid)
	if !ok {
		return notFound("eSIM", iccid)
	}
	if e.SmdpState == smdpState {
		return nil // no change, no event
	}
	e.SmdpState = smdpState
	if err := tx.UpdateEsim(e); err != nil {
		return err
	}
	*announce = append(*announce, smdpEvent(iccid, smdpState, tx.Now()))
	return nil
}

func header(typ string, now int64) webhook.Header {
	return webhook.Header{Type: typ, Timestamp: now}
}

func smdpEvent(iccid, smdpState string, now int64) webhook.EsimSmdpStateChangedEvent {
	ev := webhook.EsimSmdpStateChangedEvent{Header: header(webhook.TypeEsimSmdpStateChanged, now)}
	ev.Data.Esim = iccid
	ev.Data.SmdpStateChange.State = smdpState
	ev.Data.SmdpStateChange.ModifiedAt = now
	ev.Data.SmdpStateChange.ModificationResult = "SUCCESS"
	return ev
}

// advanceClock moves the emulator's clock forward; subscriptions whose
// expireAt has passed read as expired from then on.
func advanceClock(tx *state.Tx, seconds int64) (int64, error) {
	err := tx.AdvanceClock(seconds)
	if errors.Is(err, state.ErrClockBound) {
		return 0, badRequest(err.Error())
	}
	if err != nil {
		return 0, err
	}
	return tx.Now(), nil
}
