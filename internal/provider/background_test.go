//go:build unix

package provider

import (
	"bytes"
	"os/exec"
	"syscall"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
)

// background is a terraform command running while a test acts on it.
type background struct {
	cmd    *exec.Cmd
	out    *bytes.Buffer // its combined output, to read once it exited
	exited chan struct{}
}

// startBackground starts terraform args in tf's directory, in a process
// group of its own, as a terminal's job or a CI step is; the group is
// killed when the test ends.
func startBackground(t *testing.T, tf *acctest.CLI, args ...string) *background {
	t.Helper()
	cmd := exec.Command(terraformPath(t), append(args, "-no-color")...)
	cmd.Dir, cmd.Env = tf.Dir, tf.Env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	b := &background{cmd: cmd, out: &bytes.Buffer{}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = b.out, b.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(b.exited) }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-b.exited })
	return b
}
