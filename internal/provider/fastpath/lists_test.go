package fastpath

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// encodeMap is m as msgpack, its keys in sorted order as Terraform's
// objects are written.
func encodeMap(t *testing.T, keys []string, values []any) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := msgpack.NewEncoder(&b)
	if err := enc.EncodeMapLen(len(keys)); err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if err := enc.EncodeString(k); err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(values[i]); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// The items take the place of their attribute's empty list and nothing
// else changes; an attribute that is missing, or holds anything but the
// empty list, is an error, never a state with items lost or doubled.
func TestItems_spliceInto(t *testing.T) {
	items := &Items{count: 2}
	items.encoded.Write(encodeMap(t, []string{"id"}, []any{"a"}))
	items.encoded.Write(encodeMap(t, []string{"id"}, []any{"b"}))
	state := encodeMap(t, []string{"ids", "items", "max_items"}, []any{[]string{"a", "b"}, []any{}, nil})
	got, err := items.spliceInto(state, "items")
	if err != nil {
		t.Fatal(err)
	}
	want := encodeMap(t, []string{"ids", "items", "max_items"}, []any{[]string{"a", "b"}, []any{map[string]any{"id": "a"}, map[string]any{"id": "b"}}, nil})
	if !bytes.Equal(got, want) {
		t.Errorf("spliced:\n%x\nwant\n%x", got, want)
	}
	for _, c := range []struct {
		state     []byte
		attribute string
		err       string
	}{
		{state, "missing", "no attribute missing"},
		{encodeMap(t, []string{"items"}, []any{[]string{"x"}}), "items", "not the empty list"},
		{encodeMap(t, []string{"items"}, []any{nil}), "items", "not the empty list"},
		{[]byte{0x91}, "items", "map"},
	} {
		if _, err := items.spliceInto(c.state, c.attribute); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%x at %s: error %v, want one saying %q", c.state, c.attribute, err, c.err)
		}
	}
}
