package state

import (
	"errors"
	"fmt"
)

// StorageError is a change that could not be stored, and so was undone.
type StorageError struct{ Err error }

func (e *StorageError) Error() string {
	return "the change could not be stored, so it was not made: " + e.Err.Error()
}
func (e *StorageError) Unwrap() error { return e.Err }

// ErrClosed is the answer to an Update after Close.
var ErrClosed = errors.New("the emulator is shut down")

// ErrClockBound is the answer to a clock advance that is not positive, or
// would take the clock more than MaxClockOffsetSeconds ahead of the wall
// clock. Its text is for the client who asked.
var ErrClockBound = fmt.Errorf("seconds must be a positive integer, and the clock can run at most %d seconds (200 years) ahead of the wall clock", int64(MaxClockOffsetSeconds))
