// Package webhook holds the service's webhook events (interface document,
// section 6), named after the events, and their signature: what the emulator
// sends and what a receiver verifies and parses, in one place. It is public
// so that a team's own receiver imports it: Handler verifies, parses and
// hands each event to the team's code.
package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Event types, as the interface document names them.
const (
	TypeSubscriptionActivated                  = "subscription.activated"
	TypeSubscriptionAllowanceThresholdBreached = "subscription.allowance.thresholdBreached"
	TypeAttachmentActivated                    = "attachment.activated"
	TypeAttachmentAllowanceConsumed            = "attachment.allowanceConsumed"
	TypeSubscriptionV2EsimLocationChanged      = "subscriptionV2.esim.locationChanged"
	TypeEsimSmdpStateChanged                   = "esim.smdp.stateChanged"
)

// Event is one webhook event; its concrete type is one of the *Event types
// below. V1 events are flat; V2 and eSIM events carry their fields under
// "data".
type Event interface {
	EventType() string
	EventTimestamp() int64
	// missing names the required fields the event lacks.
	missing() []string
}

// Header holds the fields every event has.
type Header struct {
	Type      string `json:"type"`
	Timestamp int64  `json:"timestamp"` // Unix seconds
}

func (h Header) EventType() string     { return h.Type }
func (h Header) EventTimestamp() int64 { return h.Timestamp }

// SubscriptionActivatedEvent is subscription.activated. EsimICCID is
// declared required but the service's samples omit it, so it may be empty.
type SubscriptionActivatedEvent struct {
	Header
	SubscriptionID string `json:"subscriptionId"`
	EsimICCID      string `json:"esimIccid"`
}

// SubscriptionAllowanceThresholdBreachedEvent is
// subscription.allowance.thresholdBreached. EsimICCID may be empty, as in
// the service's samples.
type SubscriptionAllowanceThresholdBreachedEvent struct {
	Header
	SubscriptionID  string `json:"subscriptionId"`
	BreachedService string `json:"breachedService"` // data, voice or sms
	Threshold       int    `json:"threshold"`       // percent
	EsimICCID       string `json:"esimIccid"`
}

// Plan is data.plan of the attachment events: the PlanForAttachment fields
// without the deprecated name.
type Plan struct {
	DataMegaBytes      *int64  `json:"dataMegaBytes"`
	PeriodDays         *int64  `json:"periodDays"`
	PeriodIterations   *int64  `json:"periodIterations"`
	ThrottledSpeedKbps *int64  `json:"throttledSpeedKbps"`
	CoverageProfileID  *string `json:"coverageProfileId"`
	Label              *string `json:"label"`
}

// AttachmentActivatedEvent is attachment.activated. The service's samples
// carry data.planId instead of data.plan, so either may be set.
type AttachmentActivatedEvent struct {
	Header
	Data struct {
		Esim         string `json:"esim"`
		Plan         *Plan  `json:"plan,omitempty"`
		PlanID       string `json:"planId,omitempty"`
		AttachmentID string `json:"attachmentId"`
	} `json:"data"`
}

// AttachmentAllowanceConsumedEvent is attachment.allowanceConsumed, sent at
// 50, 80 and 100 percent of data use; 50 or 80 may be skipped under heavy
// use.
type AttachmentAllowanceConsumedEvent struct {
	Header
	Data struct {
		UsagePercentage float64 `json:"usagePercentage"`
		DataUsageBytes  float64 `json:"dataUsageBytes"`
		Esim            string  `json:"esim"`
		Plan            *Plan   `json:"plan,omitempty"`
		PlanID          string  `json:"planId,omitempty"`
		AttachmentID    string  `json:"attachmentId"`
	} `json:"data"`
}

// SubscriptionV2EsimLocationChangedEvent is
// subscriptionV2.esim.locationChanged.
type SubscriptionV2EsimLocationChangedEvent struct {
	Header
	Data struct {
		Esim        string `json:"esim"`
		CountryISO2 string `json:"countryIso2"`
	} `json:"data"`
}

// EsimSmdpStateChangedEvent is esim.smdp.stateChanged.
type EsimSmdpStateChangedEvent struct {
	Header
	Data struct {
		Esim            string `json:"esim"`
		SmdpStateChange struct {
			State              string `json:"state"`
			ModifiedAt         int64  `json:"modifiedAt"`
			ModificationResult string `json:"modificationResult"`
		} `json:"smdpStateChange"`
	} `json:"data"`
}

// Parse decodes a webhook body into its typed event. Unknown fields are
// ignored; a missing required field is an error naming it, except the
// deviations the interface document itself shows in its samples. An unknown
// type is an error that names the type.
func Parse(body []byte) (Event, error) {
	var head Header
	if err := json.Unmarshal(body, &head); err != nil {
		return nil, fmt.Errorf("webhook: the body is not a JSON event: %w", err)
	}
	var ev Event
	switch head.Type {
	case TypeSubscriptionActivated:
		ev = &SubscriptionActivatedEvent{}
	case TypeSubscriptionAllowanceThresholdBreached:
		ev = &SubscriptionAllowanceThresholdBreachedEvent{}
	case TypeAttachmentActivated:
		ev = &AttachmentActivatedEvent{}
	case TypeAttachmentAllowanceConsumed:
		ev = &AttachmentAllowanceConsumedEvent{}
	case TypeSubscriptionV2EsimLocationChanged:
		ev = &SubscriptionV2EsimLocationChangedEvent{}
	case TypeEsimSmdpStateChanged:
		ev = &EsimSmdpStateChangedEvent{}
	case "":
		return nil, errors.New("webhook: the event has no type")
	default:
		return nil, fmt.Errorf("webhook: unknown event type %q", head.Type)
	}
	if err := json.Unmarshal(body, ev); err != nil {
		return nil, fmt.Errorf("webhook: cannot read %s event: %w", head.Type, err)
	}
	if missing := ev.missing(); len(missing) > 0 {
		return nil, fmt.Errorf("webhook: %s event lacks required field(s) %s", head.Type, strings.Join(missing, ", "))
	}
	return ev, nil
}

// required is one required field and whether the event has it.
type required struct {
	name    string
	present bool
}

func absent(fields ...required) []string {
	var out []string
	for _, f := range fields {
		if !f.present {
			out = append(out, f.name)
		}
	}
	return out
}

func (e *SubscriptionActivatedEvent) missing() []string {
	return absent(required{"subscriptionId", e.SubscriptionID != ""})
}

func (e *SubscriptionAllowanceThresholdBreachedEvent) missing() []string {
	return absent(required{"subscriptionId", e.SubscriptionID != ""}, required{"breachedService", e.BreachedService != ""})
}

func (e *AttachmentActivatedEvent) missing() []string {
	return absent(required{"data.esim", e.Data.Esim != ""}, required{"data.plan", e.Data.Plan != nil || e.Data.PlanID != ""},
		required{"data.attachmentId", e.Data.AttachmentID != ""})
}

func (e *AttachmentAllowanceConsumedEvent) missing() []string {
	return absent(required{"data.esim", e.Data.Esim != ""}, required{"data.attachmentId", e.Data.AttachmentID != ""})
}

func (e *SubscriptionV2EsimLocationChangedEvent) missing() []string {
	return absent(required{"data.esim", e.Data.Esim != ""}, required{"data.countryIso2", e.Data.CountryISO2 != ""})
}

func (e *EsimSmdpStateChangedEvent) missing() []string {
	return absent(required{"data.esim", e.Data.Esim != ""}, required{"data.smdpStateChange.state", e.Data.SmdpStateChange.State != ""})
}
