// Package releasebuild is how the releases build the provider and the
// emulator (.goreleaser.yml and .goreleaser.emulator.yml, which
// tools/releasecheck holds to it): without cgo, with -trimpath, without
// the symbol table and debug information. The tests, make test-build, the
// scripts and the mirror build what they run this way, so that what they
// run is the binary users run: a cgo build is linked against the C
// library and uses its resolver and start-up.
package releasebuild

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
)

var (
	// Env are the environment variables of the releases' builds.
	Env = []string{"CGO_ENABLED=0"}
	// Flags are their go build flags, but -ldflags.
	Flags = []string{"-trimpath"}
)

// LDFlags is what the releases' -ldflags begin with; the provider's adds
// its version.
const LDFlags = "-s -w"

// Command is `go build` of pkg into out as the releases build, without a
// version: its Dir is the caller's to set.
func Command(out, pkg string) *exec.Cmd {
	args := append(append([]string{"build"}, Flags...), "-ldflags", LDFlags, "-o", out, pkg)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), Env...)
	return cmd
}

// FileDiffers is "" when the Go binary at path was built as the releases
// build, or what differs.
func FileDiffers(path string) string {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("it is not a Go binary whose build can be read (%v)", err)
	}
	return Differs(info)
}

// Differs names each build setting of info that differs from the
// releases', or is "". The -ldflags are not among them: Go does not record
// them in a build made with -trimpath.
func Differs(info *debug.BuildInfo) string {
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var differ []string
	for _, kv := range Env {
		key, want, _ := strings.Cut(kv, "=")
		if got := settings[key]; got != want {
			differ = append(differ, fmt.Sprintf("%s=%q, the release's %s", key, got, want))
		}
	}
	for _, flag := range Flags {
		if settings[flag] != "true" {
			differ = append(differ, "built without "+flag)
		}
	}
	return strings.Join(differ, "; ")
}
