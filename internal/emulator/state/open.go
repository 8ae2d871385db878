package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// A state file is checked before it is trusted. bbolt maps the file into
// memory and believes its page numbers: on a truncated or damaged file it
// reads past the end of the file (a fault, which kills the process with a
// trace) or panics ("invalid freelist page"). And opening a FIFO blocks
// until a writer comes, forever. So, before bbolt sees the file: only a
// regular file is opened; its database header (the two meta pages) is
// checked here, against the file's size; bbolt then opens it read-only,
// the pages the header names are checked, and everything is read and
// checked with faults turned into errors. Only a file that passed is
// opened for writing. A refusal names the file and what is wrong, and
// leaves the file as it was.

// openFile opens (or creates) the state database at path, migrating a
// state file of the earlier JSON format. It returns the database and the
// snapshot it holds; a nil snapshot means the file is new.
func openFile(path string, logger interface{ Printf(string, ...any) }) (*bolt.DB, *snapshot, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return openWritable(path, nil, 0)
	case err != nil:
		return nil, nil, fmt.Errorf("state file %s: %w", path, err)
	case !info.Mode().IsRegular():
		return nil, nil, fmt.Errorf("state file %s is %s, not a regular file; give -state the path of a state database, or of a file to create", path, fileKind(info.Mode()))
	}
	legacy, err := isLegacyJSON(path)
	if err != nil {
		return nil, nil, fmt.Errorf("state file %s: %w", path, err)
	}
	if legacy {
		if err := migrateLegacy(path, logger); err != nil {
			return nil, nil, err
		}
	} else if info.Size() == 0 {
		return openWritable(path, nil, 0) // bbolt makes an empty file a new database
	}
	snap, txid, err := readChecked(path)
	if err != nil {
		return nil, nil, err
	}
	return openWritable(path, snap, txid)
}

// openWritable opens the database for writing, after readChecked read snap
// from it at transaction txid (snap nil: a new file, read here).
func openWritable(path string, snap *snapshot, txid int) (*bolt.DB, *snapshot, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockWait})
	if err != nil {
		return nil, nil, openError(path, err)
	}
	if snap == nil {
		snap, err = readState(db)
		if err == nil && snap != nil {
			err = snap.validate()
		}
	} else if now := currentTxID(db); now != txid {
		// Another emulator took the file and wrote to it between the check
		// and here: what was checked is not what is there.
		err = errors.New("it changed while it was being opened; start again")
	}
	if err != nil {
		_ = db.Close()
		return nil, nil, fmt.Errorf("state file %s: %w; fix or remove the file", path, err)
	}
	return db, snap, nil
}

func currentTxID(db *bolt.DB) int {
	id := -1
	_ = db.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil })
	return id
}

func openError(path string, err error) error {
	if errors.Is(err, berrors.ErrTimeout) {
		return fmt.Errorf("state file %s is in use by another emulator (it is locked); stop that emulator first, or give this one another -state file", path)
	}
	return fmt.Errorf("state file %s: %w (is it an emulator state file?)", path, err)
}

// readChecked checks the database at path and reads its snapshot, opening
// it read-only; it returns the transaction the snapshot was read at.
func readChecked(path string) (*snapshot, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("state file %s: %w", path, err)
	}
	defer f.Close()
	m, err := checkHeader(f)
	if err != nil {
		return nil, 0, fmt.Errorf("state file %s %w; restore it from a copy, or remove it to start afresh", path, err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: lockWait})
	if err != nil {
		return nil, 0, openError(path, err)
	}
	defer db.Close()
	// Under the lock the read-only open took, nobody writes: the pages the
	// header names are the ones bbolt will read.
	if err := checkPages(f, m); err != nil {
		return nil, 0, fmt.Errorf("state file %s %w; restore it from a copy, or remove it to start afresh", path, err)
	}
	var snap *snapshot
	txid := -1
	err = withFaultsAsErrors(func() error {
		var err error
		if snap, err = readState(db); err != nil {
			return err
		}
		if snap != nil {
			if err := snap.validate(); err != nil {
				return err
			}
		}
		// Every page of every bucket was read without fault above, so
		// bbolt's own check walks only pages inside the file. It finds what
		// reading does not: pages both free and in use, which a later write
		// would overwrite.
		return db.View(func(tx *bolt.Tx) error {
			txid = tx.ID()
			var errs []error
			for err := range tx.Check() {
				errs = append(errs, err)
			}
			if len(errs) > 0 {
				return fmt.Errorf("the database is damaged: %w", errors.Join(errs...))
			}
			return nil
		})
	})
	if err != nil {
		return nil, 0, fmt.Errorf("state file %s: %w; fix or remove the file", path, err)
	}
	return snap, txid, nil
}

func fileKind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a device"
	default:
		return "not a regular file (" + mode.Type().String() + ")"
	}
}
