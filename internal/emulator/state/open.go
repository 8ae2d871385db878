package state

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"runtime/debug"

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

// withFaultsAsErrors runs fn with memory faults (reads past the end of a
// mapped file) and panics turned into an error.
func withFaultsAsErrors(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the database is damaged: reading it failed (%v)", r)
		}
	}()
	return fn()
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

// The layout of bbolt's pages (go.etcd.io/bbolt/internal/common, version 2
// of the file format), in the machine's byte order as bbolt writes it.
const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	pageHeaderSize   = 16 // id uint64, flags uint16, count uint16, overflow uint32
	metaSize         = 64 // magic, version, pageSize, flags uint32; root bucket 2×uint64; freelist, pgid, txid, checksum uint64
	branchPageFlag   = 0x01
	leafPageFlag     = 0x02
	freelistPageFlag = 0x10
	noFreelist       = ^uint64(0)
	minPageSize      = 512
	maxPageSize      = 1 << 24
)

var native = binary.NativeEndian

// boltMeta is what checkHeader takes from a meta page.
type boltMeta struct {
	pageSize, root, freelist, pages, txid uint64
	size                                  int64 // of the file
}

// checkHeader finds the meta page bbolt will use (the valid one with the
// higher transaction id, as bbolt chooses) and checks that what it names
// lies inside the file. Errors complete "state file X ...".
func checkHeader(f *os.File) (boltMeta, error) {
	info, err := f.Stat()
	if err != nil {
		return boltMeta{}, err
	}
	size := info.Size()
	var metas []boltMeta
	m0, ok0 := readMeta(f, 0)
	if ok0 {
		metas = append(metas, m0)
		if m1, ok := readMeta(f, int64(m0.pageSize)); ok {
			metas = append(metas, m1)
		}
	} else {
		// The first meta page is damaged: find the second as bbolt does,
		// trying each page size it may have been written with.
		for ps := int64(1024); ps <= maxPageSize && ps < size; ps *= 2 {
			if m1, ok := readMeta(f, ps); ok && int64(m1.pageSize) == ps {
				metas = append(metas, m1)
				break
			}
		}
	}
	if len(metas) == 0 {
		if size < 2*minPageSize {
			return boltMeta{}, fmt.Errorf("is not a state database: it holds %d bytes, too few for a database header", size)
		}
		return boltMeta{}, errors.New("is not a state database, or its header is damaged: neither meta page is valid")
	}
	m := metas[0]
	if len(metas) == 2 && metas[1].txid > m.txid {
		m = metas[1]
	}
	m.size = size
	ps := m.pageSize
	switch {
	case ps < minPageSize || ps > maxPageSize || ps&(ps-1) != 0:
		return m, fmt.Errorf("is damaged: its header gives a page size of %d bytes", ps)
	case m.pages < 4: // bbolt starts a database with four pages
		return m, fmt.Errorf("is damaged: its header counts %d pages, fewer than a database has", m.pages)
	case m.pages > uint64(size)/ps:
		return m, fmt.Errorf("is truncated: its database header says %d pages of %d bytes, %d bytes, but the file holds only %d bytes", m.pages, ps, m.pages*ps, size)
	case m.root < 2 || m.root >= m.pages:
		return m, fmt.Errorf("is damaged: its header puts the root at page %d, outside pages 2 to %d", m.root, m.pages-1)
	case m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.pages):
		return m, fmt.Errorf("is damaged: its header puts the free-page list at page %d, outside pages 2 to %d", m.freelist, m.pages-1)
	}
	return m, nil
}

// readMeta reads the meta page at off and reports whether it is valid:
// magic, version and checksum, as bbolt checks them.
func readMeta(f io.ReaderAt, off int64) (boltMeta, bool) {
	buf := make([]byte, pageHeaderSize+metaSize)
	if _, err := f.ReadAt(buf, off); err != nil {
		return boltMeta{}, false
	}
	b := buf[pageHeaderSize:]
	h := fnv.New64a()
	_, _ = h.Write(b[:56])
	if native.Uint32(b[0:]) != boltMagic || native.Uint32(b[4:]) != boltVersion || native.Uint64(b[56:]) != h.Sum64() {
		return boltMeta{}, false
	}
	return boltMeta{
		pageSize: uint64(native.Uint32(b[8:])),
		root:     native.Uint64(b[16:]),
		freelist: native.Uint64(b[32:]),
		pages:    native.Uint64(b[40:]),
		txid:     native.Uint64(b[48:]),
	}, true
}

// checkPages checks the pages bbolt reads without checking: the root of
// the buckets and the free-page list. Errors complete "state file X ...".
func checkPages(f io.ReaderAt, m boltMeta) error {
	flags, _, overflow, err := readPageHeader(f, m, m.root)
	if err != nil {
		return err
	}
	if flags != branchPageFlag && flags != leafPageFlag {
		return fmt.Errorf("is damaged: page %d, the root of its records, is not a tree page (flags %#x)", m.root, flags)
	}
	if m.root+uint64(overflow) >= m.pages {
		return fmt.Errorf("is damaged: page %d, the root of its records, runs past the last page", m.root)
	}
	if m.freelist == noFreelist {
		return nil
	}
	flags, count, overflow, err := readPageHeader(f, m, m.freelist)
	if err != nil {
		return err
	}
	if flags != freelistPageFlag {
		return fmt.Errorf("is damaged: page %d is not the free-page list its header says it is (flags %#x)", m.freelist, flags)
	}
	span := (uint64(overflow) + 1) * m.pageSize
	entries := uint64(count)
	if count == 0xFFFF { // the real count is the list's first entry
		var n [8]byte
		if _, err := f.ReadAt(n[:], int64(m.freelist*m.pageSize+pageHeaderSize)); err != nil {
			return fmt.Errorf("is truncated: its free-page list cannot be read (%w)", err)
		}
		entries = native.Uint64(n[:]) + 1
	}
	if m.freelist+uint64(overflow) >= m.pages || entries > (span-pageHeaderSize)/8 {
		return fmt.Errorf("is damaged: its free-page list at page %d runs past its pages", m.freelist)
	}
	return nil
}

func readPageHeader(f io.ReaderAt, m boltMeta, id uint64) (flags, count uint16, overflow uint32, err error) {
	var h [pageHeaderSize]byte
	if _, err := f.ReadAt(h[:], int64(id*m.pageSize)); err != nil {
		return 0, 0, 0, fmt.Errorf("is truncated: page %d cannot be read (%w)", id, err)
	}
	if got := native.Uint64(h[0:]); got != id {
		return 0, 0, 0, fmt.Errorf("is damaged: page %d says it is page %d", id, got)
	}
	return native.Uint16(h[8:]), native.Uint16(h[10:]), native.Uint32(h[12:]), nil
}
