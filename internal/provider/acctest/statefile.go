package acctest

import (
	"encoding/json"
	"fmt"
	"testing"
)

// StateFileInstance is one resource instance as a state file (format
// version 4, which Terraform and OpenTofu both write) holds it.
type StateFileInstance struct {
	IndexKey      any            `json:"index_key"`
	SchemaVersion int64          `json:"schema_version"`
	Attributes    map[string]any `json:"attributes"`
	Identity      map[string]any `json:"identity"`
}

// StateFileInstances are the instances of the managed resources of type typ
// in a state file, by address: mobileplan_subscription.sim,
// mobileplan_subscription.fleet[3], mobileplan_subscription.by_name["a"].
func StateFileInstances(tb testing.TB, state, typ string) map[string]StateFileInstance {
	tb.Helper()
	var doc struct {
		Resources []struct {
			Mode      string              `json:"mode"`
			Type      string              `json:"type"`
			Name      string              `json:"name"`
			Instances []StateFileInstance `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(state), &doc); err != nil {
		tb.Fatalf("state file: %v", err)
	}
	out := map[string]StateFileInstance{}
	for _, r := range doc.Resources {
		if r.Mode != "managed" || r.Type != typ {
			continue
		}
		for _, inst := range r.Instances {
			addr := r.Type + "." + r.Name
			switch key := inst.IndexKey.(type) {
			case nil:
			case string:
				addr += fmt.Sprintf("[%q]", key)
			default: // a count index, a JSON number
				addr += fmt.Sprintf("[%v]", key)
			}
			out[addr] = inst
		}
	}
	return out
}
