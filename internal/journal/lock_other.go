//go:build !unix

package journal

import "os"

// Without flock the journal cannot tell whether another process has it
// open, so it is never compacted.
func lockExclusiveNow(*os.File) bool { return false }

func lockShared(*os.File) {}

// lockPath has no lock to take here; the provider takes nothing where it
// cannot read Terraform's command line, as on Windows.
func lockPath(string) (func(), error) { return func() {}, nil }
