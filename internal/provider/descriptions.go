package provider

// Descriptions shared by the resource and the data sources, so that the
// same attribute reads the same on every docs page.
const (
	descID                 = "Subscription id, assigned by the service. Also the import id."
	descSubscriptionPlanID = "Id of the plan the subscription was made from (for an inline plan, the custom plan the service created)."
	descEsimICCID          = "ICCID of the eSIM the service assigned to the subscription."
	descState              = "Lifecycle state: `ready` (created, eSIM not used yet), `active` (in use) or `expired` (past `expire_at`). " +
		"It changes at the service on its own, once each: to `active` when the eSIM is first used, to `expired` at `expire_at`; a refresh shows each change."
	descCreatedAt          = "When the subscription was created, in Unix seconds."
	descActivatedAt        = "When the subscription became active, in Unix seconds; null until its eSIM is first used, then set once by the service."
	descExpireAt           = "When the subscription expires, in Unix seconds: null until it becomes active, then set once by the service to `activated_at` + `period_days` × `period_iterations` days."
	descMetadata           = "Metadata the service keeps on the subscription (string keys and values)."
	descPlanDetails        = "The plan as attached to the subscription."
	descPurchasedAllowance = "Data, voice and SMS the plan grants."
	descRemainingAllowance = "What is left of `purchased_allowance`: usage, which changes whenever the eSIM uses data. Only the data sources show it, so that usage never shows as drift of the `mobileplan_subscription` resource."
)
