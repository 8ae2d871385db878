package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/releasebuild"
)

var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
	out  []byte
}

// emulatorBinary builds the command once for the tests that run it as a
// process.
func emulatorBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "mobileplan-emulator-test")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "mobileplan-emulator")
		built.out, built.err = releasebuild.Command(built.bin, ".").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("build: %v\n%s", built.err, built.out)
	}
	return built.bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}
