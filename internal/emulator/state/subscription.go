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
