package emulator

// Wire shapes of the service, spelled exactly as the interface document and
// the contract spell them. The emulator keeps its own copies rather than
// importing the client's types so that a wire-name mistake on one side is
// caught by the other side's tests instead of being shared silently.

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

// Esim is an eSIM record of the account's inventory.
type Esim struct {
	ICCID          string  `json:"iccid"`
	Label          *string `json:"label"`
	SmdpState      string  `json:"smdpState"`
	SubscriptionID *string `json:"subscriptionId"`
	CountryISO2    *string `json:"countryIso2"`
	CreatedAt      int64   `json:"createdAt"`
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

// Subscription is the wire form of section 2.1.
type Subscription struct {
	ID                 string            `json:"id"`
	EsimICCID          string            `json:"esimIccid"`
	PlanID             string            `json:"planId"`
	Plan               PlanForAttachment `json:"plan"`
	CreatedAt          int64             `json:"createdAt"`
	ActivatedAt        *int64            `json:"activatedAt"`
	ExpireAt           *int64            `json:"expireAt"`
	PurchasedAllowance Allowance         `json:"purchasedAllowance"`
	RemainingAllownace Allowance         `json:"remainingAllownace"`
	State              string            `json:"state"`
	Metadata           map[string]string `json:"metadata"`
}

// Subscription states (section 3).
const (
	StateReady   = "ready"
	StateActive  = "active"
	StateExpired = "expired"
)

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

// Dataset is what the emulator starts with: the account's plans and eSIM
// inventory. It is also the format of the -data file.
type Dataset struct {
	Plans []Plan `json:"plans"`
	Esims []Esim `json:"esims"`
}

func ptr[T any](v T) *T { return &v }
