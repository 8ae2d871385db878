package state

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"sync"

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

// isLegacyJSON reports whether path holds a state file of the JSON format.
func isLegacyJSON(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 64)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	trimmed := bytes.TrimLeft(head[:n], " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{', nil
}

// readState loads every record; nil when the database is new (no meta).
func readState(db *bolt.DB) (*snapshot, error) {
	var snap *snapshot
	err := db.View(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			if tx.Bucket(bucketSubs) != nil || tx.Bucket(bucketEsims) != nil || tx.Bucket(bucketPlans) != nil {
				return errors.New("the meta records are missing")
			}
			return nil // a new file
		}
		if f := meta.Get(metaFormat); string(f) != stateFormat {
			return fmt.Errorf("database format %q is not the one this emulator reads (%q): it was written by another version of the emulator; use that version, or remove the file to start afresh", f, stateFormat)
		}
		snap = &snapshot{Version: snapshotVersion, CursorKey: bytes.Clone(meta.Get(metaCursorKey))}
		var err error
		if snap.ClockOffset, err = metaInt(meta, metaClockOffset); err != nil {
			return err
		}
		custom, err := metaInt(meta, metaCustomPlans)
		if err != nil {
			return err
		}
		snap.CustomPlans = int(custom)
		if snap.Plans, err = readRecords[Plan](tx, bucketPlans); err != nil {
			return err
		}
		if snap.Esims, err = readRecords[Esim](tx, bucketEsims); err != nil {
			return err
		}
		subs, err := readRecords[Subscription](tx, bucketSubs)
		if err != nil {
			return err
		}
		snap.Subscriptions = make([]*Subscription, len(subs))
		for i := range subs {
			snap.Subscriptions[i] = &subs[i]
		}
		return nil
	})
	return snap, err
}

func metaInt(meta *bolt.Bucket, key []byte) (int64, error) {
	raw := meta.Get(key)
	if raw == nil {
		return 0, fmt.Errorf("%s is missing", key)
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", key, err)
	}
	return n, nil
}

// readRecords decodes a bucket whose keys must be 0, 1, 2, ... (plans and
// eSIMs) or 1, 2, 3, ... (subscriptions, keyed by seq): new records are
// written at the next key, so a gap would let one overwrite another.
func readRecords[T any](tx *bolt.Tx, name []byte) ([]T, error) {
	b := tx.Bucket(name)
	if b == nil {
		return nil, fmt.Errorf("the %s records are missing", name)
	}
	first := uint64(0)
	if bytes.Equal(name, bucketSubs) {
		first = 1
	}
	var raw [][]byte // valid until the transaction ends
	err := b.ForEach(func(k, v []byte) error {
		want := first + uint64(len(raw))
		if len(k) != 8 || binary.BigEndian.Uint64(k) != want {
			return fmt.Errorf("%s: record key %x out of sequence, want %d", name, k, want)
		}
		raw = append(raw, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return decodeAll[T](name, raw)
}

// decodeAll decodes records on every core, each worker a contiguous run:
// decoding is most of a restart.
func decodeAll[T any](name []byte, raw [][]byte) ([]T, error) {
	out := make([]T, len(raw))
	workers := min(runtime.GOMAXPROCS(0), max(len(raw)/1024, 1))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			// The records lie in the mapped file: a damaged length reads
			// past its end.
			errs[w] = withFaultsAsErrors(func() error {
				dec := newRecordDecoder()
				for i := w * len(raw) / workers; i < (w+1)*len(raw)/workers; i++ {
					if err := dec.decode(raw[i], &out[i]); err != nil {
						return fmt.Errorf("%s[%d]: %w", name, i, err)
					}
				}
				return nil
			})
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// writeState replaces everything in db with c.
func writeState(db *bolt.DB, c *content) error {
	var b batch
	b.putAll(c)
	return db.Update(b.writeTo)
}

// migrateLegacy turns a JSON state file into a database in place, keeping
// the JSON file next to it.
func migrateLegacy(path string, logger interface{ Printf(string, ...any) }) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var snap snapshot
	if err := json.Unmarshal(raw, &snap); err != nil {
		return fmt.Errorf("state file %s (JSON format): %w; fix or remove the file", path, err)
	}
	if snap.Version != snapshotVersion {
		return fmt.Errorf("state file %s (JSON format): version %d, want %d; remove the file to start afresh", path, snap.Version, snapshotVersion)
	}
	if err := snap.validate(); err != nil {
		return fmt.Errorf("state file %s (JSON format): %w; fix or remove the file", path, err)
	}
	tmp := path + ".migrating"
	_ = os.Remove(tmp)
	db, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: lockWait})
	if err != nil {
		return fmt.Errorf("migrating state file %s: %w", path, err)
	}
	var c content
	snap.loadInto(&c)
	err = writeState(db, &c)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("migrating state file %s: %w", path, err)
	}
	backup := path + ".v1.json"
	if err := os.Rename(path, backup); err != nil {
		return fmt.Errorf("migrating state file %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("migrating state file %s: %w", path, err)
	}
	logger.Printf("state: %s was in the JSON format of earlier versions; migrated it to the database format and kept the old file as %s", path, backup)
	return nil
}
