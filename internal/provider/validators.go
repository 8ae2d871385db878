package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
)

// notEmpty guards data source keys and filters: an empty key would ask the
// service for the list's own path, and an empty filter would silently
// match nothing. Both are refused when the configuration is validated.
func notEmpty() []validator.String {
	return []validator.String{stringvalidator.LengthAtLeast(1)}
}

// baseURLValidator rejects an unusable or clear-text base_url at plan time,
// when it is written in the configuration. Configure checks the environment
// variable the same way.
type baseURLValidator struct{}

func (baseURLValidator) Description(context.Context) string {
	return "must be an https URL, or http to a loopback host"
}

func (v baseURLValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (baseURLValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || req.ConfigValue.ValueString() == "" {
		return // unset: the environment variable applies
	}
	if _, err := client.ParseBaseURL(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid base_url", err.Error())
	}
}

// durationValidator accepts Go duration strings greater than zero.
type durationValidator struct{}

func (durationValidator) Description(context.Context) string {
	return "must be a positive duration such as 30s or 2m"
}

func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil || d <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			"request_timeout must be a positive Go duration such as \"30s\" or \"2m\", got "+req.ConfigValue.String()+".")
	}
}
