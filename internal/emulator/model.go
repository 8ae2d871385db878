package emulator

import "github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"

// Wire shapes of the service, spelled exactly as the interface document and
// the contract spell them. The emulator keeps its own copies rather than
// importing the client's types so that a wire-name mistake on one side is
// caught by the other side's tests instead of being shared silently.

// Subscription is the wire form of section 2.1.
type Subscription struct {
	ID                 string                  `json:"id"`
	EsimICCID          string                  `json:"esimIccid"`
	PlanID             string                  `json:"planId"`
	Plan               state.PlanForAttachment `json:"plan"`
	CreatedAt          int64                   `json:"createdAt"`
	ActivatedAt        *int64                  `json:"activatedAt"`
	ExpireAt           *int64                  `json:"expireAt"`
	PurchasedAllowance state.Allowance         `json:"purchasedAllowance"`
	RemainingAllownace state.Allowance         `json:"remainingAllownace"`
	State              string                  `json:"state"`
	Metadata           map[string]string       `json:"metadata"`
}

// Subscription states (section 3).
const (
	StateReady   = "ready"
	StateActive  = "active"
	StateExpired = "expired"
)

// stateOf is the subscription's state at now: it is derived from the clock
// on every read, so that expiry needs no background job.
func stateOf(s *state.Subscription, now int64) string {
	switch {
	case s.ActivatedAt == nil:
		return StateReady
	case s.ExpireAt != nil && now >= *s.ExpireAt:
		return StateExpired
	default:
		return StateActive
	}
}

// wire is the subscription as the API shows it at now.
func wire(s *state.Subscription, now int64) Subscription {
	md := make(map[string]string, len(s.Metadata))
	for k, v := range s.Metadata {
		md[k] = v
	}
	return Subscription{
		ID:                 s.ID,
		EsimICCID:          s.EsimICCID,
		PlanID:             s.PlanID,
		Plan:               s.Plan,
		CreatedAt:          s.CreatedAt,
		ActivatedAt:        s.ActivatedAt,
		ExpireAt:           s.ExpireAt,
		PurchasedAllowance: s.Purchased,
		RemainingAllownace: s.Remaining,
		State:              stateOf(s, now),
		Metadata:           md,
	}
}

// ErrorBody is section 2.4, with the optional richer-shape details the
// contract asks clients to read.
type ErrorBody struct {
	Code    string        `json:"code"`
	Message string        `json:"message"`
	DocsURL *string       `json:"docsUrl"`
	Details []ErrorDetail `json:"details,omitempty"`
}

// ErrorDetail is one entry of the richer error shape's details list.
type ErrorDetail struct {
	Property   string `json:"property,omitempty"`
	Message    string `json:"message,omitempty"`
	Suggestion string `json:"suggestion,omitempty"`
}

type page[T any] struct {
	Items    []T     `json:"items"`
	NextPage *string `json:"nextPage"`
}

func ptr[T any](v T) *T { return &v }
