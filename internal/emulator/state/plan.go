package state

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
