package journal

import (
	"bytes"
	"os"
	"strconv"
)

// alive reports whether process pid exists and has not exited: a zombie,
// which a container's first process may never reap, is gone.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces, so read after the last ')'.
	rest := b[bytes.LastIndexByte(b, ')')+1:]
	fields := bytes.Fields(rest)
	return len(fields) > 0 && string(fields[0]) != "Z"
}
