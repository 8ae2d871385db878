package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// The -state file is a bbolt database: one record per plan, eSIM and
// subscription, so a change writes only what it touched, and the file is
// locked while an emulator uses it. bbolt was chosen over SQLite because it
// is pure Go (no cgo in the build), keeps everything in one file with an
// exclusive flock, and commits transactionally with fsync.

var (
	bucketMeta  = []byte("meta")
	bucketPlans = []byte("plans")
	bucketEsims = []byte("esims")
	bucketSubs  = []byte("subscriptions")
	allBuckets  = [][]byte{bucketMeta, bucketPlans, bucketEsims, bucketSubs}

	metaFormat      = []byte("format")
	metaCursorKey   = []byte("cursorKey")
	metaClockOffset = []byte("clockOffset")
	metaCustomPlans = []byte("customPlans")
)

// stateFormat names the layout of the database; a file with another value
// is refused rather than misread. /2 held JSON records (never released);
// /3 holds MessagePack arrays (encodeRecord below).
const stateFormat = "mobileplan-emulator-state/3"

// lockWait is how long a start waits for another emulator to release the
// state file before giving up.
const lockWait = 200 * time.Millisecond

func indexKey(i int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }

func formatMeta(v int64) []byte { return []byte(strconv.FormatInt(v, 10)) }

// Records are MessagePack arrays, one element per field in declaration
// order: decoding them is what a restart spends its time on, and this is
// about four times faster to decode than JSON (no field names to match,
// no text to scan). msgpack/v5 was already in the module graph through
// terraform-plugin-go. A record whose element count differs from its
// struct is refused by the decoder, and TestRecordLayoutPinned makes a
// change of fields bump stateFormat.

type recordEncoder struct {
	buf bytes.Buffer
	enc *msgpack.Encoder
}

var recordEncoders = sync.Pool{New: func() any {
	e := &recordEncoder{}
	e.enc = msgpack.NewEncoder(&e.buf)
	e.enc.UseArrayEncodedStructs(true)
	return e
}}

// encodeRecord returns v as a record; v is a plain struct of strings,
// numbers and pointers to them, which always encodes.
func encodeRecord(v any) []byte {
	e := recordEncoders.Get().(*recordEncoder)
	defer recordEncoders.Put(e)
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.Clone(e.buf.Bytes())
}

var errTrailingBytes = errors.New("trailing bytes after the record")

// recordDecoder decodes records one after another without allocating a
// decoder or reader for each; one per goroutine.
type recordDecoder struct {
	rd  bytes.Reader
	dec *msgpack.Decoder
}

func newRecordDecoder() *recordDecoder {
	return &recordDecoder{dec: msgpack.NewDecoder(nil)}
}

func (d *recordDecoder) decode(raw []byte, v any) error {
	d.rd.Reset(raw)
	d.dec.ResetReader(&d.rd)
	if err := d.dec.Decode(v); err != nil {
		return err
	}
	if d.rd.Len() != 0 {
		return errTrailingBytes
	}
	return nil
}

// What must read bbolt's own page format is here, and only here. bbolt maps a
// database into memory and believes its page numbers: on a truncated or
// damaged file it reads past the end of the file (a fault, which kills the
// process) or panics ("invalid freelist page") before any of its public
// API can say so. So the header (the two meta pages) and the pages it names
// are checked here, against the file's size, before bbolt opens it; what
// bbolt can check itself once open (tx.Check, every record read) is left
// to it (open.go).

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
