package main

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/dirhash"
)

// fakeBuild stands in for the Go build: the layout, the zips and the hashes
// do not depend on what the binary is, and a real build of several
// platforms takes minutes. The network test builds for real.
func fakeBuild(_ context.Context, p Platform, out string) error {
	return os.WriteFile(out, []byte("provider binary for "+p.String()), 0o755)
}

func testOptions(dir, ver, platforms string) Options {
	ps, err := ParsePlatforms(platforms)
	if err != nil {
		panic(err)
	}
	return Options{Dir: dir, Hostname: "registry.terraform.io", Namespace: "mobileplan", Type: "mobileplan",
		Version: ver, Platforms: ps, Build: fakeBuild}
}

func TestWriteLayout(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(dir, "1.2.3", "linux_amd64 windows_arm64")
	if _, err := Write(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	pdir := filepath.Join(dir, "registry.terraform.io", "mobileplan", "mobileplan")

	wantIndex := "{\n  \"versions\": {\n    \"1.2.3\": {}\n  }\n}\n"
	if got := readFile(t, filepath.Join(pdir, "index.json")); got != wantIndex {
		t.Errorf("index.json:\n%s\nwant:\n%s", got, wantIndex)
	}
	var vf versionFile
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(pdir, "1.2.3.json"))), &vf); err != nil {
		t.Fatal(err)
	}
	if got := sortedKeys(vf.Archives); !reflect.DeepEqual(got, []string{"linux_amd64", "windows_arm64"}) {
		t.Fatalf("archives for %v", got)
	}
	for platform, binary := range map[string]string{
		"linux_amd64":   "terraform-provider-mobileplan_v1.2.3",
		"windows_arm64": "terraform-provider-mobileplan_v1.2.3.exe",
	} {
		a := vf.Archives[platform]
		if want := "terraform-provider-mobileplan_1.2.3_" + platform + ".zip"; a.URL != want {
			t.Errorf("%s: url %q, want %q", platform, a.URL, want)
		}
		f, content := onlyEntry(t, filepath.Join(pdir, a.URL))
		if f.Name != binary || f.Mode() != 0o755 || !f.Modified.Equal(zipTime) {
			t.Errorf("%s: entry %s, mode %v, time %v; want %s, -rwxr-xr-x, %v", a.URL, f.Name, f.Mode(), f.Modified, binary, zipTime)
		}
		// Terraform hashes an installed package as the directory it unpacked:
		// the mirror's hash must be that one, computed here from an unpacked
		// copy rather than from the zip.
		unpacked := t.TempDir()
		if string(content) != "provider binary for "+platform {
			t.Errorf("%s holds %q", a.URL, content)
		}
		if err := os.WriteFile(filepath.Join(unpacked, f.Name), content, 0o755); err != nil {
			t.Fatal(err)
		}
		want, err := dirhash.HashDir(unpacked, "", dirhash.Hash1)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.Hashes, []string{want}) {
			t.Errorf("%s: hashes %v, want [%s]", platform, a.Hashes, want)
		}
	}
	if leftover, _ := filepath.Glob(filepath.Join(pdir, ".*")); len(leftover) > 0 {
		t.Errorf("scratch files left in the mirror: %v", leftover)
	}

	// The same binaries in another directory give the same bytes, zips
	// included: nothing of the time or the place of the run gets in.
	again := t.TempDir()
	o.Dir = again
	if _, err := Write(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if a, b := treeContents(t, dir), treeContents(t, again); !reflect.DeepEqual(a, b) {
		t.Errorf("two runs differ:\n%v\n%v", sortedKeys(a), sortedKeys(b))
	}
}

