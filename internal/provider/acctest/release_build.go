package acctest

import (
	"debug/buildinfo"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
)

// ReleaseBuild is how the releases build the provider and the emulator
// (.goreleaser.yml and .goreleaser.emulator.yml, which a test of this
// package holds to it), and so how the tests, make test-build and the
// scripts build what they run: without cgo, with -trimpath, without the
// symbol table and debug information. A binary built otherwise is not the
// one users run: with cgo it is linked against the C library, whose
// resolver and start-up it then uses, and each of the CLI tests' provider
// processes pays the dynamic loader's start-up (a few percent of their
// CPU).
var ReleaseBuild = struct {
	Env     []string // the environment variables of the build
	Flags   []string // the go build flags, but -ldflags
	LDFlags string   // what -ldflags begins with: the release adds its version
}{
	Env:     []string{"CGO_ENABLED=0"},
	Flags:   []string{"-trimpath"},
	LDFlags: "-s -w",
}

// releaseBuildArgs are the arguments of `go build` that build as the
// release does, but for the version it stamps.
func releaseBuildArgs() []string {
	return append(slices.Clone(ReleaseBuild.Flags), "-ldflags", ReleaseBuild.LDFlags)
}

// notBuiltAsReleased is "" when the Go binary at path was built as
// ReleaseBuild says, or what differs.
func notBuiltAsReleased(path string) string {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("it is not a Go binary whose build can be read (%v)", err)
	}
	return buildDiffers(info)
}

// buildDiffers names each build setting of info that differs from
// ReleaseBuild's, or is "". The -ldflags are not among them: Go does not
// record them in a build made with -trimpath.
func buildDiffers(info *debug.BuildInfo) string {
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var differ []string
	for _, kv := range ReleaseBuild.Env {
		key, want, _ := strings.Cut(kv, "=")
		if got := settings[key]; got != want {
			differ = append(differ, fmt.Sprintf("%s=%q, the release's %s", key, got, want))
		}
	}
	for _, flag := range ReleaseBuild.Flags {
		if settings[flag] != "true" {
			differ = append(differ, "built without "+flag)
		}
	}
	return strings.Join(differ, "; ")
}
