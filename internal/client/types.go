package client

// Records and requests of the service, with the wire names exactly as the
// interface document and the contract spell them (remainingAllownace
// included). Pointers keep null apart from zero; unknown fields are ignored
// by encoding/json, and missing optional fields decode as nil or zero.

// Subscription is a mobile-plan subscription (interface document 2.1).
type Subscription struct {
	ID                 string            `json:"id"`
	EsimICCID          string            `json:"esimIccid"`
	PlanID             string            `json:"planId"` // deprecated by the service in favour of Plan, still the only plan id it returns
	Plan               PlanForAttachment `json:"plan"`
	CreatedAt          int64             `json:"createdAt"`
	ActivatedAt        *int64            `json:"activatedAt"`
	ExpireAt           *int64            `json:"expireAt"`
	PurchasedAllowance Allowance         `json:"purchasedAllowance"`
	RemainingAllowance Allowance         `json:"remainingAllownace"` // sic: the service's spelling
	State              string            `json:"state"`
	Metadata           map[string]string `json:"metadata"`
}

// Subscription states.
const (
	StateReady   = "ready"
	StateActive  = "active"
	StateExpired = "expired"
)

// PlanForAttachment is the plan as embedded in a subscription (2.2). Every
// field is optional in the schema.
type PlanForAttachment struct {
	Name               *string `json:"name"` // deprecated by the service
	DataMegaBytes      *int64  `json:"dataMegaBytes"`
	PeriodDays         *int64  `json:"periodDays"`
	PeriodIterations   *int64  `json:"periodIterations"`   // service default 1
	ThrottledSpeedKbps *int64  `json:"throttledSpeedKbps"` // service default 0
	Label              *string `json:"label"`
	CoverageProfileID  *string `json:"coverageProfileId"`
}

// Allowance is 2.3; each field may be null.
type Allowance struct {
	DataBytes    *int64 `json:"dataBytes"`
	VoiceSeconds *int64 `json:"voiceSeconds"`
	SmsMessages  *int64 `json:"smsMessages"`
}

// CreateSubscriptionRequest is the body of POST /v1/subscriptions: exactly
// one of PlanID and Plan.
type CreateSubscriptionRequest struct {
	PlanID string      `json:"planId,omitempty"`
	Plan   *InlinePlan `json:"plan,omitempty"`
}

// InlinePlan describes a custom plan in a create request.
type InlinePlan struct {
	CoverageID string `json:"coverageId"`
	DataMBs    int64  `json:"dataMBs"`
	PeriodDays int64  `json:"periodDays"`
}

// Plan is a plan record (contract).
type Plan struct {
	ID                 string  `json:"id"`
	Name               string  `json:"name"`
	DataMegaBytes      int64   `json:"dataMegaBytes"`
	PeriodDays         int64   `json:"periodDays"`
	PeriodIterations   *int64  `json:"periodIterations"`   // service default 1
	ThrottledSpeedKbps *int64  `json:"throttledSpeedKbps"` // service default 0
	Label              *string `json:"label"`
	CoverageProfileID  *string `json:"coverageProfileId"`
	Archived           bool    `json:"archived"`
	Addon              bool    `json:"addon"`
	CreatedAt          int64   `json:"createdAt"`
}

// Subscribable reports whether a subscription can be created from the plan.
func (p Plan) Subscribable() bool { return !p.Archived && !p.Addon }

// Esim is an eSIM of the account's inventory (contract).
type Esim struct {
	ICCID          string  `json:"iccid"`
	Label          *string `json:"label"`
	SmdpState      string  `json:"smdpState"`
	SubscriptionID *string `json:"subscriptionId"`
	CountryISO2    *string `json:"countryIso2"`
	CreatedAt      int64   `json:"createdAt"`
}

// page is one answer of a list operation (8.1).
type page[T any] struct {
	Items    []T     `json:"items"`
	NextPage *string `json:"nextPage"`
}
