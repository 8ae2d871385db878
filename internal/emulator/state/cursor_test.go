package state

import (
	"bytes"
	"encoding/base64"
	"errors"
	"math"
	"testing"
)

// fuzzCursorKey seals the cursors of the seed corpus in
// testdata/fuzz/FuzzDecodeCursor, so that the fuzzer starts from cursors
// decodeCursor accepts.
var fuzzCursorKey = []byte("fuzz-cursor-key-0123456789abcdef")

var allKinds = []listKind{listSubscriptions, listPlans, listEsims}

// FuzzDecodeCursor: decodeCursor never panics; whatever it accepts is a
// non-negative position of exactly one list, sealed under this key only,
// that encodeCursor turns back into the same cursor bytes. The int64 input
// checks the other direction: every position survives encode then decode.
func FuzzDecodeCursor(f *testing.F) {
	for _, kind := range allKinds {
		for _, pos := range []int64{0, 1, 2, 10, 25, 99_999, 1 << 40, math.MaxInt64} {
			f.Add(encodeCursor(fuzzCursorKey, kind, pos), pos)
		}
	}
	f.Add("", int64(-1))
	f.Add("garbage", int64(math.MinInt64))
	f.Add("AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", int64(3))
	f.Fuzz(func(t *testing.T, s string, pos int64) {
		otherKey := append(bytes.Clone(fuzzCursorKey), 'x')
		accepted := 0
		for _, kind := range allKinds {
			got, err := decodeCursor(fuzzCursorKey, kind, s)
			if err != nil {
				if !errors.Is(err, ErrBadCursor) {
					t.Fatalf("decodeCursor(%q): error %v is not ErrBadCursor", s, err)
				}
				continue
			}
			accepted++
			if got < 0 {
				t.Fatalf("decodeCursor(%q) accepted negative position %d", s, got)
			}
			again := encodeCursor(fuzzCursorKey, kind, got)
			back, err := decodeCursor(fuzzCursorKey, kind, again)
			if err != nil || back != got {
				t.Fatalf("round trip of %q: position %d re-encoded as %q decodes to %d, %v", s, got, again, back, err)
			}
			// Same sealed bytes: the accepted string is the canonical
			// cursor, up to what base64 decoding ignores.
			raw1, err1 := base64.StdEncoding.DecodeString(s)
			raw2, err2 := base64.StdEncoding.DecodeString(again)
			if err1 != nil || err2 != nil || !bytes.Equal(raw1, raw2) {
				t.Fatalf("%q and its re-encoding %q hold different bytes", s, again)
			}
			if _, err := decodeCursor(otherKey, kind, s); err == nil {
				t.Fatalf("%q accepted under another key", s)
			}
		}
		if accepted > 1 {
			t.Fatalf("%q accepted for %d lists", s, accepted)
		}

		for _, kind := range allKinds {
			c := encodeCursor(fuzzCursorKey, kind, pos)
			got, err := decodeCursor(fuzzCursorKey, kind, c)
			switch {
			case pos >= 0 && (err != nil || got != pos):
				t.Fatalf("position %d of list %c: cursor %q decodes to %d, %v", pos, kind, c, got, err)
			case pos < 0 && err == nil:
				t.Fatalf("negative position %d of list %c accepted", pos, kind)
			}
			for _, other := range allKinds {
				if other != kind {
					if _, err := decodeCursor(fuzzCursorKey, other, c); err == nil {
						t.Fatalf("cursor of list %c accepted for list %c", kind, other)
					}
				}
			}
		}
	})
}
