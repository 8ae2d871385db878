package diagnostics

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// ListCut: `terraform query` took limit results, its list block's limit,
// and more match: more of them within the readAhead subscriptions read past
// it, all of them when the list ended there.
func ListCut(limit int64, more int, all bool, readAhead int) diag.Diagnostic {
	if all {
		return diag.NewWarningDiagnostic(fmt.Sprintf("Only %d subscriptions listed: %d more match", limit, more),
			fmt.Sprintf("The list block's limit is %d (Terraform's default is 100), and the service has %d more subscriptions that match the block's filters. "+
				"To find them all, set limit = %d in the list block, or narrow it with its filters.", limit, more, limit+int64(more)))
	}
	return diag.NewWarningDiagnostic(fmt.Sprintf("Only %d subscriptions listed: at least %d more match", limit, more),
		fmt.Sprintf("The list block's limit is %d (Terraform's default is 100), and the service has at least %d more subscriptions that match the block's filters: "+
			"the provider counts up to %d subscriptions past the limit, and the list went on. "+
			"To find more, set a limit above %d in the list block, or narrow it with its filters.", limit, more, readAhead, limit+int64(more)))
}
