package state

import (
	"maps"
	"slices"
)

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

// Allowance is section 2.3; every field may be null.
type Allowance struct {
	DataBytes    *int64 `json:"dataBytes"`
	VoiceSeconds *int64 `json:"voiceSeconds"`
	SmsMessages  *int64 `json:"smsMessages"`
}

// clone is a copy of s that shares nothing with it.
func (s Subscription) clone() Subscription {
	s.Plan.Label = clonePtr(s.Plan.Label)
	s.Plan.CoverageProfileID = clonePtr(s.Plan.CoverageProfileID)
	s.ActivatedAt = clonePtr(s.ActivatedAt)
	s.ExpireAt = clonePtr(s.ExpireAt)
	s.Purchased = s.Purchased.clone()
	s.Remaining = s.Remaining.clone()
	s.Metadata = maps.Clone(s.Metadata)
	s.ThresholdsNotified = slices.Clone(s.ThresholdsNotified)
	return s
}

func (a Allowance) clone() Allowance {
	a.DataBytes = clonePtr(a.DataBytes)
	a.VoiceSeconds = clonePtr(a.VoiceSeconds)
	a.SmsMessages = clonePtr(a.SmsMessages)
	return a
}
