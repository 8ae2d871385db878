package state

import "errors"

// StorageError is a change that could not be stored, and so was undone.
type StorageError struct{ Err error }

func (e *StorageError) Error() string {
	return "the change could not be stored, so it was not made: " + e.Err.Error()
}
func (e *StorageError) Unwrap() error { return e.Err }

// ErrClosed is the answer to an Update after Close.
var ErrClosed = errors.New("the emulator is shut down")
