package client

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// CheckToken refuses a token that cannot be sent as a header value: a
// control character, most often the line break that `$(cat token.txt)`
// keeps. net/http refuses such a header on every attempt, which would
// otherwise look like a network failure. The error never shows the token.
func CheckToken(token string) error {
	if token == "" {
		return fmt.Errorf("an API token is required")
	}
	pos := 0
	for _, r := range token {
		pos++
		if unicode.IsControl(r) {
			return fmt.Errorf("the API token contains a control character, %s, at character %d of %d; "+
				"a token is printable text on one line (a line break at the end usually comes from reading it from a file, as $(cat token.txt) does)",
				describeRune(r), pos, utf8.RuneCountInString(token))
		}
	}
	return nil
}

func describeRune(r rune) string {
	names := map[rune]string{'\n': "a line feed", '\r': "a carriage return", '\t': "a tab", 0: "a NUL byte"}
	if n, ok := names[r]; ok {
		return fmt.Sprintf("%s (U+%04X)", n, r)
	}
	return fmt.Sprintf("U+%04X", r)
}

// RedactURL returns raw with its user information (user:password@)
// replaced by REDACTED, also when raw does not parse as a URL, so that an
// error can quote what was written without the credential. Everything up
// to the last '@' goes: in a URL that does not parse, nothing else tells
// where the password ends.
func RedactURL(raw string) string {
	prefix, rest := "", raw
	if i := strings.Index(raw, "://"); i >= 0 {
		prefix, rest = raw[:i+3], raw[i+3:]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return raw
	}
	return prefix + "REDACTED@" + rest[at+1:]
}
