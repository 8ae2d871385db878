package client

import (
	"fmt"
	"math"
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

// MinMaxRequestsPerSecond is the lowest rate ceiling accepted, one
// request every 1000 seconds: a ceiling below it stalls every operation,
// and is a typo rather than a plan. Wherever a ceiling is read (the
// provider block, its environment variable, Config), this is the rule.
const MinMaxRequestsPerSecond = 0.001

// CheckMaxRequestsPerSecond refuses a rate ceiling that paces nothing or
// stalls: it must be a finite number of at least MinMaxRequestsPerSecond
// (fractions allowed: 0.5 is one request every two seconds).
func CheckMaxRequestsPerSecond(v float64) error {
	if !(v >= MinMaxRequestsPerSecond) || math.IsInf(v, 0) {
		return fmt.Errorf("the most requests per second is %v; it must be a number of at least %v", v, MinMaxRequestsPerSecond)
	}
	return nil
}
