package diagnostics

import (
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

// What Terraform says when a subscription leaves state: the service has no
// delete and no update of subscriptions, so destroying one only forgets it
// and replacing one leaves the old one running. The warnings say so plainly
// and name the CLI setting that makes the plan say it too.

// ForgetInsteadOfDestroy recommends the lifecycle setting under which the
// CLI plans a destroy as what it is at this service: forgetting.
const ForgetInsteadOfDestroy = "To have the plan say so, add lifecycle { destroy = false } to the resource (OpenTofu 1.12 and later, Terraform 1.16 and later): " +
	"the plan then shows the subscription as forgotten instead of destroyed, and the provider is not asked to delete it. " +
	"To stop managing one subscription on purpose, use a removed block with lifecycle { destroy = false }."

// ReplaceForgetsOld is ForgetInsteadOfDestroy for a replacement.
const ReplaceForgetsOld = "With lifecycle { destroy = false } on the resource (OpenTofu 1.12 and later; Terraform 1.16.3 and later, tested with 1.16.4), " +
	"the plan shows the old subscription as forgotten instead of destroyed, which is what happens at this service " +
	"(Terraform 1.16 before 1.16.3 plans it as a delete, tested with 1.16.0-rc2, which here only removes it from state)."

// subscriptionName is "sub_x (eSIM y)".
func subscriptionName(id, iccid string) string {
	return fmt.Sprintf("%s (eSIM %s)", id, iccid)
}

// DestroyOnlyForgets: a planned destroy of a subscription.
func DestroyOnlyForgets(id, iccid string) diag.Diagnostic {
	return diag.NewWarningDiagnostic("Destroying a subscription only removes it from state",
		fmt.Sprintf("The service has no way to delete a subscription: %s will keep running at the service after it is removed from Terraform state.\n\n%s",
			subscriptionName(id, iccid), ForgetInsteadOfDestroy))
}

// StillAtService: a destroy was applied; the subscription left state only.
func StillAtService(id, iccid string) diag.Diagnostic {
	return diag.NewWarningDiagnostic("Subscription still exists at the service",
		fmt.Sprintf("The service has no way to delete a subscription, so %s was only removed from Terraform state and keeps running at the service. "+
			"Bring it back under Terraform with `terraform import` if needed.\n\n%s", subscriptionName(id, iccid), ForgetInsteadOfDestroy))
}

// ReplaceLeavesOld: the configured plan changed, so the subscription is
// replaced.
func ReplaceLeavesOld(at path.Path, id, iccid string) diag.Diagnostic {
	return diag.NewAttributeWarningDiagnostic(at, "Replacing a subscription leaves the old one running",
		fmt.Sprintf("The plan of subscription %s changed, and the service can neither change nor delete a subscription. Applying creates a new subscription, "+
			"which takes another eSIM from the inventory, and removes %s from Terraform state only: it will keep running at the service.\n\n%s",
			id, subscriptionName(id, iccid), ReplaceForgetsOld))
}

// ReplaceUnknownPlan: the configured plan is known only at apply, so the
// subscription must be assumed to change.
func ReplaceUnknownPlan(at path.Path, id, iccid string) diag.Diagnostic {
	return diag.NewAttributeWarningDiagnostic(at, "Replacing a subscription whose plan is known only after apply",
		fmt.Sprintf("The plan of subscription %s comes from a value Terraform will know only during apply, so it must assume the plan changes and "+
			"replace the subscription, even if the value turns out the same. The new subscription takes another eSIM, and %s keeps running at the service. "+
			"Make the value known at plan time (for example, do not make the data source that supplies it depend on a resource with pending changes), "+
			"or add lifecycle { ignore_changes = [plan_id, plan] } to keep this subscription.",
			id, subscriptionName(id, iccid)))
}

// Renewal: early_renewal_hours found the subscription due, so the plan
// replaces it. expired is whether the service already says it expired.
func Renewal(at path.Path, id, iccid string, expired bool, expireAt time.Time, hours int64) diag.Diagnostic {
	why := fmt.Sprintf("Subscription %s expired at %s.", subscriptionName(id, iccid), expireAt.UTC().Format(time.RFC3339))
	if !expired {
		why = fmt.Sprintf("Subscription %s expires at %s, less than early_renewal_hours (%d) from now.", subscriptionName(id, iccid), expireAt.UTC().Format(time.RFC3339), hours)
	}
	return diag.NewAttributeWarningDiagnostic(at, "Renewing a subscription gives the device a new eSIM",
		why+" Applying renews it: a new subscription is created on a new eSIM, with a new ICCID, so the device must be given the new eSIM "+
			"(the new esim_iccid) to be served by it. The old subscription "+id+" stays at the service, since the service cannot delete one, "+
			"and leaves Terraform state.\n\n"+ReplaceForgetsOld+" To keep this subscription instead, remove early_renewal_hours.")
}
