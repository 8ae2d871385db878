package state

// Esim is an eSIM record of the account's inventory.
type Esim struct {
	ICCID          string  `json:"iccid"`
	Label          *string `json:"label"`
	SmdpState      string  `json:"smdpState"`
	SubscriptionID *string `json:"subscriptionId"`
	CountryISO2    *string `json:"countryIso2"`
	CreatedAt      int64   `json:"createdAt"`
}

// clone is a copy of e that shares nothing with it.
func (e Esim) clone() Esim {
	e.Label = clonePtr(e.Label)
	e.SubscriptionID = clonePtr(e.SubscriptionID)
	e.CountryISO2 = clonePtr(e.CountryISO2)
	return e
}
