package provider

import (
	"regexp"
	"strings"
)

// errorPattern matches output holding each part in order. Terraform wraps
// diagnostic text at 80 columns, so a space in a part matches any run of
// white space.
func errorPattern(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		quoted[i] = strings.ReplaceAll(regexp.QuoteMeta(p), " ", `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, ".*"))
}

var planCustom = regexp.MustCompile(`^plan_custom_`)
