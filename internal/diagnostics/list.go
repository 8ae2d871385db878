package diagnostics

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// ListCut: `terraform query` took limit results, its list block's limit,
// and more match: more of them within what was read past it, all of them
// when the list ended there.
func ListCut(limit int64, more int, all bool) diag.Diagnostic {
	count := fmt.Sprintf("%d more", more)
	if !all {
		count = fmt.Sprintf("at least %d more (the provider read no further)", more)
	}
	raise := fmt.Sprintf("limit = %d", limit+int64(more))
	if !all {
		raise = fmt.Sprintf("a limit above %d", limit+int64(more))
	}
	return diag.NewWarningDiagnostic(fmt.Sprintf("Only %d subscriptions listed: %s match", limit, count),
		fmt.Sprintf("The list block's limit is %d (Terraform's default is 100), and the service has %s subscriptions that match the block's filters. "+
			"To find them, set %s in the list block, or narrow it with its filters.", limit, count, raise))
}
