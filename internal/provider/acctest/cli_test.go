package acctest

import (
	"os"
	"path/filepath"
	"testing"
)

// Under make test, the CLI tests run make test's one build of main.go
// (BuildDirEnv) and build nothing of their own.
func TestProviderBinaryDir_takesMakeTestsBuild(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "provider"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "provider", "terraform-provider-mobileplan"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(BuildDirEnv, dir)
	if got, want := providerBinaryDir(t, ProductBinary), filepath.Join(dir, "provider"); got != want {
		t.Errorf("providerBinaryDir(ProductBinary) = %q, want make test's build %q", got, want)
	}
	if _, built := builds.Load(ProductBinary); built {
		t.Errorf("the provider was built, though make test's build was there")
	}
}
