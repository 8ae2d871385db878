package state

import (
	"fmt"
	"strconv"
)

// Bounds that keep dataBytes and expireAt from overflowing int64; the API
// refuses inline plans beyond them too.
const (
	MaxDataMegaBytes = 1 << 40
	MaxPeriodDays    = 100 * 366
)

// BytesPerMegabyte converts a plan's dataMegaBytes into the allowance's
// dataBytes. The interface does not say; decimal megabytes are assumed.
const BytesPerMegabyte = 1_000_000

// CustomPlanPrefix starts the id of every inline plan.
const CustomPlanPrefix = "plan_custom_"

// MaxClockOffsetSeconds bounds how far the emulator's clock may run ahead of
// the wall clock: 200 years, twice the longest plan period, far from where
// Unix seconds overflow.
const MaxClockOffsetSeconds = 200 * 366 * 86400

// Dataset is what the emulator starts with: the account's plans and eSIM
// inventory. It is also the format of the -data file.
type Dataset struct {
	Plans []Plan `json:"plans"`
	Esims []Esim `json:"esims"`
}

// ICCID makes a 19-digit ICCID (issuer prefix 8988247, serial, Luhn check
// digit) for serial number n.
func ICCID(n uint64) string {
	body := fmt.Sprintf("8988247%011d", n%100_000_000_000)
	return body + strconv.Itoa(luhnCheckDigit(body))
}

func luhnCheckDigit(digits string) int {
	sum := 0
	double := true // the check digit will be appended to the right
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return (10 - sum%10) % 10
}

// ValidICCID reports whether s has 19 or 20 digits and a valid Luhn check digit.
func ValidICCID(s string) bool {
	if len(s) != 19 && len(s) != 20 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return luhnCheckDigit(s[:len(s)-1]) == int(s[len(s)-1]-'0')
}

// Validate rejects data the service could never hold: duplicate ids, bad
// ICCIDs, plans without data or period.
func (ds Dataset) Validate() error {
	seen := make(map[string]bool, len(ds.Plans))
	for i, p := range ds.Plans {
		switch {
		case p.ID == "":
			return fmt.Errorf("plans[%d]: id is empty", i)
		case seen[p.ID]:
			return fmt.Errorf("plans[%d]: duplicate id %q", i, p.ID)
		case p.DataMegaBytes <= 0 || p.PeriodDays <= 0:
			return fmt.Errorf("plans[%d] (%s): dataMegaBytes and periodDays must be positive", i, p.ID)
		case p.DataMegaBytes > MaxDataMegaBytes || p.PeriodDays > MaxPeriodDays || p.PeriodIterations < 0 || p.PeriodIterations > MaxPeriodDays ||
			p.PeriodDays*max(p.PeriodIterations, 1) > MaxPeriodDays:
			return fmt.Errorf("plans[%d] (%s): dataMegaBytes at most %d, periodDays x periodIterations at most %d days", i, p.ID, int64(MaxDataMegaBytes), MaxPeriodDays)
		}
		seen[p.ID] = true
	}
	seen = make(map[string]bool, len(ds.Esims)) // sized: restoring a large state validates 200,000 of them
	for i, e := range ds.Esims {
		switch {
		case !ValidICCID(e.ICCID):
			return fmt.Errorf("esims[%d]: %q is not a valid ICCID (19 or 20 digits, Luhn check digit last)", i, e.ICCID)
		case seen[e.ICCID]:
			return fmt.Errorf("esims[%d]: duplicate iccid %q", i, e.ICCID)
		}
		seen[e.ICCID] = true
	}
	return nil
}

func (ds Dataset) normalized() Dataset {
	out := Dataset{Plans: append([]Plan(nil), ds.Plans...), Esims: append([]Esim(nil), ds.Esims...)}
	for i := range out.Plans {
		if out.Plans[i].PeriodIterations == 0 {
			out.Plans[i].PeriodIterations = 1
		}
	}
	for i := range out.Esims {
		if out.Esims[i].SmdpState == "" {
			out.Esims[i].SmdpState = "AVAILABLE"
		}
		out.Esims[i].SubscriptionID = nil
	}
	return out
}
