package state

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// fullStateJSON sets every field of every record, so that a field the
// record layout dropped or mangled shows up in TestRecordsRoundTrip.
func fullStateJSON() string {
	return `{"version":1,"cursorKey":"AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=","clockOffset":3600,"customPlans":2,
"plans":[{"id":"plan_a","name":"a","dataMegaBytes":10,"periodDays":1,"periodIterations":1,"throttledSpeedKbps":128,"label":"L","coverageProfileId":"cov","archived":true,"addon":true,"createdAt":7},
 {"id":"plan_custom_000002","name":"c é","dataMegaBytes":5,"periodDays":2,"periodIterations":3,"createdAt":-1}],
"esims":[{"iccid":"` + ICCID(1) + `","label":"L","smdpState":"INSTALLED","subscriptionId":"sub_a","countryIso2":"FR","createdAt":9},
 {"iccid":"` + ICCID(2) + `","smdpState":"AVAILABLE","subscriptionId":"sub_b"},
 {"iccid":"` + ICCID(3) + `","label":"","smdpState":"AVAILABLE","subscriptionId":null,"createdAt":1}],
"subscriptions":[
 {"seq":1,"id":"sub_a","attachmentId":"att_a","esimIccid":"` + ICCID(1) + `","planId":"plan_a",
  "plan":{"name":"a","dataMegaBytes":10,"periodDays":1,"periodIterations":1,"throttledSpeedKbps":128,"label":"L","coverageProfileId":"cov"},
  "createdAt":1,"activatedAt":2,"expireAt":86402,"purchased":{"dataBytes":10000000,"voiceSeconds":60,"smsMessages":0},
  "remaining":{"dataBytes":4000000,"voiceSeconds":0,"smsMessages":0},"metadata":{"k":"v","":"\u0000"},"thresholdsNotified":[50,80]},
 {"seq":2,"id":"sub_b","attachmentId":"att_b","esimIccid":"` + ICCID(2) + `","planId":"plan_custom_000002","plan":{"name":"c é","dataMegaBytes":5,"periodDays":2,"periodIterations":3},
  "createdAt":3,"purchased":{"dataBytes":5000000},"remaining":{"dataBytes":5000000},"metadata":{}}]}`
}

// A restart gives back exactly the records that were stored, every field
// included (nil and empty kept apart).
func TestRecordsRoundTrip(t *testing.T) {
	t.Parallel()
	var snap snapshot
	if err := json.Unmarshal([]byte(fullStateJSON()), &snap); err != nil {
		t.Fatal(err)
	}
	if err := snap.validate(); err != nil {
		t.Fatal(err)
	}
	before := &Store{now: time.Now}
	snap.loadInto(&before.content)

	db, err := bolt.Open(filepath.Join(t.TempDir(), "state"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := writeState(db, &before.content); err != nil {
		t.Fatal(err)
	}
	back, err := readState(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.validate(); err != nil {
		t.Fatal(err)
	}
	after := &Store{now: time.Now}
	back.loadInto(&after.content)

	for name, pair := range map[string][2]any{
		"plans":         {before.plans, after.plans},
		"esims":         {before.esims, after.esims},
		"subscriptions": {before.subs, after.subs},
		"cursorKey":     {before.cursorKey, after.cursorKey},
		"customPlans":   {before.custom, after.custom},
		"clockOffset":   {before.clockOffset, after.clockOffset},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			b, _ := json.Marshal(pair[0])
			a, _ := json.Marshal(pair[1])
			t.Errorf("%s differ after a restart:\nstored %s\nread   %s", name, b, a)
		}
	}
}

// Records are positional arrays, so a field added, removed, moved or
// retyped in a record struct changes the stored layout: stateFormat must
// change with it, so that files of the old layout are refused by name.
func TestRecordLayoutPinned(t *testing.T) {
	t.Parallel()
	const pinnedFormat = "mobileplan-emulator-state/3"
	const pinnedLayout = "" +
		"Plan{ID string; Name string; DataMegaBytes int64; PeriodDays int64; PeriodIterations int64; ThrottledSpeedKbps int64; Label *string; CoverageProfileID *string; Archived bool; Addon bool; CreatedAt int64}\n" +
		"Esim{ICCID string; Label *string; SmdpState string; SubscriptionID *string; CountryISO2 *string; CreatedAt int64}\n" +
		"Subscription{Seq int64; ID string; AttachmentID string; EsimICCID string; PlanID string; Plan PlanForAttachment{Name string; DataMegaBytes int64; PeriodDays int64; PeriodIterations int64; ThrottledSpeedKbps int64; Label *string; CoverageProfileID *string}; CreatedAt int64; ActivatedAt *int64; ExpireAt *int64; Purchased Allowance{DataBytes *int64; VoiceSeconds *int64; SmsMessages *int64}; Remaining Allowance{DataBytes *int64; VoiceSeconds *int64; SmsMessages *int64}; Metadata map[string]string; ThresholdsNotified []int}\n"
	var got strings.Builder
	for _, v := range []any{Plan{}, Esim{}, Subscription{}} {
		got.WriteString(layoutOf(reflect.TypeOf(v)) + "\n")
	}
	if got.String() != pinnedLayout || stateFormat != pinnedFormat {
		t.Errorf("the record layout or stateFormat changed; if the layout changed, give stateFormat a new version, then pin both here.\nlayout now:\n%sstateFormat now: %s", got.String(), stateFormat)
	}
}

func layoutOf(t reflect.Type) string {
	fields := make([]string, t.NumField())
	for i := range fields {
		f := t.Field(i)
		typ := f.Type.String()
		if f.Type.Kind() == reflect.Struct {
			typ = layoutOf(f.Type)
		}
		fields[i] = f.Name + " " + strings.TrimPrefix(typ, "state.")
	}
	return t.Name() + "{" + strings.Join(fields, "; ") + "}"
}

// A damaged record is an error, never a panic or a runaway allocation.
func FuzzStateRecord(f *testing.F) {
	var snap snapshot
	if err := json.Unmarshal([]byte(fullStateJSON()), &snap); err != nil {
		f.Fatal(err)
	}
	f.Add(encodeRecord(&snap.Plans[0]))
	f.Add(encodeRecord(&snap.Esims[0]))
	f.Add(encodeRecord(snap.Subscriptions[0]))
	f.Add([]byte{0xdd, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, raw []byte) {
		dec := newRecordDecoder()
		var p Plan
		var e Esim
		var sub Subscription
		_ = dec.decode(raw, &p)
		_ = dec.decode(raw, &e)
		_ = dec.decode(raw, &sub)
	})
}
