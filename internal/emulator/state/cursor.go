package state

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
)

// Cursors are opaque to clients: a version byte, the list they belong to and
// a position, sealed with an HMAC under a key only this emulator's state
// knows. A client can neither forge one nor reuse one on another list or
// against another emulator. Standard base64 is used on purpose: real cursors
// hold '+', '/' and '=', and clients must URL-encode them.

type listKind byte

const (
	listSubscriptions listKind = 's'
	listPlans         listKind = 'p'
	listEsims         listKind = 'e'
)

const (
	cursorVersion = 1
	cursorBody    = 1 + 1 + 8
	cursorMACLen  = 16
)

// ErrBadCursor is the answer to a page cursor this state did not issue for
// this list.
var ErrBadCursor = errors.New("the page cursor is not one this service issued for this list")

func encodeCursor(key []byte, kind listKind, pos int64) string {
	buf := make([]byte, cursorBody, cursorBody+cursorMACLen)
	buf[0] = cursorVersion
	buf[1] = byte(kind)
	binary.BigEndian.PutUint64(buf[2:], uint64(pos))
	return base64.StdEncoding.EncodeToString(append(buf, cursorMAC(key, buf)...))
}

// decodeCursor returns the position sealed in s, or ErrBadCursor for anything
// malformed, tampered with, or issued for another list or by another key.
func decodeCursor(key []byte, kind listKind, s string) (int64, error) {
	raw, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil || len(raw) != cursorBody+cursorMACLen {
		return 0, ErrBadCursor
	}
	body, mac := raw[:cursorBody], raw[cursorBody:]
	if !hmac.Equal(mac, cursorMAC(key, body)) {
		return 0, ErrBadCursor
	}
	if body[0] != cursorVersion || listKind(body[1]) != kind {
		return 0, ErrBadCursor
	}
	pos := int64(binary.BigEndian.Uint64(body[2:]))
	if pos < 0 {
		return 0, ErrBadCursor
	}
	return pos, nil
}

func cursorMAC(key, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return m.Sum(nil)[:cursorMACLen]
}
