package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
)

// A journal is a file of lines, one record each: a checksum, a space and
// the record as JSON. The checksum lets a damaged line be told from a line
// cut short by a crash: only the last line may be cut short (a write the
// process did not finish), and that one is ignored; a bad line anywhere
// else means the file was changed by something other than this package,
// and nothing in it is trusted.

// Record kinds.
const (
	kindHeader  = "journal" // the first line: what the journal belongs to
	kindStart   = "start"   // a process's first record
	kindSent    = "sent"    // a create is about to be sent
	kindCreated = "created" // the service answered a create with this subscription
	kindUnsent  = "unsent"  // a create is known to have created nothing
	kindAdopted = "adopted" // a create took this subscription instead of sending
	kindSeen    = "seen"    // a state held this subscription
	kindEnd     = "end"     // a process ended as Terraform ends its providers
)

// formatVersion is the version of the record format this package writes
// and reads; a header of another version is refused.
const formatVersion = 1

// record is one line. Which fields are set depends on Kind.
type record struct {
	Kind string `json:"k"`
	// Header.
	Version   int    `json:"v,omitempty"`
	Dir       string `json:"dir,omitempty"`
	Workspace string `json:"ws,omitempty"`
	// Every other record names the process that wrote it.
	Process string `json:"p,omitempty"`
	At      int64  `json:"at,omitempty"` // Unix milliseconds
	// Start.
	PID     int    `json:"pid,omitempty"`
	PPID    int    `json:"ppid,omitempty"` // the process that started it (Terraform)
	Service string `json:"svc,omitempty"`  // the service's base URL
	// Sent, created, unsent, adopted: the create (a number per process)
	// and what it asked for.
	Create  int    `json:"n,omitempty"`
	Request string `json:"req,omitempty"`
	// Also is another request the subscription would serve as well: a
	// subscription of a lost run, found at the service, may have been
	// made from either form of its plan.
	Also string `json:"also,omitempty"`
	// Created, adopted, seen: the subscription.
	ID string `json:"id,omitempty"`
	// End.
	Whole   bool `json:"whole,omitempty"`   // the process saw every subscription its state held
	Applied bool `json:"applied,omitempty"` // the process applied changes
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

// errDamaged is a line that is not what encode wrote.
var errDamaged = errors.New("a line does not match its checksum")

// decode reads one line, without its newline.
func decode(line []byte) (record, error) {
	sum, body, ok := bytes.Cut(line, []byte{' '})
	if !ok || len(sum) != 8 {
		return record{}, errDamaged
	}
	want, err := strconv.ParseUint(string(sum), 16, 32)
	if err != nil || uint32(want) != crc32.Checksum(body, crcTable) {
		return record{}, errDamaged
	}
	var r record
	if err := json.Unmarshal(body, &r); err != nil || r.Kind == "" {
		return record{}, errDamaged
	}
	return r, nil
}

// decodeAll reads a journal's bytes. A last line without its newline was
// cut short and is left out; any other line that fails its checksum
// fails the whole.
func decodeAll(data []byte) ([]record, error) {
	var out []record
	for len(data) > 0 {
		line, rest, complete := bytes.Cut(data, []byte{'\n'})
		if !complete {
			break // cut short by a crash mid-write: never acknowledged
		}
		r, err := decode(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", len(out)+1, err)
		}
		out = append(out, r)
		data = rest
	}
	return out, nil
}
