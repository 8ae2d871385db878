package emulator

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// FuzzDecodeCreateRequest: decodeCreateRequest never panics; an error is an
// invalidRequest Error body and comes with no input; success gives exactly
// one of PlanID and Inline, agreeing with the JSON, with values the service
// can hold (positive, and small enough that dataBytes and expireAt do not
// overflow).
func FuzzDecodeCreateRequest(f *testing.F) {
	for _, seed := range []string{
		`{"planId":"plan_001"}`,
		`{"plan":{"coverageId":"cov-eu","dataMBs":1024,"periodDays":30}}`,
		`{"planId":"p","plan":{"coverageId":"c","dataMBs":1,"periodDays":1}}`,
		`{"planId":null,"plan":{"coverageId":"c","dataMBs":1,"periodDays":1}}`,
		`{}`, `null`, `[]`, `""`, `{"planId":""}`, `{"planId":1}`,
		`{"plan":{"coverageId":"c","dataMBs":0,"periodDays":1}}`,
		`{"plan":{"coverageId":"c","dataMBs":1.5,"periodDays":1}}`,
		`{"plan":{"coverageId":"c","dataMBs":1e3,"periodDays":1}}`,
		`{"plan":{"coverageId":"","dataMBs":1,"periodDays":1}}`,
		`{"planId":"a","planId":"b"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		in, apiErr := decodeCreateRequest(raw)
		if apiErr != nil {
			if in.PlanID != "" || in.Inline != nil {
				t.Fatalf("error %q with input %+v", apiErr.Message, in)
			}
			if apiErr.Code != codeInvalidRequest || apiErr.Message == "" || apiErr.DocsURL == nil {
				t.Fatalf("error body %+v", apiErr)
			}
			return
		}
		if (in.PlanID != "") == (in.Inline != nil) {
			t.Fatalf("%q: PlanID %q and Inline %+v: want exactly one", raw, in.PlanID, in.Inline)
		}
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil || body == nil {
			t.Fatalf("accepted %q, which is not a JSON object: %v", raw, err)
		}
		if in.PlanID != "" {
			if body["planId"] != in.PlanID || body["plan"] != nil {
				t.Fatalf("%q: PlanID %q disagrees with the body", raw, in.PlanID)
			}
			return
		}
		p := in.Inline
		plan, _ := body["plan"].(map[string]any)
		if body["planId"] != nil || plan == nil || plan["coverageId"] != p.CoverageID {
			t.Fatalf("%q: Inline %+v disagrees with the body", raw, p)
		}
		if p.CoverageID == "" || p.DataMBs <= 0 || p.PeriodDays <= 0 {
			t.Fatalf("%q: accepted invalid inline plan %+v", raw, p)
		}
		if p.DataMBs > math.MaxInt64/state.BytesPerMegabyte {
			t.Fatalf("BUG: %q: accepted dataMBs %d, whose dataBytes overflow int64", raw, p.DataMBs)
		}
		if p.PeriodDays > (math.MaxInt64-1<<32)/86400 {
			t.Fatalf("BUG: %q: accepted periodDays %d, whose expireAt overflows int64", raw, p.PeriodDays)
		}
	})
}
