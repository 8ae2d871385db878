package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// notEmpty guards data source keys and filters: an empty key would ask the
// service for the list's own path, and an empty filter would silently
// match nothing. Both are refused when the configuration is validated.
func notEmpty() []validator.String {
	return []validator.String{stringvalidator.LengthAtLeast(1)}
}
