package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// notEmpty guards data source keys and filters: an empty key would ask the
// service for the list's own path, and an empty filter would silently
// match nothing. Both are refused when the configuration is validated.
func notEmpty() []validator.String {
	return []validator.String{stringvalidator.LengthAtLeast(1)}
}

// parsedString refuses, when the configuration is validated, a value the
// provider would otherwise fail to parse later: a typo then fails
// `terraform validate` and the plan at its line, not the apply. A value
// known only at apply is checked where it is used.
type parsedString struct {
	description string
	// check is the error for a bad value, nil for a good one.
	check func(at path.Path, value string) diag.Diagnostic
}

func (v parsedString) Description(context.Context) string { return v.description }

func (v parsedString) MarkdownDescription(context.Context) string { return v.description }

func (v parsedString) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if d := v.check(req.Path, req.ConfigValue.ValueString()); d != nil {
		resp.Diagnostics.Append(d)
	}
}

// validBaseURL rejects an unusable or clear-text base_url. Configure checks
// the environment variable the same way.
var validBaseURL = parsedString{"must be an https URL, or http to a loopback host", func(at path.Path, value string) diag.Diagnostic {
	if value == "" {
		return nil // unset: the environment variable applies
	}
	if _, err := client.ParseBaseURL(value); err != nil {
		return diag.NewAttributeErrorDiagnostic(at, "Invalid base_url", err.Error())
	}
	return nil
}}

// validCACertPEM refuses extra CA certificates that are not PEM
// certificates.
var validCACertPEM = parsedString{"must be one or more PEM certificates", func(at path.Path, value string) diag.Diagnostic {
	if err := client.CheckCACertPEM(value); err != nil {
		return diag.NewAttributeErrorDiagnostic(at, "Invalid ca_cert_pem", capitalize(err.Error())+".")
	}
	return nil
}}

// positiveDuration accepts Go duration strings greater than zero.
var positiveDuration = parsedString{"must be a positive duration such as 30s or 2m", func(at path.Path, value string) diag.Diagnostic {
	if d, err := time.ParseDuration(value); err != nil || d <= 0 {
		return diag.NewAttributeErrorDiagnostic(at, "Invalid duration",
			fmt.Sprintf("%s must be a positive Go duration such as \"30s\" or \"2m\", got %q.", at, value))
	}
	return nil
}}

// rfc3339Timestamp accepts an RFC 3339 timestamp. A value known only at
// plan time, such as one from plantimestamp(), is checked again when it is
// used (parseTimeFilter).
var rfc3339Timestamp = parsedString{"must be an RFC 3339 timestamp such as 2026-12-01T00:00:00Z", func(at path.Path, value string) diag.Diagnostic {
	if _, err := time.Parse(time.RFC3339, value); err != nil {
		return invalidTimestamp(at, value)
	}
	return nil
}}

// capitalize is s with its first letter upper case, as a diagnostic's
// sentence starts.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// validInstant refuses a time that is not RFC 3339, such as
// 2026-11-27T10:00:00Z.
var validInstant = parsedString{"must be an RFC 3339 time, such as 2026-11-27T10:00:00Z", func(at path.Path, value string) diag.Diagnostic {
	if _, err := time.Parse(time.RFC3339, value); err != nil {
		return diag.NewAttributeErrorDiagnostic(at, "Invalid time", fmt.Sprintf("%q is not an RFC 3339 time, such as 2026-11-27T10:00:00Z (UTC) or 2026-11-27T11:00:00+01:00.", value))
	}
	return nil
}}
