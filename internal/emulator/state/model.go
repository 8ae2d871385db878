// Package state holds everything the emulated service knows (plans, the
// eSIM inventory, subscriptions, the emulator's clock) and, with a -state
// file, keeps it in a bbolt database.
//
// The only way to change it is a transaction: Store.Update runs a function
// with a *Tx, whose methods are the only mutations there are. Each method
// changes memory, records the write for the database and registers how to
// undo itself in one place, so the change is either stored and kept, or
// refused or not storable and taken back whole. Reads go through
// Store.View, or the *Tx of an Update; both hand out copies.
package state

// The records the state holds. Plan and Esim are also the service's wire
// shapes; Subscription is the stored form, from which the emulator derives
// the wire form on every read.

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

// Dataset is what the emulator starts with: the account's plans and eSIM
// inventory. It is also the format of the -data file.
type Dataset struct {
	Plans []Plan `json:"plans"`
	Esims []Esim `json:"esims"`
}

func ptr[T any](v T) *T { return &v }
