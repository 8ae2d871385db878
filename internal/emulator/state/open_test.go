package state

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// In the database layout, gaps in record keys, a foreign format, missing
// parts and inconsistent records are refused with the problem named.
func TestStateDatabaseInconsistentRefused(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		edit func(tx *bolt.Tx) error
		want string
	}{
		"gap in subscription keys": {func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketSubs)
			v := b.Get(indexKey(2))
			if err := b.Delete(indexKey(2)); err != nil {
				return err
			}
			return b.Put(indexKey(9), v)
		}, "out of sequence"},
		"foreign format": {func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(metaFormat, []byte("other/1")) }, "format"},
		// The JSON records of the unreleased /2 layout are not misread.
		"earlier format": {func(tx *bolt.Tx) error {
			return tx.Bucket(bucketMeta).Put(metaFormat, []byte("mobileplan-emulator-state/2"))
		}, `database format "mobileplan-emulator-state/2" is not the one this emulator reads`},
		"record of the wrong layout": {func(tx *bolt.Tx) error {
			return tx.Bucket(bucketEsims).Put(indexKey(1), encodeRecord(&Plan{ID: "p"}))
		}, "esims[1]"},
		"trailing bytes": {func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketSubs)
			return b.Put(indexKey(1), append(bytes.Clone(b.Get(indexKey(1))), 0))
		}, "subscriptions[0]: trailing bytes"},
		"JSON record": {func(tx *bolt.Tx) error {
			return tx.Bucket(bucketPlans).Put(indexKey(0), []byte(`{"id":"p"}`))
		}, "plans[0]"},
		"no clock offset": {func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Delete(metaClockOffset) }, "clockOffset"},
		"no eSIM records": {func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketEsims) }, "esims"},
		"no meta records": {func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketMeta) }, "meta"},
		"broken record":   {func(tx *bolt.Tx) error { return tx.Bucket(bucketEsims).Put(indexKey(0), []byte("{")) }, "esims[0]"},
		"two subscriptions on one eSIM": {func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketSubs)
			var sub Subscription
			if err := newRecordDecoder().decode(b.Get(indexKey(2)), &sub); err != nil {
				return err
			}
			sub.EsimICCID = ICCID(1)
			return b.Put(indexKey(2), encodeRecord(&sub))
		}, "already has subscription"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "state")
			raw, err := os.ReadFile("testdata/valid-state.json")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, raw, 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := Open(Options{Path: path}) // migrates
			if err != nil {
				t.Fatal(err)
			}
			_ = s.Close()
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Update(c.edit); err != nil {
				t.Fatal(err)
			}
			_ = db.Close()
			s, err = Open(Options{Path: path})
			if err == nil {
				_ = s.Close()
				t.Fatal("Open accepted the state")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not name %q", err, c.want)
			}
		})
	}
}
