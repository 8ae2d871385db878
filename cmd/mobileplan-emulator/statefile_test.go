//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
)

// A -state file that is truncated, or not a file at all, stops the command
// at once: exit status 1 and one line on stderr that names the file and
// what is wrong, never a Go panic trace, never a hang.
func TestEmulator_refusesBadStateFile(t *testing.T) {
	bin := emulatorBinary(t)
	dir := t.TempDir()

	truncated := filepath.Join(dir, "truncated.db")
	emu, err := emulator.New(emulator.Options{Token: "t", StatePath: truncated})
	if err != nil {
		t.Fatal(err)
	}
	emu.Close()
	info, err := os.Stat(truncated)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(truncated, info.Size()/3); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "state.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}

	for path, want := range map[string]string{truncated: "is truncated", fifo: "is a named pipe (FIFO)", dir: "is a directory"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, bin, "-listen", "127.0.0.1:0", "-token", "t", "-quiet", "-state", path)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
		cancel()
		var exit *exec.ExitError
		switch {
		case timedOut:
			t.Errorf("-state %s: still running after 10 s", path)
		case !errors.As(err, &exit) || exit.ExitCode() != 1:
			t.Errorf("-state %s: %v, want exit status 1", path, err)
		}
		msg := stderr.String()
		if !strings.HasPrefix(msg, "mobileplan-emulator: state file "+path+" "+want) || strings.Count(msg, "\n") != 1 ||
			strings.Contains(msg, "goroutine") || strings.Contains(msg, "panic") {
			t.Errorf("-state %s: stderr %q, want one line naming the file and saying %q", path, msg, want)
		}
	}
}
