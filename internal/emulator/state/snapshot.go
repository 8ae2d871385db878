package state

// snapshot is everything the store holds, including the cursor key so that
// cursors handed out before a restart stay valid. It is what a restart
// reads back from the database, and also the layout of the JSON state file
// of earlier versions, which is migrated at start.
type snapshot struct {
	Version       int             `json:"version"`
	CursorKey     []byte          `json:"cursorKey"`
	ClockOffset   int64           `json:"clockOffset"`
	CustomPlans   int             `json:"customPlans"`
	Plans         []Plan          `json:"plans"`
	Esims         []Esim          `json:"esims"`
	Subscriptions []*Subscription `json:"subscriptions"`
}

const snapshotVersion = 1

// loadInto replaces the store's content with the snapshot, which must have
// passed validate.
func (snap *snapshot) loadInto(s *Store) {
	s.load(Dataset{Plans: snap.Plans, Esims: snap.Esims}, snap.Subscriptions, snap.CustomPlans, snap.ClockOffset)
	s.cursorKey = snap.CursorKey
}
