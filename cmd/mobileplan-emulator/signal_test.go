package main

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C (SIGINT) and SIGTERM are the normal way to stop the emulator, so
// they end it with exit status 0: `make emulator` then reports no error.
func TestEmulator_stopsCleanlyOnSignal(t *testing.T) {
	bin := emulatorBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(bin, "-listen", "127.0.0.1:0", "-token", "t", "-quiet")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "MOBILEPLAN_BASE_URL=") {
			_ = cmd.Process.Kill()
			t.Fatalf("first line %q, %v", line, err)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("after %v: %v, want exit status 0", sig, err)
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("still running 10 s after %v", sig)
		}
	}
}
