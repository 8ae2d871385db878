package process

import (
	"os"
	"time"
)

// parentPollInterval is how often the provider checks that Terraform is
// still there; it bounds how long the provider outlives a killed Terraform.
const parentPollInterval = 200 * time.Millisecond

// watchParent calls gone once the process that started this one (Terraform)
// has exited. Terraform normally stops its providers through go-plugin and
// cancels their requests with StopProvider when interrupted; when Terraform
// is killed, neither happens and nothing else would end the provider, which
// would go on finishing, and retrying, the creates it had in hand. An orphan
// is re-parented on Unix, so its parent id changes. (On Windows the parent id
// never changes and this watch does nothing.)
func watchParent(gone func()) {
	parent := os.Getppid()
	tick := time.NewTicker(parentPollInterval)
	defer tick.Stop()
	for range tick.C {
		if os.Getppid() != parent {
			gone()
			return
		}
	}
}
