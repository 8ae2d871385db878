package state

import (
	"crypto/rand"
	"fmt"
	"maps"
	"slices"
)

func ptr[T any](v T) *T { return &v }

// clonePtr is a pointer to a copy of what p points to; nil for nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return b
}

// Plan is a plan record (contract: "Records the document leaves out").
type Plan struct {
	ID                 string  `json:"id"`
	Name               string  `json:"name"`
	DataMegaBytes      int64   `json:"dataMegaBytes"`
	PeriodDays         int64   `json:"periodDays"`
	PeriodIterations   int64   `json:"periodIterations"`
	ThrottledSpeedKbps int64   `json:"throttledSpeedKbps"`
	Label              *string `json:"label"`
	CoverageProfileID  *string `json:"coverageProfileId"`
	Archived           bool    `json:"archived"`
	Addon              bool    `json:"addon"`
	CreatedAt          int64   `json:"createdAt"`
}

// clone is a copy of p that shares nothing with it.
func (p Plan) clone() Plan {
	p.Label = clonePtr(p.Label)
	p.CoverageProfileID = clonePtr(p.CoverageProfileID)
	return p
}

// Esim is an eSIM record of the account's inventory.
type Esim struct {
	ICCID          string  `json:"iccid"`
	Label          *string `json:"label"`
	SmdpState      string  `json:"smdpState"`
	SubscriptionID *string `json:"subscriptionId"`
	CountryISO2    *string `json:"countryIso2"`
	CreatedAt      int64   `json:"createdAt"`
}

// clone is a copy of e that shares nothing with it.
func (e Esim) clone() Esim {
	e.Label = clonePtr(e.Label)
	e.SubscriptionID = clonePtr(e.SubscriptionID)
	e.CountryISO2 = clonePtr(e.CountryISO2)
	return e
}

// PlanForAttachment is the plan as embedded in a subscription (section 2.2).
type PlanForAttachment struct {
	Name               string  `json:"name"`
	DataMegaBytes      int64   `json:"dataMegaBytes"`
	PeriodDays         int64   `json:"periodDays"`
	PeriodIterations   int64   `json:"periodIterations"`
	ThrottledSpeedKbps int64   `json:"throttledSpeedKbps"`
	Label              *string `json:"label"`
	CoverageProfileID  *string `json:"coverageProfileId"`
}

func (p PlanForAttachment) clone() PlanForAttachment {
	p.Label = clonePtr(p.Label)
	p.CoverageProfileID = clonePtr(p.CoverageProfileID)
	return p
}

// Allowance is section 2.3; every field may be null.
type Allowance struct {
	DataBytes    *int64 `json:"dataBytes"`
	VoiceSeconds *int64 `json:"voiceSeconds"`
	SmsMessages  *int64 `json:"smsMessages"`
}

func (a Allowance) clone() Allowance {
	a.DataBytes = clonePtr(a.DataBytes)
	a.VoiceSeconds = clonePtr(a.VoiceSeconds)
	a.SmsMessages = clonePtr(a.SmsMessages)
	return a
}

// Subscription is the stored form of a subscription. Its state (ready,
// active, expired) is not stored: it follows from the clock on every read,
// so that expiry needs no background job.
type Subscription struct {
	Seq                int64             `json:"seq"`
	ID                 string            `json:"id"`
	AttachmentID       string            `json:"attachmentId"`
	EsimICCID          string            `json:"esimIccid"`
	PlanID             string            `json:"planId"`
	Plan               PlanForAttachment `json:"plan"`
	CreatedAt          int64             `json:"createdAt"`
	ActivatedAt        *int64            `json:"activatedAt"`
	ExpireAt           *int64            `json:"expireAt"`
	Purchased          Allowance         `json:"purchased"`
	Remaining          Allowance         `json:"remaining"`
	Metadata           map[string]string `json:"metadata"`
	ThresholdsNotified []int             `json:"thresholdsNotified,omitempty"`
}

// clone is a copy of s that shares nothing with it.
func (s Subscription) clone() Subscription {
	s.Plan = s.Plan.clone()
	s.ActivatedAt = clonePtr(s.ActivatedAt)
	s.ExpireAt = clonePtr(s.ExpireAt)
	s.Purchased = s.Purchased.clone()
	s.Remaining = s.Remaining.clone()
	s.Metadata = maps.Clone(s.Metadata)
	s.ThresholdsNotified = slices.Clone(s.ThresholdsNotified)
	return s
}

// subRef names a subscription in messages; it formats only when printed.
type subRef struct {
	i   int
	sub *Subscription
}

func (r subRef) String() string { return fmt.Sprintf("subscriptions[%d] (%s)", r.i, r.sub.ID) }
