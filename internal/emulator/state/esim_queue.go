package state

// esimQueue lists eSIMs by their index in the content's esims, scanned
// lazily: entries that got assigned since they were queued are skipped, so
// finding a free eSIM is amortized O(1).
type esimQueue struct {
	idx  []int
	head int
}

func (q *esimQueue) next(esims []*Esim) *Esim {
	for q.head < len(q.idx) {
		e := esims[q.idx[q.head]]
		if e.SubscriptionID == nil {
			return e
		}
		q.head++
	}
	return nil
}
