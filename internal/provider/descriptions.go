package provider

// Descriptions shared by the resource and the data sources, so that the
// same attribute reads the same on every docs page.
const (
	descID                 = "Subscription id, assigned by the service. Also the import id."
	descSubscriptionPlanID = "Id of the plan the subscription was made from (for an inline plan, the custom plan the service created)."
	descEsimICCID          = "ICCID of the eSIM the service assigned to the subscription."
	descState              = "Lifecycle state: `ready` (created, eSIM not used yet), `active` (in use) or `expired` (past `expire_at`)."
	descCreatedAt          = "When the subscription was created, in Unix seconds."
	descActivatedAt        = "When the subscription became active, in Unix seconds; null until its eSIM is first used."
	descExpireAt           = "When the subscription expires, in Unix seconds: null until it becomes active, then `activated_at` + `period_days` × `period_iterations` days."
	descMetadata           = "Metadata the service keeps on the subscription (string keys and values)."
	descPlanDetails        = "The plan as attached to the subscription."
	descPurchasedAllowance = "Data, voice and SMS the plan grants."
	descRemainingAllowance = "What is left of `purchased_allowance`."
)
