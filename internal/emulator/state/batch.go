package state

import (
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// batch is what a change writes to the database: its records, in order,
// and whether every bucket is cleared first. A Tx fills one as it changes
// memory, so the two cannot differ; the committer writes many Txs' batches
// in one bbolt transaction.
type batch struct {
	reset bool     // clear every bucket before writing puts
	puts  []record // written in order
}

type record struct {
	bucket []byte
	key    []byte
	value  []byte
}

// put records v, encoded now (under the store's lock, so it is the value
// as this change left it).
func (b *batch) put(bucket, key []byte, v any) {
	b.puts = append(b.puts, record{bucket, key, encodeRecord(v)})
}

func (b *batch) putMeta(key []byte, v int64) {
	b.puts = append(b.puts, record{bucketMeta, key, formatMeta(v)})
}

// putAll replaces the whole stored state with c.
func (b *batch) putAll(c *content) {
	b.reset = true
	b.puts = append(b.puts, record{bucketMeta, metaFormat, []byte(stateFormat)}, record{bucketMeta, metaCursorKey, c.cursorKey})
	b.putMeta(metaClockOffset, c.clockOffset)
	b.putMeta(metaCustomPlans, int64(c.custom))
	for i, p := range c.plans {
		b.put(bucketPlans, indexKey(int64(i)), p)
	}
	for i, e := range c.esims {
		b.put(bucketEsims, indexKey(int64(i)), e)
	}
	for _, sub := range c.subs {
		b.put(bucketSubs, indexKey(sub.Seq), sub)
	}
}

// empty reports whether the batch writes nothing.
func (b *batch) empty() bool { return len(b.puts) == 0 && !b.reset }

// writeTo writes the batch into a bbolt transaction.
func (b *batch) writeTo(btx *bolt.Tx) error {
	if b.reset {
		for _, name := range allBuckets {
			if err := btx.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
				return err
			}
			if _, err := btx.CreateBucket(name); err != nil {
				return err
			}
		}
	}
	for _, r := range b.puts {
		bucket := btx.Bucket(r.bucket)
		if bucket == nil {
			return fmt.Errorf("bucket %s is missing", r.bucket)
		}
		if err := bucket.Put(r.key, r.value); err != nil {
			return err
		}
	}
	return nil
}
