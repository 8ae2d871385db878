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
)

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
