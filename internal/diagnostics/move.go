package diagnostics

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// What Terraform says when a `moved` block from the generic REST
// provider's restapi_object cannot be carried out. A move that guessed
// would be costly at a service with no delete: the moved object would be
// planned as a create, which buys another subscription. So every refusal
// says that nothing was created or changed, and how to bring the object in
// the other way: a removed block for the restapi_object and an import.

// MoveSummary heads every refused move.
const MoveSummary = "Cannot move this restapi_object to mobileplan_subscription"

// MoveSource names the object being moved as the generic REST provider
// knew it, the only name the provider is given: its provider, path and id.
type MoveSource struct {
	Provider, Type, Path, ID string
}

func (s MoveSource) String() string {
	id := s.ID
	if id == "" {
		id = "(none)"
	}
	return fmt.Sprintf("%s of %s with path %q and id %q", s.Type, s.Provider, s.Path, id)
}

// moveFix is the way out of every refused move.
const moveFix = "Nothing was created or changed, at the service or in state. Remove this moved block. " +
	"If the object is a subscription, bring it in with an import instead: a removed block for the restapi_object " +
	"(with lifecycle { destroy = false }) and an import block for mobileplan_subscription with the subscription's id. " +
	"Otherwise keep it under restapi_object. See the guide \"Moving from the generic REST provider\"."

// MoveUnsupportedSource: a move from a resource type mobileplan_subscription
// does not know.
func MoveUnsupportedSource(sourceProvider, sourceType string) diag.Diagnostic {
	return diag.NewErrorDiagnostic("Cannot move "+sourceType+" to mobileplan_subscription",
		fmt.Sprintf("mobileplan_subscription accepts moved state only from restapi_object of the generic REST provider (Mastercard/restapi); "+
			"this moved block names %s of %s. Remove the moved block, and import the subscription with an import block instead.", sourceType, sourceProvider))
}

// MoveNotSubscription: the moved state does not name a subscription;
// fact says why.
func MoveNotSubscription(src MoveSource, fact string) diag.Diagnostic {
	return diag.NewErrorDiagnostic(MoveSummary,
		fmt.Sprintf("The moved object, %s, does not name a subscription: %s.\n\n%s", src, fact, moveFix))
}

// MoveSubscriptionMissing: the first read after a move found no
// subscription of the moved id; detail is what the service answered.
func MoveSubscriptionMissing(src MoveSource, detail string) diag.Diagnostic {
	return diag.NewErrorDiagnostic(MoveSummary,
		fmt.Sprintf("The moved object, %s, names no subscription the service knows: reading it answered HTTP 404. "+
			"It may be a subscription of another account or service. It is not created in its place.\n\n%s\n\n%s\n\n"+
			"If an apply with -refresh=false has already recorded the move in state, remove the mobileplan_subscription from state too "+
			"(terraform state rm, or a removed block with lifecycle { destroy = false }).", src, detail, moveFix))
}
