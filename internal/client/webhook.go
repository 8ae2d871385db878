package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// SignatureHeader is the header of a webhook call that carries its
// signature: the hex HMAC-SHA256 of the exact body under the signing secret.
const SignatureHeader = "service-signature"

// Signature verification failures.
var (
	ErrMissingSignature = errors.New("webhook: the service-signature header is missing")
	ErrBadSignature     = errors.New("webhook: the service-signature does not match the body and signing secret; the call is not authentic")
)

// VerifySignature checks a webhook call's signature header against the exact
// body bytes, in constant time. Verify before parsing: the body of an
// unauthenticated call is not to be trusted.
func VerifySignature(secret string, body []byte, header string) error {
	header = strings.TrimSpace(header)
	if header == "" {
		return ErrMissingSignature
	}
	got, err := hex.DecodeString(header)
	if err != nil {
		return ErrBadSignature
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) { // constant time; false for a truncated header too
		return ErrBadSignature
	}
	return nil
}

// Event types (interface document, section 6).
const (
	EventSubscriptionActivated         = "subscription.activated"
	EventSubscriptionThresholdBreached = "subscription.allowance.thresholdBreached"
	EventAttachmentActivated           = "attachment.activated"
	EventAttachmentAllowanceConsumed   = "attachment.allowanceConsumed"
	EventSubscriptionV2LocationChanged = "subscriptionV2.esim.locationChanged"
	EventEsimSmdpStateChanged          = "esim.smdp.stateChanged"
)

// Event is one webhook event; its concrete type is one of the *Event types
// below.
type Event interface {
	EventType() string
	EventTimestamp() int64
}

// EventHeader holds the fields every event has.
type EventHeader struct {
	Type      string `json:"type"`
	Timestamp int64  `json:"timestamp"`
}

func (h EventHeader) EventType() string     { return h.Type }
func (h EventHeader) EventTimestamp() int64 { return h.Timestamp }

// SubscriptionActivatedEvent is subscription.activated (V1, flat). EsimICCID
// is declared required but the service's samples omit it, so it may be empty.
type SubscriptionActivatedEvent struct {
	EventHeader
	SubscriptionID string `json:"subscriptionId"`
	EsimICCID      string `json:"esimIccid"`
}

// ThresholdBreachedEvent is subscription.allowance.thresholdBreached (V1).
// EsimICCID may be empty, as in the service's samples.
type ThresholdBreachedEvent struct {
	EventHeader
	SubscriptionID  string `json:"subscriptionId"`
	BreachedService string `json:"breachedService"` // data, voice or sms
	Threshold       int    `json:"threshold"`       // percent
	EsimICCID       string `json:"esimIccid"`
}

// EventPlan is data.plan of the attachment events.
type EventPlan struct {
	DataMegaBytes      *int64  `json:"dataMegaBytes"`
	PeriodDays         *int64  `json:"periodDays"`
	PeriodIterations   *int64  `json:"periodIterations"`
	ThrottledSpeedKbps *int64  `json:"throttledSpeedKbps"`
	CoverageProfileID  *string `json:"coverageProfileId"`
	Label              *string `json:"label"`
}

// AttachmentActivatedEvent is attachment.activated (V2). The service's
// samples carry data.planId instead of data.plan, so either may be set.
type AttachmentActivatedEvent struct {
	EventHeader
	Data struct {
		Esim         string     `json:"esim"`
		Plan         *EventPlan `json:"plan"`
		PlanID       string     `json:"planId"`
		AttachmentID string     `json:"attachmentId"`
	} `json:"data"`
}

// AllowanceConsumedEvent is attachment.allowanceConsumed (V2), sent at 50,
// 80 and 100 percent of data use; 50 or 80 may be skipped under heavy use.
type AllowanceConsumedEvent struct {
	EventHeader
	Data struct {
		UsagePercentage float64    `json:"usagePercentage"`
		DataUsageBytes  float64    `json:"dataUsageBytes"`
		Esim            string     `json:"esim"`
		Plan            *EventPlan `json:"plan"`
		PlanID          string     `json:"planId"`
		AttachmentID    string     `json:"attachmentId"`
	} `json:"data"`
}

