package state

// Allowance is section 2.3; every field may be null.
type Allowance struct {
	DataBytes    *int64 `json:"dataBytes"`
	VoiceSeconds *int64 `json:"voiceSeconds"`
	SmsMessages  *int64 `json:"smsMessages"`
}

func (a Allowance) clone() Allowance {
	a.DataBytes = clonePtr(a.DataBytes)
	a.VoiceSeconds = clonePtr(a.VoiceSeconds)
	a.SmsMessages = clonePtr(a.SmsMessages)
	return a
}
