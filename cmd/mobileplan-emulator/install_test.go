package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// The docs tell users to install the emulator with `go install
// MODULE/cmd/mobileplan-emulator@vX.Y.Z`. This publishes the committed
// tree (HEAD, as a tag would) as a version of the module on a proxy in a
// directory, and installs the command from it as a user would, with the
// module's dependencies taken from the local module cache. A replace or
// exclude directive in go.mod, which `go install pkg@version` refuses, or a
// command that builds only inside the repository, fails here.
func TestGoInstall_fromATaggedVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the emulator from a module zip")
	}
	t.Parallel()
	root := strings.TrimSpace(goOutput(t, "", nil, "rev-parse", "--show-toplevel"))
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.Parse("go.mod", gomod, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(mf.Replace) > 0 || len(mf.Exclude) > 0 {
		t.Fatalf("go.mod has %d replace and %d exclude directives: `go install %s/cmd/mobileplan-emulator@VERSION` refuses a module with either",
			len(mf.Replace), len(mf.Exclude), mf.Module.Mod.Path)
	}

	// A version no tag will take, so the installed module is this tree.
	version := module.Version{Path: mf.Module.Mod.Path, Version: "v0.999.0"}
	tmp := t.TempDir()
	escaped, err := module.EscapePath(version.Path)
	if err != nil {
		t.Fatal(err)
	}
	versions := filepath.Join(tmp, "proxy", escaped, "@v")
	if err := os.MkdirAll(versions, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(versions, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	info, _ := json.Marshal(map[string]string{"Version": version.Version, "Time": "2026-01-01T00:00:00Z"})
	write("list", []byte(version.Version+"\n"))
	write(version.Version+".info", info)
	write(version.Version+".mod", gomod)
	// The committed tree, as `git archive` gives it: what a tag holds.
	src := filepath.Join(tmp, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(tmp, "head.tar")
	goOutput(t, "", nil, "-C", root, "archive", "-o", archive, "HEAD")
	goOutput(t, "tar", nil, "-xf", archive, "-C", src)
	var z bytes.Buffer
	if err := zip.CreateFromDir(&z, version, src); err != nil {
		t.Fatalf("module zip of HEAD: %v", err)
	}
	write(version.Version+".zip", z.Bytes())

	cache := strings.TrimSpace(goOutput(t, "go", nil, "env", "GOMODCACHE"))
	gobin := filepath.Join(tmp, "bin")
	env := []string{
		// This module from the directory; every other one from the
		// module cache's downloads, laid out as a proxy: no network.
		"GOPROXY=file://" + filepath.ToSlash(filepath.Join(tmp, "proxy")) + ",file://" + filepath.ToSlash(filepath.Join(cache, "cache", "download")),
		// Those came through the checksum database when they were
		// downloaded; this version was never published to it.
		"GOSUMDB=off", "GOFLAGS=-modcacherw", "GOWORK=off", "GOTOOLCHAIN=local",
		"GOMODCACHE=" + filepath.Join(tmp, "modcache"), "GOBIN=" + gobin,
	}
	goOutput(t, "go", env, "install", version.Path+"/cmd/mobileplan-emulator@"+version.Version)
	out, err := exec.Command(filepath.Join(gobin, "mobileplan-emulator"), "-h").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Usage of mobileplan-emulator") {
		t.Fatalf("the installed emulator's -h: %v\n%s", err, out)
	}
}

// goOutput runs a command (git, for name "", in this directory; any other
// in a directory of its own) with env added, and fails the test unless it
// succeeds.
func goOutput(t *testing.T, name string, env []string, args ...string) string {
	t.Helper()
	if name == "" {
		name = "git"
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = t.TempDir()
	if name == "git" {
		cmd.Dir = "."
	}
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}
