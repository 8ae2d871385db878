package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// expires_before, a filter of the mobileplan_subscriptions data source and
// of the mobileplan_subscription list resource: what expires before a
// time, such as this week, timeadd(plantimestamp(), "168h"). A subscription
// without expire_at (not yet active) has no expiry and never matches.

const expiresBeforeDescription = "Keep only subscriptions whose `expire_at` is before this time, an RFC 3339 timestamp such as `2026-12-01T00:00:00Z`; " +
	"`timeadd(plantimestamp(), \"168h\")` finds what expires within a week (expired ones included). " +
	"A subscription not yet active has no `expire_at` and never matches."

var expiresBeforePath = path.Root("expires_before")

// rfc3339Validator accepts an RFC 3339 timestamp. A value known only at
// plan time, such as one from plantimestamp(), is checked again when it is
// used (parseExpiresBefore).
type rfc3339Validator struct{}

func (rfc3339Validator) Description(context.Context) string {
	return "must be an RFC 3339 timestamp such as 2026-12-01T00:00:00Z"
}

func (v rfc3339Validator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (rfc3339Validator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := time.Parse(time.RFC3339, req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.Append(invalidTimestamp(req.Path, req.ConfigValue.ValueString()))
	}
}

func invalidTimestamp(at path.Path, value string) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(at, "Invalid timestamp",
		fmt.Sprintf("%s must be an RFC 3339 timestamp such as \"2026-12-01T00:00:00Z\" (or timeadd(plantimestamp(), \"168h\")), got %q.", at, value))
}

// expiryFilter is a parsed expires_before: keep accepts every subscription
// when it is unset.
type expiryFilter struct {
	set    bool
	before time.Time
}

// parseExpiresBefore reads the filter; an invalid value is an error on the
// attribute.
func parseExpiresBefore(v types.String, diags *diag.Diagnostics) expiryFilter {
	if v.IsNull() || v.IsUnknown() {
		return expiryFilter{}
	}
	t, err := time.Parse(time.RFC3339, v.ValueString())
	if err != nil {
		diags.Append(invalidTimestamp(expiresBeforePath, v.ValueString()))
		return expiryFilter{}
	}
	return expiryFilter{set: true, before: t}
}

func (f expiryFilter) keep(s *client.Subscription) bool {
	if !f.set {
		return true
	}
	return s.ExpireAt != nil && time.Unix(*s.ExpireAt, 0).Before(f.before)
}
