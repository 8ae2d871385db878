package process

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// ParentArgs are the command-line arguments of the process that started
// this one (Terraform), program name first: what Terraform tells its
// providers of neither -target nor -exclude. On Linux they come from
// /proc, elsewhere on Unix from ps (split at spaces, which is enough to
// find an option); on Windows there is no way, and it fails.
func ParentArgs() ([]string, error) {
	ppid := os.Getppid()
	switch runtime.GOOS {
	case "linux":
		b, err := os.ReadFile("/proc/" + strconv.Itoa(ppid) + "/cmdline")
		if err != nil {
			return nil, err
		}
		return strings.Split(string(bytes.TrimRight(b, "\x00")), "\x00"), nil
	case "windows":
		return nil, errors.New("the parent's arguments cannot be read on Windows")
	default:
		out, err := exec.Command("ps", "-o", "args=", "-p", strconv.Itoa(ppid)).Output()
		if err != nil {
			return nil, err
		}
		return strings.Fields(string(out)), nil
	}
}
