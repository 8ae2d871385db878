package emulator

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// Subscriptions and eSIMs are nearly all of a restored state, and the
// library decodes structs by reflection; these read their records field
// by field in the order the encoder writes them (declaration order), which
// halves the time a restart spends decoding. TestRecordsRoundTrip checks
// them against the encoder, TestRecordLayoutPinned catches a new field.

func (sub *subscription) DecodeMsgpack(d *msgpack.Decoder) error {
	r := fieldReader{d: d}
	r.array(13, "subscription")
	sub.Seq = r.int64()
	sub.ID = r.string()
	sub.AttachmentID = r.string()
	sub.EsimICCID = r.string()
	sub.PlanID = r.string()
	r.array(7, "plan")
	sub.Plan = PlanForAttachment{
		Name: r.string(), DataMegaBytes: r.int64(), PeriodDays: r.int64(), PeriodIterations: r.int64(),
		ThrottledSpeedKbps: r.int64(), Label: r.optString(), CoverageProfileID: r.optString(),
	}
	sub.CreatedAt = r.int64()
	sub.ActivatedAt = r.optInt64()
	sub.ExpireAt = r.optInt64()
	sub.Purchased = r.allowance()
	sub.Remaining = r.allowance()
	sub.Metadata = r.stringMap()
	sub.ThresholdsNotified = r.ints()
	return r.err
}

func (e *Esim) DecodeMsgpack(d *msgpack.Decoder) error {
	r := fieldReader{d: d}
	r.array(6, "esim")
	*e = Esim{ICCID: r.string(), Label: r.optString(), SmdpState: r.string(), SubscriptionID: r.optString(), CountryISO2: r.optString(), CreatedAt: r.int64()}
	return r.err
}

// fieldReader keeps the first error, after which every read is a no-op.
type fieldReader struct {
	d   *msgpack.Decoder
	err error
}

func (r *fieldReader) array(fields int, what string) {
	if r.err != nil {
		return
	}
	n, err := r.d.DecodeArrayLen()
	switch {
	case err != nil:
		r.err = err
	case n != fields:
		r.err = fmt.Errorf("%s record has %d fields, want %d", what, n, fields)
	}
}

func (r *fieldReader) isNil() bool {
	if r.err != nil {
		return true
	}
	c, err := r.d.PeekCode()
	if err != nil {
		r.err = err
		return true
	}
	if c == msgpackNil {
		r.err = r.d.DecodeNil()
		return true
	}
	return false
}

const msgpackNil = 0xc0

func (r *fieldReader) string() string {
	if r.err != nil {
		return ""
	}
	s, err := r.d.DecodeString()
	r.err = err
	return s
}

func (r *fieldReader) int64() int64 {
	if r.err != nil {
		return 0
	}
	n, err := r.d.DecodeInt64()
	r.err = err
	return n
}

func (r *fieldReader) optString() *string {
	if r.isNil() {
		return nil
	}
	s := r.string()
	return &s
}

func (r *fieldReader) optInt64() *int64 {
	if r.isNil() {
		return nil
	}
	n := r.int64()
	return &n
}

func (r *fieldReader) allowance() Allowance {
	r.array(3, "allowance")
	return Allowance{DataBytes: r.optInt64(), VoiceSeconds: r.optInt64(), SmsMessages: r.optInt64()}
}

func (r *fieldReader) stringMap() map[string]string {
	if r.isNil() {
		return nil
	}
	n, err := r.d.DecodeMapLen()
	if err != nil {
		r.err = err
		return nil
	}
	m := make(map[string]string, min(n, 64))
	for range n {
		k := r.string()
		m[k] = r.string()
		if r.err != nil {
			return nil
		}
	}
	return m
}

func (r *fieldReader) ints() []int {
	if r.isNil() {
		return nil
	}
	n, err := r.d.DecodeArrayLen()
	if err != nil {
		r.err = err
		return nil
	}
	out := make([]int, 0, min(n, 16))
	for range n {
		out = append(out, int(r.int64()))
		if r.err != nil {
			return nil
		}
	}
	return out
}
