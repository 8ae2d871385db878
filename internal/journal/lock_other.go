//go:build !unix

package journal

import "os"

// Without flock the journal cannot tell whether another process has it
// open, so it is never emptied.

func lockExclusiveNow(*os.File) bool { return false }

func lockShared(*os.File) {}

// lockClaims has no lock to take here; the provider takes nothing where
// it cannot read Terraform's command line, as on Windows.
func lockClaims(string) (func(), error) { return func() {}, nil }
