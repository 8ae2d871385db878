package state

import "fmt"

// subRef names a subscription in messages; it formats only when printed.
type subRef struct {
	i   int
	sub *Subscription
}

func (r subRef) String() string { return fmt.Sprintf("subscriptions[%d] (%s)", r.i, r.sub.ID) }
