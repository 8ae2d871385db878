package acctest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// makeBuild writes a stand-in for make test's build of the provider under
// a new directory, modified at modified, and returns the directory.
func makeBuild(t *testing.T, modified time.Time) string {
	t.Helper()
	dir := t.TempDir()
	binary := filepath.Join(dir, "provider", "terraform-provider-mobileplan")
	if err := os.MkdirAll(filepath.Dir(binary), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(binary, []byte("#!/bin/sh\n"), 0o755); err != nil {
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
	dir := makeBuild(t, time.Now().Add(time.Hour))
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

// A build the variable names is refused when it is missing, or older than
// a source file of the module: a variable left set must not run an old
// provider.
func TestMadeBuildDir_refusesAMissingOrOldBuild(t *testing.T) {
	for _, c := range []struct {
		name string
		dir  string
		want string
	}{
		{"missing", t.TempDir(), "holds no build of the provider"},
		{"older than the sources", makeBuild(t, time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)), "holds a build older than "},
	} {
		_, err := madeBuildDir(c.dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: madeBuildDir = %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
