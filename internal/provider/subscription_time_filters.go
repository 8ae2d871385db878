package provider

import (
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// The time filters of the mobileplan_subscriptions data source and of the
// mobileplan_subscription list resource: expires_before, what expires
// before a time, such as this week, timeadd(plantimestamp(), "168h") (a
// subscription without expire_at, not yet active, has no expiry and never
// matches); created_before, what was created before a time, which an
// import keeps fixed so that subscriptions created later are never
// adopted by it.

const expiresBeforeDescription = "Keep only subscriptions whose `expire_at` is before this time, an RFC 3339 timestamp such as `2026-12-01T00:00:00Z`; " +
	"`timeadd(plantimestamp(), \"168h\")` finds what expires within a week (expired ones included). " +
	"A subscription not yet active has no `expire_at` and never matches."

const createdBeforeDescription = "Keep only subscriptions created before this time, an RFC 3339 timestamp such as `2026-12-01T00:00:00Z`. " +
	"A bulk import that keeps it fixed never adopts a subscription created after it ([importing subscriptions](../guides/importing-subscriptions.md))."

var (
	expiresBeforePath = path.Root("expires_before")
	createdBeforePath = path.Root("created_before")
)

func invalidTimestamp(at path.Path, value string) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(at, "Invalid timestamp",
		fmt.Sprintf("%s must be an RFC 3339 timestamp such as \"2026-12-01T00:00:00Z\" (or timeadd(plantimestamp(), \"168h\")), got %q.", at, value))
}

// timeFilter is a parsed time filter of one of a subscription's times:
// keep accepts every subscription when it is unset.
type timeFilter struct {
	set    bool
	before time.Time
	of     func(*client.Subscription) *int64 // the subscription's time, Unix seconds; nil when it has none
}

func expireAt(s *client.Subscription) *int64  { return s.ExpireAt }
func createdAt(s *client.Subscription) *int64 { return &s.CreatedAt }

// parseTimeFilter reads the filter at attr of the subscription's time of;
// an invalid value is an error on the attribute.
func parseTimeFilter(v types.String, attr path.Path, of func(*client.Subscription) *int64, diags *diag.Diagnostics) timeFilter {
	if v.IsNull() || v.IsUnknown() {
		return timeFilter{}
	}
	t, err := time.Parse(time.RFC3339, v.ValueString())
	if err != nil {
		diags.Append(invalidTimestamp(attr, v.ValueString()))
		return timeFilter{}
	}
	return timeFilter{set: true, before: t, of: of}
}

func (f timeFilter) keep(s *client.Subscription) bool {
	if !f.set {
		return true
	}
	at := f.of(s)
	return at != nil && time.Unix(*at, 0).Before(f.before)
}
