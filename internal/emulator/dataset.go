package emulator

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// Sizes of the built-in data set when the command line does not choose.
const (
	DefaultPlans = 32
	DefaultEsims = 120
)

// datasetEpoch is 2026-01-01T00:00:00Z: the built-in data set is the same on
// every start so that examples and tests can name its plans.
const datasetEpoch = 1767225600

// Labels used by the built-in data set. A plan with a label can only be
// served by an eSIM with the same label.
var datasetLabels = []string{"global", "europe", "americas", "asia"}

var coverageForLabel = map[string]string{
	"global":   "cov-global",
	"europe":   "cov-eu",
	"americas": "cov-am",
	"asia":     "cov-apac",
}

// DefaultDataset builds a deterministic data set of the given size. Plan ids
// are plan_001, plan_002, ...; among them are archived plans (every 10th),
// addon plans (every 7th) and plans without a label (every 5th).
func DefaultDataset(plans, esims int) state.Dataset {
	ds := state.Dataset{Plans: make([]state.Plan, 0, plans), Esims: make([]state.Esim, 0, esims)}
	dataChoices := []int64{1024, 3072, 5120, 10240, 20480}
	dayChoices := []int64{7, 15, 30, 30, 90}
	// The properties in a name repeat every 20 plans; a name already taken
	// gets "#2", "#3", ... so that a name picks one plan.
	nameUses := map[string]int{}
	for i := 0; i < plans; i++ {
		n := i + 1
		p := state.Plan{
			ID:                 fmt.Sprintf("plan_%03d", n),
			DataMegaBytes:      dataChoices[i%len(dataChoices)],
			PeriodDays:         dayChoices[(i/2)%len(dayChoices)],
			PeriodIterations:   1,
			ThrottledSpeedKbps: 0,
			Archived:           n%10 == 9,
			Addon:              n%7 == 6,
			CreatedAt:          datasetEpoch + int64(i)*3600,
		}
		if n%6 == 0 {
			p.PeriodIterations = 3
		}
		if n%4 == 3 {
			p.ThrottledSpeedKbps = 512
		}
		region := "any"
		if n%5 != 4 {
			label := datasetLabels[i%len(datasetLabels)]
			p.Label = ptr(label)
			p.CoverageProfileID = ptr(coverageForLabel[label])
			region = label
		}
		p.Name = fmt.Sprintf("%s %d GB / %d days", region, p.DataMegaBytes/1024, p.PeriodDays)
		switch {
		case p.Addon:
			p.Name += " (addon)"
		case p.Archived:
			p.Name += " (archived)"
		}
		nameUses[p.Name]++
		if uses := nameUses[p.Name]; uses > 1 {
			p.Name += fmt.Sprintf(" #%d", uses)
		}
		ds.Plans = append(ds.Plans, p)
	}
	for i := 0; i < esims; i++ {
		e := state.Esim{
			ICCID:     state.ICCID(uint64(i + 1)),
			SmdpState: "AVAILABLE",
			CreatedAt: datasetEpoch + int64(i)*60,
		}
		if (i+1)%10 != 0 {
			e.Label = ptr(datasetLabels[i%len(datasetLabels)])
		}
		ds.Esims = append(ds.Esims, e)
	}
	return ds
}

// LoadDataset reads a -data file and checks it is usable.
func LoadDataset(path string) (state.Dataset, error) {
	var ds state.Dataset
	raw, err := os.ReadFile(path)
	if err != nil {
		return ds, err
	}
	if err := json.Unmarshal(raw, &ds); err != nil {
		return ds, fmt.Errorf("%s: %w", path, err)
	}
	return ds, ds.Validate()
}
