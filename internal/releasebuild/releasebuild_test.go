package releasebuild

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// Each build setting the releases fix is compared, and named when it
// differs; the others (the platform, the compiler) are not theirs to fix.
func TestDiffers_namesEachSettingTheReleasesFix(t *testing.T) {
	for _, row := range []struct {
		rule     string
		settings []debug.BuildSetting
		want     string
	}{
		{"as the releases build", []debug.BuildSetting{{Key: "CGO_ENABLED", Value: "0"}, {Key: "-trimpath", Value: "true"}, {Key: "GOOS", Value: "linux"}}, ""},
		{"with cgo", []debug.BuildSetting{{Key: "CGO_ENABLED", Value: "1"}, {Key: "-trimpath", Value: "true"}}, `CGO_ENABLED="1", the release's 0`},
		{"cgo unrecorded", []debug.BuildSetting{{Key: "-trimpath", Value: "true"}}, `CGO_ENABLED="", the release's 0`},
		{"without -trimpath", []debug.BuildSetting{{Key: "CGO_ENABLED", Value: "0"}}, "built without -trimpath"},
		{"neither", []debug.BuildSetting{{Key: "CGO_ENABLED", Value: "1"}, {Key: "-trimpath", Value: "false"}}, `CGO_ENABLED="1", the release's 0; built without -trimpath`},
	} {
		if got := Differs(&debug.BuildInfo{Settings: row.settings}); got != row.want {
			t.Errorf("%s: Differs = %q, want %q", row.rule, got, row.want)
		}
	}
}

// A file whose build cannot be read is no release build, and says so.
func TestFileDiffers_aFileThatIsNoGoBinary(t *testing.T) {
	script := filepath.Join(t.TempDir(), "terraform-provider-mobileplan")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := FileDiffers(script); !strings.HasPrefix(got, "it is not a Go binary") {
		t.Errorf("FileDiffers(a shell script) = %q, want it to say it is not a Go binary", got)
	}
}
