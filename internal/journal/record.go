package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"regexp"
	"strconv"
)

// A journal is a file of lines, one record each: a checksum, a space and
// the record as JSON. The checksum tells a line this package wrote from
// one damaged or written by something else. Only the last line may be cut
// short (a write a killed process did not finish): it was never
// acknowledged, and is left out. A damaged line elsewhere costs only
// itself: the lines around it are checksummed on their own, and what they
// record is used; the ids a damaged line still shows are named
// (OriginDamaged), never taken.

// Record kinds.
const (
	kindHeader    = "journal"   // the first line: the format, and where it was begun
	kindStart     = "start"     // a process's first record: its home and service
	kindSent      = "sent"      // a create's request is about to be written
	kindRefused   = "refused"   // the service answered that attempt 429: nothing made
	kindMade      = "made"      // the service answered a create with this subscription
	kindUnmade    = "unmade"    // a create is known to have made nothing
	kindTaken     = "taken"     // a create took this leftover instead of sending
	kindLooked    = "looked"    // a look at the service for what open creates made
	kindFound     = "found"     // a subscription such a look, or a lost run's, found
	kindUnfound   = "unfound"   // an open create such a look found nothing for
	kindDismissed = "dismissed" // dealt with: by the user, or gone at the service
	kindDamaged   = "damaged"   // ids a damaged line showed, kept when it was compacted away
	kindSize      = "size"      // what one process's state held, kept when compacted
	kindSeen      = "seen"      // the known ids an end's state held, kept when compacted
	kindEnd       = "end"       // a process ended as Terraform ends its providers
)

// formatVersion is the version of the record format this package writes
// and reads; a journal of another version is set aside.
const formatVersion = 2

// record is one line. Which fields are set depends on Kind.
type record struct {
	Kind string `json:"k"`
	// Header: the format, and the salt of the accounts' fingerprints.
	Version int    `json:"v,omitempty"`
	Salt    string `json:"salt,omitempty"`
	// Header and start: the working directory and workspace.
	Dir       string `json:"dir,omitempty"`
	Workspace string `json:"ws,omitempty"`
	// Every record but the header names the process that wrote it, and
	// when (Unix milliseconds).
	Process string `json:"p,omitempty"`
	At      int64  `json:"at,omitempty"`
	// Start.
	PID     int    `json:"pid,omitempty"`
	PPID    int    `json:"ppid,omitempty"`  // the process that started it (Terraform)
	Stamp   string `json:"stamp,omitempty"` // tells the process from a later one of its pid
	Service string `json:"svc,omitempty"`   // the service's base URL
	Account string `json:"acct,omitempty"`  // the token's fingerprint, salted: never the token
	Backend string `json:"be,omitempty"`    // Home.Backend
	// Sent, refused, made, unmade: the create (a number per process) and
	// what it asked for; sent: its request's time limit (ms).
	Create  int    `json:"n,omitempty"`
	Request string `json:"req,omitempty"`
	Within  int64  `json:"within,omitempty"`
	// Found, taken: another request the subscription serves as well.
	Also string `json:"also,omitempty"`
	// Made, taken, found, dismissed: the subscription.
	ID string `json:"id,omitempty"`
	// Looked, found: the look (Group), the creates it was for (Sends,
	// "process:create"), and the service's createdAt (Unix seconds).
	Group   string   `json:"grp,omitempty"`
	Sends   []string `json:"sends,omitempty"`
	Created int64    `json:"created,omitempty"`
	// Made: the service's createdAt (Unix seconds), which places the
	// clock that dates it (ClockSpan).
	// Unfound: the create (Sends, one), its window by the service's clock
	// (Window, Unix seconds from and to), and the clocks the look read
	// (Clocks, ms: the Date header's offset, then, when the create's
	// process had answers, their span's from and to).
	Window []int64 `json:"win,omitempty"`
	Clocks []int64 `json:"clk,omitempty"`
	// Found: the start of the lost run (Unix seconds) whose window it was
	// found in; 0 for a look for open creates.
	LostRun int64 `json:"lost,omitempty"`
	// Dismissed: why.
	Why string `json:"why,omitempty"`
	// Damaged: the ids, the line they were on, and the services still to
	// say they do not have them (absent: every service of the journal);
	// seen: the ids.
	IDs  []string `json:"ids,omitempty"`
	Line int      `json:"line,omitempty"`
	Svcs []string `json:"svcs,omitempty"`
	// End: whether the process saw every subscription its state held
	// (no -target), and applied changes. End and size: the hashes of the
	// ids its state held (Holds), and of those it found gone or removed
	// (Gone), 16 hex digits each.
	Whole   bool   `json:"whole,omitempty"`
	Applied bool   `json:"applied,omitempty"`
	Holds   string `json:"holds,omitempty"`
	Gone    string `json:"gone,omitempty"`
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// encode returns r's line, newline included.
func encode(r record) ([]byte, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(body)+10)
	line = fmt.Appendf(line, "%08x ", crc32.Checksum(body, crcTable))
	line = append(line, body...)
	return append(line, '\n'), nil
}

// decode reads one line, without its newline.
func decode(line []byte) (record, bool) {
	sum, body, ok := bytes.Cut(line, []byte{' '})
	if !ok || len(sum) != 8 {
		return record{}, false
	}
	want, err := strconv.ParseUint(string(sum), 16, 32)
	if err != nil || uint32(want) != crc32.Checksum(body, crcTable) {
		return record{}, false
	}
	var r record
	if err := json.Unmarshal(body, &r); err != nil || r.Kind == "" {
		return record{}, false
	}
	return r, true
}

// Damaged is a line of the journal that is not what this package wrote.
type Damaged struct {
	// Line is its number in the file, from 1.
	Line int
	// IDs are the subscription ids it still shows, if any.
	IDs []string
}

// idInLine finds the ids a damaged line may still show.
var idInLine = regexp.MustCompile(`"id":"([^"\\]{1,200})"`)

// recordStart finds where a record may begin inside a damaged line: a
// line cut short by a crash, with the next process's record glued to it.
var recordStart = regexp.MustCompile(`[0-9a-f]{8} \{`)

// decodeAll reads a journal's bytes: its records in order, the damaged
// lines, and how many bytes end in a line cut short (0 when the last line
// is whole). A record glued after the damage of a line cut short is read.
func decodeAll(data []byte) (records []record, damaged []Damaged, cut int) {
	for n := 1; len(data) > 0; n++ {
		line, rest, complete := bytes.Cut(data, []byte{'\n'})
		if !complete {
			return records, damaged, len(data) // never acknowledged
		}
		data = rest
		if r, ok := decode(line); ok {
			records = append(records, r)
			continue
		}
		if r, ok := gluedRecord(line); ok {
			records = append(records, r)
			continue
		}
		d := Damaged{Line: n}
		for _, m := range idInLine.FindAllSubmatch(line, -1) {
			d.IDs = append(d.IDs, string(m[1]))
		}
		damaged = append(damaged, d)
	}
	return records, damaged, 0
}

// gluedRecord is the whole record at the end of line, after what a crash
// cut short.
func gluedRecord(line []byte) (record, bool) {
	for _, at := range recordStart.FindAllIndex(line, -1) {
		if at[0] == 0 {
			continue
		}
		if r, ok := decode(line[at[0]:]); ok {
			return r, true
		}
	}
	return record{}, false
}
