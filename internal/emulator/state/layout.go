package state

import (
	"encoding/binary"
	"strconv"
	"time"
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
// /3 holds MessagePack arrays (record_encoder.go).
const stateFormat = "mobileplan-emulator-state/3"

// lockWait is how long a start waits for another emulator to release the
// state file before giving up.
const lockWait = 200 * time.Millisecond

func indexKey(i int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }

func formatMeta(v int64) []byte { return []byte(strconv.FormatInt(v, 10)) }
