package state

import (
	"bytes"
	"sync"

	"github.com/vmihailenco/msgpack/v5"
)

// Records are MessagePack arrays, one element per field in declaration
// order: decoding them is what a restart spends its time on, and this is
// about four times faster to decode than JSON (no field names to match,
// no text to scan). msgpack/v5 was already in the module graph through
// terraform-plugin-go. A record whose element count differs from its
// struct is refused by the decoder, and TestRecordLayoutPinned makes a
// change of fields bump stateFormat.

type recordEncoder struct {
	buf bytes.Buffer
	enc *msgpack.Encoder
}

var recordEncoders = sync.Pool{New: func() any {
	e := &recordEncoder{}
	e.enc = msgpack.NewEncoder(&e.buf)
	e.enc.UseArrayEncodedStructs(true)
	return e
}}

// encodeRecord returns v as a record; v is a plain struct of strings,
// numbers and pointers to them, which always encodes.
func encodeRecord(v any) []byte {
	e := recordEncoders.Get().(*recordEncoder)
	defer recordEncoders.Put(e)
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.Clone(e.buf.Bytes())
}
