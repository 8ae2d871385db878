package emulator

import (
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
	"github.com/mobileplan/terraform-provider-mobileplan/webhook"
)

// eventPlanOf is data.plan of the attachment events: the plan's fields
// without the deprecated name.
func eventPlanOf(p state.PlanForAttachment) *webhook.Plan {
	return &webhook.Plan{
		DataMegaBytes:      ptr(p.DataMegaBytes),
		PeriodDays:         ptr(p.PeriodDays),
		PeriodIterations:   ptr(p.PeriodIterations),
		ThrottledSpeedKbps: ptr(p.ThrottledSpeedKbps),
		CoverageProfileID:  p.CoverageProfileID,
		Label:              p.Label,
	}
}
