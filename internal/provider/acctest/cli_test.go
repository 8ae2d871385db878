package acctest

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// tinyBuilds are testdata/tiny built as the release builds (ReleaseBuild)
// and as a plain `go build` does, once per test binary.
var tinyBuilds = sync.OnceValues(func() (map[string]string, error) {
	dir, err := os.MkdirTemp("", "acctest-tiny")
	if err != nil {
		return nil, err
	}
	builds := map[string]string{"release": filepath.Join(dir, "release"), "plain": filepath.Join(dir, "plain")}
	release := exec.Command("go", append(append([]string{"build"}, releaseBuildArgs()...), "-o", builds["release"], "./testdata/tiny")...)
	release.Env = append(os.Environ(), ReleaseBuild.Env...)
	plain := exec.Command("go", "build", "-o", builds["plain"], "./testdata/tiny")
	plain.Env = append(os.Environ(), "CGO_ENABLED=1")
	for _, cmd := range []*exec.Cmd{release, plain} {
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%v: %w\n%s", cmd.Args, err, out)
		}
	}
	return builds, nil
})

// makeBuild writes a stand-in for make test's build of the provider under
// a new directory: testdata/tiny built as how says ("release" or
// "plain"), modified at modified. It returns the directory.
func makeBuild(t *testing.T, how string, modified time.Time) string {
	t.Helper()
	builds, err := tinyBuilds()
	if err != nil {
		t.Fatal(err)
	}
	program, err := os.ReadFile(builds[how])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	binary := filepath.Join(dir, "provider", "terraform-provider-mobileplan")
	if err := os.MkdirAll(filepath.Dir(binary), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(binary, program, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(binary, modified, modified); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Under make test, the CLI tests run make test's one build of main.go
// (BuildDirEnv) and build nothing of their own.
func TestProviderBinaryDir_takesMakeTestsBuild(t *testing.T) {
	dir := makeBuild(t, "release", time.Now().Add(time.Hour))
	t.Setenv(BuildDirEnv, dir)
	want, err := filepath.EvalSymlinks(filepath.Join(dir, "provider"))
	if err != nil {
		t.Fatal(err)
	}
	if got := providerBinaryDir(t, ProductBinary); got != want {
		t.Errorf("providerBinaryDir(ProductBinary) = %q, want make test's build %q", got, want)
	}
	if _, built := builds.Load(ProductBinary); built {
		t.Errorf("the provider was built, though make test's build was there")
	}
}

// A build the variable names is refused when it is missing, older than a
// source file of the module (a variable left set must not run an old
// provider), or not made as the release makes it (the tests run the
// binary users run).
func TestMadeBuildDir_refusesAMissingOldOrUnreleasedBuild(t *testing.T) {
	for _, c := range []struct {
		name string
		dir  string
		want string
	}{
		{"missing", t.TempDir(), "holds no build of the provider"},
		{"older than the sources", makeBuild(t, "release", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)), "holds a build older than "},
		{"built with cgo, without -trimpath", makeBuild(t, "plain", time.Now().Add(time.Hour)),
			`not made as the release makes it: CGO_ENABLED="1", the release's 0; built without -trimpath;`},
	} {
		_, err := madeBuildDir(c.dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: madeBuildDir = %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// Each build setting the release fixes is compared, and named when it
// differs; the others (the platform, the compiler) are not the release's
// to fix.
func TestBuildDiffers_namesEachSettingTheReleaseFixes(t *testing.T) {
	for _, row := range []struct {
		rule     string
		settings map[string]string
		want     string
	}{
		{"as the release builds", map[string]string{"CGO_ENABLED": "0", "-trimpath": "true", "GOOS": "linux"}, ""},
		{"with cgo", map[string]string{"CGO_ENABLED": "1", "-trimpath": "true"}, `CGO_ENABLED="1", the release's 0`},
		{"cgo unrecorded", map[string]string{"-trimpath": "true"}, `CGO_ENABLED="", the release's 0`},
		{"without -trimpath", map[string]string{"CGO_ENABLED": "0"}, "built without -trimpath"},
		{"neither", map[string]string{"CGO_ENABLED": "1", "-trimpath": "false"}, `CGO_ENABLED="1", the release's 0; built without -trimpath`},
	} {
		info := &debug.BuildInfo{}
		for _, k := range slices.Sorted(maps.Keys(row.settings)) {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: k, Value: row.settings[k]})
		}
		if got := buildDiffers(info); got != row.want {
			t.Errorf("%s: buildDiffers = %q, want %q", row.rule, got, row.want)
		}
	}
}
