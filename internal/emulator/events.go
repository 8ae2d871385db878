package emulator

// Webhook event payloads, with exactly the fields of section 6 of the
// interface document. V1 events are flat; V2 and eSIM events carry their
// fields under "data".

// Event types (section 6).
const (
	EventSubscriptionActivated      = "subscription.activated"
	EventSubscriptionThresholdBreak = "subscription.allowance.thresholdBreached"
	EventAttachmentActivated        = "attachment.activated"
	EventAttachmentAllowanceUsed    = "attachment.allowanceConsumed"
	EventEsimLocationChanged        = "subscriptionV2.esim.locationChanged"
	EventEsimSmdpStateChanged       = "esim.smdp.stateChanged"
)

type subscriptionActivatedEvent struct {
	Type           string `json:"type"`
	SubscriptionID string `json:"subscriptionId"`
	EsimICCID      string `json:"esimIccid"`
	Timestamp      int64  `json:"timestamp"`
}

type thresholdBreachedEvent struct {
	Type            string `json:"type"`
	SubscriptionID  string `json:"subscriptionId"`
	BreachedService string `json:"breachedService"`
	Threshold       int    `json:"threshold"`
	EsimICCID       string `json:"esimIccid"`
	Timestamp       int64  `json:"timestamp"`
}

// eventPlan is data.plan of the attachment events: the PlanForAttachment
// fields without the deprecated name.
type eventPlan struct {
	DataMegaBytes      int64   `json:"dataMegaBytes"`
	PeriodDays         int64   `json:"periodDays"`
	PeriodIterations   int64   `json:"periodIterations"`
	ThrottledSpeedKbps int64   `json:"throttledSpeedKbps"`
	CoverageProfileID  *string `json:"coverageProfileId"`
	Label              *string `json:"label"`
}

func eventPlanOf(p PlanForAttachment) *eventPlan {
	return &eventPlan{
		DataMegaBytes:      p.DataMegaBytes,
		PeriodDays:         p.PeriodDays,
		PeriodIterations:   p.PeriodIterations,
		ThrottledSpeedKbps: p.ThrottledSpeedKbps,
		CoverageProfileID:  p.CoverageProfileID,
		Label:              p.Label,
	}
}

type attachmentActivatedEvent struct {
	Type      string `json:"type"`
	Timestamp int64  `json:"timestamp"`
	Data      struct {
		Esim         string     `json:"esim"`
		Plan         *eventPlan `json:"plan"`
		AttachmentID string     `json:"attachmentId"`
	} `json:"data"`
}

type allowanceConsumedEvent struct {
	Type      string `json:"type"`
	Timestamp int64  `json:"timestamp"`
	Data      struct {
		UsagePercentage float64    `json:"usagePercentage"`
		DataUsageBytes  float64    `json:"dataUsageBytes"`
		Esim            string     `json:"esim"`
		Plan            *eventPlan `json:"plan,omitempty"`
		AttachmentID    string     `json:"attachmentId"`
	} `json:"data"`
}

type locationChangedEvent struct {
	Type      string `json:"type"`
	Timestamp int64  `json:"timestamp"`
	Data      struct {
		Esim        string `json:"esim"`
		CountryISO2 string `json:"countryIso2"`
	} `json:"data"`
}

type smdpStateChangedEvent struct {
	Type      string `json:"type"`
	Timestamp int64  `json:"timestamp"`
	Data      struct {
		Esim            string `json:"esim"`
		SmdpStateChange struct {
			State              string `json:"state"`
			ModifiedAt         int64  `json:"modifiedAt"`
			ModificationResult string `json:"modificationResult"`
		} `json:"smdpStateChange"`
	} `json:"data"`
}
