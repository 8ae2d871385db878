package journal

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// alive reports whether process pid exists and has not exited: a zombie,
// which a container's first process may never reap, is gone.
func alive(pid int) bool {
	state, _, ok := procStat(pid)
	return ok && state != "Z"
}

// stamp tells process pid from a later one that reuses its number: the
// boot it started in and when, in clock ticks after that boot. A journal
// restored into another machine's job names pids that may run there as
// other programs. "" when it cannot be read.
func stamp(pid int) string {
	_, start, ok := procStat(pid)
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if !ok || err != nil {
		return ""
	}
	return strings.TrimSpace(string(boot)) + "/" + start
}

// procStat reads process pid's state and start time from /proc.
func procStat(pid int) (state, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", "", false
	}
	// pid (comm) state ppid ...: comm may hold spaces, so read after the
	// last ')'; starttime is the 22nd field, the 20th after comm.
	fields := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	if len(fields) < 20 {
		return "", "", false
	}
	return string(fields[0]), string(fields[19]), true
}
