//go:build !linux

package journal

// Orphans are told apart by /proc, which only Linux has.
func orphanRows() []row { return nil }
