package process

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
)

// brokenPipeChild, set, makes this test binary the process under test:
// it ignores broken pipes or not ("ignore", "default"), waits until its
// parent has closed the reading end of its stderr, writes a log line to
// it, and exits 0 if it is still alive.
const brokenPipeChild = "MOBILEPLAN_TEST_BROKEN_PIPE_CHILD"

// A provider whose Terraform is gone survives its next log line, and so
// goes on to finish and record the creates it holds; without
// ignoreBrokenPipes the line ends it with SIGPIPE, as the second row shows.
func TestLogLineAfterTerraformIsGoneIsNotFatal(t *testing.T) {
	if mode := os.Getenv(brokenPipeChild); mode != "" {
		if mode == "ignore" {
			ignoreBrokenPipes()
		}
		var b [1]byte
		_, _ = os.Stdin.Read(b[:]) // the parent closed our stderr's reader
		fmt.Fprintln(os.Stderr, "a log line no one reads")
		os.Exit(0)
	}
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no SIGPIPE")
	}
	t.Parallel()
	for _, row := range []struct {
		mode      string
		wantAlive bool
	}{
		{mode: "ignore", wantAlive: true},
		{mode: "default", wantAlive: false},
	} {
		t.Run(row.mode, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestLogLineAfterTerraformIsGoneIsNotFatal$")
			cmd.Env = append(os.Environ(), brokenPipeChild+"="+row.mode)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stderr.Close() // Terraform is gone: no one reads the provider's stderr
			stdin.Close()  // the child may write now
			err = cmd.Wait()
			var exit *exec.ExitError
			signalled := errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGPIPE
			switch {
			case row.wantAlive && err != nil:
				t.Errorf("the process did not survive its log line: %v", err)
			case !row.wantAlive && !signalled:
				t.Errorf("the control process was not ended by SIGPIPE (%v): the test would not see the difference", err)
			}
		})
	}
}
