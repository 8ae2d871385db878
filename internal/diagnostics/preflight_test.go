package diagnostics

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
)

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 101: "101st", 111: "111th", 112: "112th"} {
		if got := ordinal(n); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", n, got, want)
		}
	}
}

// Counts of one read in the singular ("1 free eSIMs" was reported by a user).
func TestPreflightCountsOfOne(t *testing.T) {
	for name, tc := range map[string]struct {
		text      string
		want, not string
	}{
		"label short":  {LabelShort("europe", 2, 1).Detail, "the account has 1 free eSIM with that label", "1 free eSIMs"},
		"total short":  {TotalShort(2, 1, 1).Detail, "the account has 1 free eSIM in all", "1 free eSIMs"},
		"may take":     {UnlabelledMayTakeLabelled("europe", 1, 1, 1, path.Root("plan_id")).Detail(), "creates 1 subscription on plans", "1 subscriptions"},
		"may take add": {UnlabelledMayTakeLabelled("europe", 1, 1, 1, path.Root("plan_id")).Detail(), "add 1 eSIM with label", "1 eSIMs"},
	} {
		if !strings.Contains(tc.text, tc.want) || strings.Contains(tc.text, tc.not) {
			t.Errorf("%s: want %q and not %q in:\n%s", name, tc.want, tc.not, tc.text)
		}
	}
}
