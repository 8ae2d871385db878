package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
)

// SignatureHeader is the header of a webhook call that carries its
// signature: the hex HMAC-SHA256 of the exact body under the signing secret
// (contract, "Webhooks").
const SignatureHeader = "service-signature"

// Signature verification failures.
var (
	ErrMissingSignature = errors.New("webhook: the service-signature header is missing")
	ErrBadSignature     = errors.New("webhook: the service-signature does not match the body and signing secret; the call is not authentic")
)

// Sign computes the service-signature value for body.
func Sign(secret string, body []byte) string {
	return hex.EncodeToString(mac(secret, body))
}

// Verify checks a webhook call's signature header against the exact body
// bytes, in constant time. Verify before parsing: the body of an
// unauthenticated call is not to be trusted.
func Verify(secret string, body []byte, header string) error {
	header = strings.TrimSpace(header)
	if header == "" {
		return ErrMissingSignature
	}
	got, err := hex.DecodeString(header)
	if err != nil {
		return ErrBadSignature
	}
	if !hmac.Equal(got, mac(secret, body)) { // constant time; false for a truncated header too
		return ErrBadSignature
	}
	return nil
}

func mac(secret string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return m.Sum(nil)
}
