package acctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/releasebuild"
)

// makeBuild writes a stand-in for make test's build of the provider under
// a new directory, modified at modified, and returns the directory: the
// smallest Go program (testdata/tiny), built as our releases build, or
// with cgo when cgo is true. CGO_ENABLED=1 is set outright: go build
// turns cgo off where it finds no C compiler, which tiny does not need.
func makeBuild(t *testing.T, cgo bool, modified time.Time) string {
	t.Helper()
	dir := t.TempDir()
	binary := filepath.Join(dir, "provider", "terraform-provider-mobileplan")
	cmd := releasebuild.Command(binary, "./testdata/tiny")
	if cgo {
		cmd = exec.Command("go", "build", "-o", binary, "./testdata/tiny")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOFLAGS=")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	if err := os.Chtimes(binary, modified, modified); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Under make test, the CLI tests run make test's one build of main.go
// (BuildDirEnv) and build nothing of their own.
func TestProviderBinaryDir_takesMakeTestsBuild(t *testing.T) {
	dir := makeBuild(t, false, time.Now().Add(time.Hour))
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
// provider), or not made as our releases make it (the tests run the
// binary users run).
func TestMadeBuildDir_refusesAMissingOldOrUnreleasedBuild(t *testing.T) {
	for _, c := range []struct {
		name string
		dir  string
		want string
	}{
		{"missing", t.TempDir(), "holds no build of the provider"},
		{"older than the sources", makeBuild(t, false, time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)), "holds a build older than "},
		{"built with cgo, without -trimpath", makeBuild(t, true, time.Now().Add(time.Hour)),
			`not made as the releases make it: CGO_ENABLED="1", the release's 0; built without -trimpath;`},
	} {
		_, err := madeBuildDir(c.dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: madeBuildDir = %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
