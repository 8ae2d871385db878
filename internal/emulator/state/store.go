package state

import (
	"fmt"
	"io"
	"log"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A change is acknowledged only once it is durably stored. Every Update
// runs its function under the store's lock: the Tx's methods change memory
// and record which records they touched and how to take the change back.
// The committer runs waiting updates together and writes their records in
// one bbolt transaction; if the commit fails, every update of the batch is
// undone in reverse order, so memory never keeps what storage refused. The
// lock is held across the commit, so nobody reads a change that may still
// be taken back, and the order in memory is the order on disk. Group
// commit (one fsync for everything that arrived meanwhile) is what keeps
// concurrent writers fast; bbolt's own db.Batch cannot be used because it
// runs its functions outside the store's lock and cannot tell them to undo
// their part of memory.

// Store is the state. One mutex guards it: the emulator is for tests and
// demos, and a single lock makes "no eSIM is ever assigned twice" easy to
// see. The lock is this package's business: nothing outside takes it.
type Store struct {
	mu  sync.Mutex
	now func() time.Time
	content

	db            *bolt.DB // nil: memory only
	path          string
	sequentialIDs bool
	beforeCommit  func() error
	queue         chan *Tx
	closed        chan struct{}
	wg            sync.WaitGroup
	closeOnce     sync.Once
}

// Open builds the state: from the file at opts.Path when it holds one,
// else from opts.Dataset (and then writes it to the file, if any).
func Open(opts Options) (*Store, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = log.New(io.Discard, "", 0)
	}
	s := &Store{now: opts.Now, path: opts.Path, beforeCommit: opts.BeforeCommit, sequentialIDs: opts.SequentialIDs, closed: make(chan struct{})}
	if opts.Path == "" {
		s.load(opts.Dataset.normalized(), nil, 0, 0)
		return s, nil
	}
	db, snap, err := openFile(opts.Path, opts.Logger)
	if err != nil {
		return nil, err
	}
	s.db = db
	if snap != nil {
		snap.loadInto(&s.content)
	} else {
		s.load(opts.Dataset.normalized(), nil, 0, 0)
		if err := writeState(db, &s.content); err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("state file %s: %w", opts.Path, err)
		}
	}
	s.queue = make(chan *Tx)
	s.wg.Add(1)
	go s.commitLoop()
	return s, nil
}

// Close stops committing and releases the file. With a file, updates after
// Close are refused with ErrClosed.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.closed)
		s.wg.Wait()
		if s.db != nil {
			err = s.db.Close()
		}
	})
	return err
}

// View runs fn with read access to the state.
func (s *Store) View(fn func(r *ReadTx)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(&ReadTx{s: &s.content, now: s.now})
}

// Update runs fn as one change: if fn returns an error, or the change
// cannot be stored, whatever fn changed is undone and Update returns that
// error (a storage failure as *StorageError). nil means the change is
// stored. fn runs under the store's lock, perhaps on another goroutine: it
// must not call View or Update, and must not keep tx.
func (s *Store) Update(fn func(tx *Tx) error) error {
	tx := &Tx{ReadTx: ReadTx{s: &s.content, now: s.now}, persist: s.db != nil, sequentialIDs: s.sequentialIDs, fn: fn}
	if s.db == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if tx.err = fn(tx); tx.err != nil {
			tx.rollback()
		}
		return tx.err
	}
	tx.done = make(chan error, 1)
	select {
	case s.queue <- tx:
	case <-s.closed:
		return ErrClosed
	}
	return <-tx.done
}

// maxBatch bounds how many changes share one transaction.
const maxBatch = 512

func (s *Store) commitLoop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.closed:
			return
		case first := <-s.queue:
			batch := []*Tx{first}
		drain:
			for len(batch) < maxBatch {
				select {
				case tx := <-s.queue:
					batch = append(batch, tx)
				default:
					break drain
				}
			}
			s.commit(batch)
		}
	}
}

func (s *Store) commit(batch []*Tx) {
	s.mu.Lock()
	writes := 0
	for _, tx := range batch {
		if tx.err = tx.fn(tx); tx.err != nil {
			tx.rollback()
			continue
		}
		if !tx.writes.empty() {
			writes++
		}
	}
	var err error
	if writes > 0 {
		err = s.db.Update(func(btx *bolt.Tx) error {
			if s.beforeCommit != nil {
				if err := s.beforeCommit(); err != nil {
					return err
				}
			}
			for _, tx := range batch {
				if tx.err == nil {
					if err := tx.writes.writeTo(btx); err != nil {
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
				batch[i].err = &StorageError{err}
			}
		}
	}
	s.mu.Unlock()
	for _, tx := range batch {
		tx.done <- tx.err
	}
}

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
	// SequentialIDs makes subscription ids count up from sub_0000000000000001
	// instead of being random: two stores given the same creates issue the
	// same ids, as two deployments of a real service may.
	SequentialIDs bool
}