// LocationChangedEvent is subscriptionV2.esim.locationChanged.
type LocationChangedEvent struct {
	EventHeader
	Data struct {
		Esim        string `json:"esim"`
		CountryISO2 string `json:"countryIso2"`
	} `json:"data"`
}

// SmdpStateChangedEvent is esim.smdp.stateChanged.
type SmdpStateChangedEvent struct {
	EventHeader
	Data struct {
		Esim            string `json:"esim"`
		SmdpStateChange struct {
			State              string `json:"state"`
			ModifiedAt         int64  `json:"modifiedAt"`
			ModificationResult string `json:"modificationResult"`
		} `json:"smdpStateChange"`
	} `json:"data"`
}

// ParseEvent decodes a webhook body into its typed event. Unknown fields are
// ignored; a missing required field is an error naming it, except the
// deviations the interface document itself shows in its samples. An unknown
// type is an error that names the type.
func ParseEvent(body []byte) (Event, error) {
	var head EventHeader
	if err := json.Unmarshal(body, &head); err != nil {
		return nil, fmt.Errorf("webhook: the body is not a JSON event: %w", err)
	}
	var (
		ev      Event
		missing []string
	)
	need := func(name string, ok bool) {
		if !ok {
			missing = append(missing, name)
		}
	}
	switch head.Type {
	case EventSubscriptionActivated:
		e := &SubscriptionActivatedEvent{}
		if err := unmarshalEvent(body, head.Type, e); err != nil {
			return nil, err
		}
		need("subscriptionId", e.SubscriptionID != "")
		ev = e
	case EventSubscriptionThresholdBreached:
		e := &ThresholdBreachedEvent{}
		if err := unmarshalEvent(body, head.Type, e); err != nil {
			return nil, err
		}
		need("subscriptionId", e.SubscriptionID != "")
		need("breachedService", e.BreachedService != "")
		ev = e
	case EventAttachmentActivated:
		e := &AttachmentActivatedEvent{}
		if err := unmarshalEvent(body, head.Type, e); err != nil {
			return nil, err
		}
		need("data.esim", e.Data.Esim != "")
		need("data.plan", e.Data.Plan != nil || e.Data.PlanID != "")
		need("data.attachmentId", e.Data.AttachmentID != "")
		ev = e
	case EventAttachmentAllowanceConsumed:
		e := &AllowanceConsumedEvent{}
		if err := unmarshalEvent(body, head.Type, e); err != nil {
			return nil, err
		}
		need("data.esim", e.Data.Esim != "")
		need("data.attachmentId", e.Data.AttachmentID != "")
		ev = e
	case EventSubscriptionV2LocationChanged:
		e := &LocationChangedEvent{}
		if err := unmarshalEvent(body, head.Type, e); err != nil {
			return nil, err
		}
		need("data.esim", e.Data.Esim != "")
		need("data.countryIso2", e.Data.CountryISO2 != "")
		ev = e
	case EventEsimSmdpStateChanged:
		e := &SmdpStateChangedEvent{}
		if err := unmarshalEvent(body, head.Type, e); err != nil {
			return nil, err
		}
		need("data.esim", e.Data.Esim != "")
		need("data.smdpStateChange.state", e.Data.SmdpStateChange.State != "")
		ev = e
	case "":
		return nil, errors.New("webhook: the event has no type")
	default:
		return nil, fmt.Errorf("webhook: unknown event type %q", head.Type)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("webhook: %s event lacks required field(s) %s", head.Type, strings.Join(missing, ", "))
	}
	return ev, nil
}

func unmarshalEvent(body []byte, typ string, dst Event) error {
	if err := json.Unmarshal(body, dst); err != nil {
		return fmt.Errorf("webhook: cannot read %s event: %w", typ, err)
	}
	return nil
}
