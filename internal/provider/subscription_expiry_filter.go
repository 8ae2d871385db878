package provider

import (
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
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