func TestWriteKeepsOtherVersions(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	pdir := filepath.Join(dir, "registry.terraform.io", "mobileplan", "mobileplan")
	if _, err := Write(ctx, testOptions(dir, "1.0.0", "linux_amd64 darwin_arm64")); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(ctx, testOptions(dir, "1.1.0", "linux_amd64 darwin_arm64")); err != nil {
		t.Fatal(err)
	}
	// Built again for fewer platforms: the dropped archive goes, the other
	// version stays untouched.
	if _, err := Write(ctx, testOptions(dir, "1.1.0", "linux_amd64")); err != nil {
		t.Fatal(err)
	}
	var idx indexFile
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(pdir, "index.json"))), &idx); err != nil {
		t.Fatal(err)
	}
	if got := sortedKeys(idx.Versions); !reflect.DeepEqual(got, []string{"1.0.0", "1.1.0"}) {
		t.Errorf("index.json versions %v", got)
	}
	want := []string{
		"1.0.0.json", "1.1.0.json", "index.json",
		"terraform-provider-mobileplan_1.0.0_darwin_arm64.zip",
		"terraform-provider-mobileplan_1.0.0_linux_amd64.zip",
		"terraform-provider-mobileplan_1.1.0_linux_amd64.zip",
	}
	if got := sortedKeys(treeContents(t, pdir)); !reflect.DeepEqual(got, want) {
		t.Errorf("files %v\nwant %v", got, want)
	}
}

func TestWriteBuildFailureLeavesMirror(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if _, err := Write(ctx, testOptions(dir, "1.0.0", "linux_amd64")); err != nil {
		t.Fatal(err)
	}
	before := treeContents(t, dir)
	o := testOptions(dir, "1.0.0", "linux_amd64 plan9_mips")
	o.Build = func(ctx context.Context, p Platform, out string) error {
		if p.OS == "plan9" {
			return errors.New("unsupported GOOS/GOARCH pair plan9/mips")
		}
		return os.WriteFile(out, []byte("a different build"), 0o755)
	}
	_, err := Write(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "build plan9_mips") {
		t.Fatalf("err = %v, want the failed platform named", err)
	}
	if after := treeContents(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("a failed run changed the mirror: %v", sortedKeys(after))
	}
}

func TestWriteRefusesBadVersion(t *testing.T) {
	o := testOptions(t.TempDir(), "v1", "linux_amd64")
	if _, err := Write(context.Background(), o); err == nil {
		t.Fatal("a version Terraform cannot parse was accepted")
	}
}

func TestParsePlatforms(t *testing.T) {
	got, err := ParsePlatforms(" linux_amd64\tdarwin_arm64 linux_amd64 ")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Platform{{"linux", "amd64"}, {"darwin", "arm64"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"", "linux-amd64", "linux", "Linux_amd64", "linux_amd64_v2", "../x_y"} {
		if _, err := ParsePlatforms(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestChangelogVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "CHANGELOG.md")
	text := "# Changelog\n\nSome words.\n\n## 0.2.0-rc.1 (Unreleased)\n\n* x\n\n## 0.1.0 (January 1, 2026)\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ChangelogVersion(path); err != nil || got != "0.2.0-rc.1" {
		t.Errorf("got %q, %v", got, err)
	}
}

// onlyEntry reads the one file of a mirror archive, failing unless there is
// exactly one.
func onlyEntry(t *testing.T, path string) (zip.FileHeader, []byte) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != 1 {
		t.Fatalf("%s: %d entries, want only the binary", path, len(zr.File))
	}
	rc, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	content, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return zr.File[0].FileHeader, content
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// treeContents maps each file under dir, by its slash path, to its content.
func treeContents(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// A mirror of a release carries the release's binaries: the same h1:
// hashes as a mirror of the build that made them, and an error naming the
// zip that lacks a platform.
func TestReleaseBinaries(t *testing.T) {
	built := testOptions(t.TempDir(), "1.2.3", "linux_amd64 windows_arm64")
	want, err := Write(context.Background(), built)
	if err != nil {
		t.Fatal(err)
	}
	o := testOptions(t.TempDir(), "1.2.3", "linux_amd64 windows_arm64")
	o.Build = ReleaseBinaries(built.ProviderDir(), o)
	got, err := Write(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mirror of the release: %v, want the build's %v", got, want)
	}
	o = testOptions(t.TempDir(), "1.2.3", "darwin_arm64")
	o.Build = ReleaseBinaries(built.ProviderDir(), o)
	if _, err := Write(context.Background(), o); err == nil || !strings.Contains(err.Error(), "terraform-provider-mobileplan_1.2.3_darwin_arm64.zip") {
		t.Errorf("a platform the release lacks: %v, want an error naming its zip", err)
	}
}
