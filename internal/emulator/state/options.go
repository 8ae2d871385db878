package state

import "time"

// Options say where the state lives and what it starts from.
type Options struct {
	// Path is the database file; empty keeps the state in memory only. A
	// file that exists is checked before it is used, and refused, untouched,
	// when it is not a state database in good order.
	Path string
	// Dataset is the state of a new file or of memory only; it must have
	// passed Validate.
	Dataset Dataset
	// Now is the wall clock; nil means time.Now.
	Now func() time.Time
	// Logger receives what the store has to say (a migrated file); nil
	// discards it.
	Logger interface{ Printf(string, ...any) }
	// BeforeCommit, when set, runs first in every write transaction, and
	// its error fails the commit as a full disk would. Tests use it.
	BeforeCommit func() error
}
