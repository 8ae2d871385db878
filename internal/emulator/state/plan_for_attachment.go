package state

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
