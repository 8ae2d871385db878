package state

import (
	"bytes"
	"errors"

	"github.com/vmihailenco/msgpack/v5"
)

var errTrailingBytes = errors.New("trailing bytes after the record")

// recordDecoder decodes records one after another without allocating a
// decoder or reader for each; one per goroutine.
type recordDecoder struct {
	rd  bytes.Reader
	dec *msgpack.Decoder
}

func newRecordDecoder() *recordDecoder {
	return &recordDecoder{dec: msgpack.NewDecoder(nil)}
}

func (d *recordDecoder) decode(raw []byte, v any) error {
	d.rd.Reset(raw)
	d.dec.ResetReader(&d.rd)
	if err := d.dec.Decode(v); err != nil {
		return err
	}
	if d.rd.Len() != 0 {
		return errTrailingBytes
	}
	return nil
}
