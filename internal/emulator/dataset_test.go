package emulator

import "testing"

// Plans are picked by name in the examples and in the emulator's listings,
// so no two plans of the built-in data set may share one, at any size.
func TestDefaultDataset_planNamesUnique(t *testing.T) {
	t.Parallel()
	for _, size := range []int{1, 22, DefaultPlans, 100, 1000} {
		seen := map[string]string{}
		for _, p := range DefaultDataset(size, 0).Plans {
			if other, dup := seen[p.Name]; dup {
				t.Errorf("%d plans: %s and %s are both named %q", size, other, p.ID, p.Name)
			}
			seen[p.Name] = p.ID
		}
	}
}

// The first plans keep their names, which the documentation and tests cite.
func TestDefaultDataset_firstNamesStable(t *testing.T) {
	t.Parallel()
	plans := DefaultDataset(DefaultPlans, 0).Plans
	for id, want := range map[int]string{0: "global 1 GB / 7 days", 1: "europe 3 GB / 7 days"} {
		if got := plans[id].Name; got != want {
			t.Errorf("%s is named %q, want %q", plans[id].ID, got, want)
		}
	}
}
