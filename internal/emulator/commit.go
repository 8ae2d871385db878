package emulator

import (
	"errors"
	"fmt"
	"sync"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// A change is acknowledged only once it is durably stored. Every operation
// that changes state runs as an op: under the store's lock it changes
// memory and records which stored records it touched and how to take the
// change back. The committer applies waiting ops together and writes their
// records in one bbolt transaction; if the commit fails, every op of the
// batch is undone in reverse order, so memory never keeps what storage
// refused. The lock is held across the commit, so nobody reads a change
// that may still be taken back, and the order in memory is the order on
// disk. Group commit (one fsync for everything that arrived meanwhile) is
// what keeps concurrent writers fast; bbolt's own db.Batch cannot be used
// because it runs its functions outside the store's lock and cannot tell
// them to undo their part of memory.

// change is what one op did: the records to write and how to undo it.
type change struct {
	persist bool     // false without -state: nothing to encode
	reset   bool     // clear every bucket before writing puts
	puts    []record // written in order
	undo    []func() // run in reverse order on failure
	events  []any    // webhook events, sent only after the commit
	op      func(*change) error
	err     error      // the op's refusal, or a storage failure
	done    chan error // the committer's answer
}

type record struct {
	bucket []byte
	key    []byte
	value  []byte
}

func (c *change) onUndo(f func()) { c.undo = append(c.undo, f) }

func (c *change) rollback() {
	for i := len(c.undo) - 1; i >= 0; i-- {
		c.undo[i]()
	}
	c.undo, c.puts, c.events = nil, nil, nil
}

// errStorage wraps a failed commit; handlers answer it with 500.
type errStorage struct{ err error }

func (e *errStorage) Error() string {
	return "the change could not be stored, so it was not made: " + e.err.Error()
}
func (e *errStorage) Unwrap() error { return e.err }

var errClosed = errors.New("the emulator is shut down")

// committer serializes changes and commits them in groups.
type committer struct {
	store *store
	db    *bolt.DB // nil: memory only
	// beforeCommit, when set, runs in each write transaction first; tests
	// use it to make storage fail.
	beforeCommit func() error

	queue  chan *change
	closed chan struct{}
	wg     sync.WaitGroup
	once   sync.Once
}

// maxBatch bounds how many changes share one transaction.
const maxBatch = 512

func newCommitter(s *store, db *bolt.DB) *committer {
	c := &committer{store: s, db: db, queue: make(chan *change), closed: make(chan struct{})}
	if db != nil {
		c.wg.Add(1)
		go c.loop()
	}
	return c
}

// apply runs op as one change and returns its refusal, a storage failure,
// or nil once the change is stored. Events of a stored change are returned
// for delivery.
func (c *committer) apply(op func(ch *change) error) ([]any, error) {
	ch := &change{persist: c.db != nil}
	if c.db == nil {
		c.store.mu.Lock()
		ch.err = op(ch)
		if ch.err != nil {
			ch.rollback()
		}
		c.store.mu.Unlock()
		return ch.events, ch.err
	}
	ch.op = op
	ch.done = make(chan error, 1)
	select {
	case c.queue <- ch:
	case <-c.closed:
		return nil, errClosed
	}
	err := <-ch.done
	return ch.events, err
}

func (c *committer) loop() {
	defer c.wg.Done()
	for {
		select {
		case <-c.closed:
			return
		case first := <-c.queue:
			batch := []*change{first}
		drain:
			for len(batch) < maxBatch {
				select {
				case ch := <-c.queue:
					batch = append(batch, ch)
				default:
					break drain
				}
			}
			c.commit(batch)
		}
	}
}

func (c *committer) commit(batch []*change) {
	s := c.store
	s.mu.Lock()
	writes := 0
	for _, ch := range batch {
		if ch.err = ch.op(ch); ch.err != nil {
			ch.rollback()
			continue
		}
		if len(ch.puts) > 0 || ch.reset {
			writes++
		}
	}
	var err error
	if writes > 0 {
		err = c.db.Update(func(tx *bolt.Tx) error {
			if c.beforeCommit != nil {
				if err := c.beforeCommit(); err != nil {
					return err
				}
			}
			for _, ch := range batch {
				if ch.err == nil {
					if err := writeChange(tx, ch); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	if err != nil {
		for i := len(batch) - 1; i >= 0; i-- {
			if batch[i].err == nil {
				batch[i].rollback()
				batch[i].err = &errStorage{err}
			}
		}
	}
	s.mu.Unlock()
	for _, ch := range batch {
		ch.done <- ch.err
	}
}

func writeChange(tx *bolt.Tx, ch *change) error {
	if ch.reset {
		for _, name := range allBuckets {
			if err := tx.DeleteBucket(name); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
				return err
			}
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
	}
	for _, r := range ch.puts {
		b := tx.Bucket(r.bucket)
		if b == nil {
			return fmt.Errorf("bucket %s is missing", r.bucket)
		}
		if err := b.Put(r.key, r.value); err != nil {
			return err
		}
	}
	return nil
}

func (c *committer) close() {
	c.once.Do(func() {
		close(c.closed)
		c.wg.Wait()
	})
}
