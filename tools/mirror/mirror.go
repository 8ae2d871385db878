package main

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/dirhash"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/releasebuild"
)

// Platform is an os_arch pair as Terraform writes it (linux_amd64), which is
// GOOS_GOARCH.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "_" + p.Arch }

// semver is a version as the mirror protocol's JSON files write it: no "v"
// prefix, all three numbers.
var semver = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

var platformPattern = regexp.MustCompile(`^([a-z0-9]+)_([a-z0-9]+)$`)

// ParsePlatforms reads a space-separated list of os_arch names. Repeats are
// dropped, so that a list built from several sources stays valid.
func ParsePlatforms(s string) ([]Platform, error) {
	var out []Platform
	seen := map[string]bool{}
	for _, f := range strings.Fields(s) {
		m := platformPattern.FindStringSubmatch(f)
		if m == nil {
			return nil, fmt.Errorf("platform %q: want os_arch as Terraform writes it, such as linux_amd64", f)
		}
		if !seen[f] {
			seen[f] = true
			out = append(out, Platform{OS: m[1], Arch: m[2]})
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no platforms given")
	}
	return out, nil
}

// Options describe one mirror run.
type Options struct {
	// Dir is the mirror's root: the directory a static HTTPS server serves.
	Dir string
	// Hostname, Namespace and Type make up the provider's source address;
	// the mirror protocol puts the files under Dir/Hostname/Namespace/Type/.
	Hostname, Namespace, Type string
	Version                   string
	Platforms                 []Platform
	// Build writes the provider binary for one platform to out.
	Build func(ctx context.Context, p Platform, out string) error
	// Log receives one line per archive written; nil discards them.
	Log io.Writer
}

// Archive is one entry of <version>.json: the mirror protocol's
// archives.<os_arch> object.
type Archive struct {
	URL    string   `json:"url"`
	Hashes []string `json:"hashes"`
}

type versionFile struct {
	Archives map[string]Archive `json:"archives"`
}

type indexFile struct {
	Versions map[string]struct{} `json:"versions"`
}

// zipTime is the modification time of every archive entry: a fixed one, so
// that the same binary always gives the same zip.
var zipTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// ProviderDir is where the mirror protocol puts a provider's index.json.
func (o *Options) ProviderDir() string {
	return filepath.Join(o.Dir, o.Hostname, o.Namespace, o.Type)
}

// BinaryName is the file name Terraform runs from an unpacked package.
func (o *Options) BinaryName(p Platform) string {
	name := "terraform-provider-" + o.Type + "_v" + o.Version
	if p.OS == "windows" {
		name += ".exe"
	}
	return name
}

// ArchiveName follows the Terraform Registry's naming, so that the same zips
// could be published there as well.
func (o *Options) ArchiveName(p Platform) string {
	return fmt.Sprintf("terraform-provider-%s_%s_%s.zip", o.Type, o.Version, p)
}

// Write builds every platform and writes its zip, then <version>.json, then
// index.json. That order means a server already serving Dir never lists an
// archive that is not there yet. Archives of other versions stay, and
// index.json lists every version whose <version>.json is present, so one
// directory can carry a team's whole history of builds.
func Write(ctx context.Context, o Options) (map[string]Archive, error) {
	if !semver.MatchString(o.Version) {
		return nil, fmt.Errorf("version %q: want MAJOR.MINOR.PATCH[-PRERELEASE], as Terraform reads versions", o.Version)
	}
	if len(o.Platforms) == 0 {
		return nil, errors.New("no platforms given")
	}
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	dir := o.ProviderDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	scratch, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)

	archives := map[string]Archive{}
	for _, p := range o.Platforms {
		bin := filepath.Join(scratch, o.BinaryName(p))
		if err := o.Build(ctx, p, bin); err != nil {
			return nil, fmt.Errorf("build %s: %w", p, err)
		}
		name := o.ArchiveName(p)
		if err := writeZipFile(filepath.Join(scratch, name), o.BinaryName(p), bin); err != nil {
			return nil, fmt.Errorf("zip %s: %w", p, err)
		}
		// h1: is what Terraform writes to lock files: dirhash's Hash1 of the
		// files inside the archive, not a hash of the zip's bytes.
		h1, err := dirhash.HashZip(filepath.Join(scratch, name), dirhash.Hash1)
		if err != nil {
			return nil, fmt.Errorf("hash %s: %w", name, err)
		}
		archives[p.String()] = Archive{URL: name, Hashes: []string{h1}}
		if err := os.Remove(bin); err != nil {
			return nil, err
		}
	}
	for _, p := range o.Platforms {
		name := o.ArchiveName(p)
		if err := os.Rename(filepath.Join(scratch, name), filepath.Join(dir, name)); err != nil {
			return nil, err
		}
		fmt.Fprintf(logw, "%s  %s\n", archives[p.String()].Hashes[0], filepath.Join(dir, name))
	}

	versionPath := filepath.Join(dir, o.Version+".json")
	stale := previousArchives(versionPath)
	if err := writeJSON(versionPath, versionFile{Archives: archives}); err != nil {
		return nil, err
	}
	// A platform dropped from the list goes from the directory too, so that
	// the directory holds exactly what its JSON files list.
	for _, url := range stale {
		if !listed(archives, url) {
			if err := os.Remove(filepath.Join(dir, url)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
	}
	versions, err := listVersions(dir)
	if err != nil {
		return nil, err
	}
	idx := indexFile{Versions: map[string]struct{}{}}
	for _, v := range versions {
		idx.Versions[v] = struct{}{}
	}
	return archives, writeJSON(filepath.Join(dir, "index.json"), idx)
}

// writeZipFile writes a zip holding one executable, name, with the content of
// src, and nothing that varies between runs: a fixed time and mode, no
// directory entries, no comment.
func writeZipFile(path, name, src string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	return writeZip(out, name, in)
}

func writeZip(w io.Writer, name string, content io.Reader) error {
	zw := zip.NewWriter(w)
	hdr := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: zipTime}
	// Terraform keeps the mode when it unpacks the archive: without the
	// executable bit the provider could not be started on Linux or macOS.
	hdr.SetMode(0o755)
	f, err := zw.CreateHeader(hdr)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, content); err != nil {
		return err
	}
	return zw.Close()
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// previousArchives lists the zips an earlier <version>.json named, or
// nothing when there is none.
func previousArchives(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var vf versionFile
	if json.Unmarshal(b, &vf) != nil {
		return nil
	}
	var urls []string
	for _, a := range vf.Archives {
		// Only plain file names in this directory: never a path that could
		// reach outside it.
		if a.URL == filepath.Base(a.URL) && strings.HasSuffix(a.URL, ".zip") {
			urls = append(urls, a.URL)
		}
	}
	return urls
}

func listed(archives map[string]Archive, url string) bool {
	for _, a := range archives {
		if a.URL == url {
			return true
		}
	}
	return false
}

// listVersions returns the versions that have a <version>.json in dir,
// sorted.
func listVersions(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		v, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() || v == "index" {
			continue
		}
		if semver.MatchString(v) {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out, nil
}

// GoBuild builds the module's main package in moduleDir for a platform, the
// same way on every machine: as the releases build (releasebuild: no cgo,
// no file system paths, no debug information), without a VCS stamp, and
// the version set as the release build sets it. GOFLAGS and the
// per-architecture level variables (GOAMD64, GOARM64, ...) from the
// caller's environment are cleared, since any of them would give different
// binaries from the same commit.
func GoBuild(moduleDir, ver string) func(ctx context.Context, p Platform, out string) error {
	return func(ctx context.Context, p Platform, out string) error {
		args := append(append([]string{"build"}, releasebuild.Flags...), "-buildvcs=false",
			"-ldflags", releasebuild.LDFlags+" -X main.version="+ver, "-o", out, ".")
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = moduleDir
		cmd.Env = append(append(os.Environ(), releasebuild.Env...), "GOOS="+p.OS, "GOARCH="+p.Arch,
			"GOFLAGS=", "GO386=", "GOAMD64=", "GOARM=", "GOARM64=", "GOMIPS=", "GOMIPS64=",
			"GOPPC64=", "GORISCV64=", "GOWASM=")
		if msg, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%w\n%s", err, msg)
		}
		return nil
	}
}

// ReleaseBinaries takes each platform's binary from the release's zip in
// dir (goreleaser's dist/: the same names as ArchiveName), instead of
// building it: a mirror of a release then carries the very binaries the
// release signed, and its h1: hashes are the release's.
func ReleaseBinaries(dir string, o Options) func(ctx context.Context, p Platform, out string) error {
	return func(_ context.Context, p Platform, out string) error {
		zr, err := zip.OpenReader(filepath.Join(dir, o.ArchiveName(p)))
		if err != nil {
			return err
		}
		defer zr.Close()
		want := o.BinaryName(p)
		i := slices.IndexFunc(zr.File, func(f *zip.File) bool { return f.Name == want })
		if i < 0 {
			return fmt.Errorf("%s holds no %s", o.ArchiveName(p), want)
		}
		return extract(zr.File[i], out)
	}
}

// extract writes f's contents to a new executable file at out.
func extract(f *zip.File, out string) error {
	src, err := f.Open()
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		_ = dst.Close()
		return err
	}
	return dst.Close()
}

var changelogHeading = regexp.MustCompile(`(?m)^## ([0-9][0-9.]*[^ \n]*)`)

// ChangelogVersion is the version at the top of CHANGELOG.md, read as the
// GNUmakefile's VERSION reads it for `make install`.
func ChangelogVersion(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	m := changelogHeading.FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("%s: no version heading (## X.Y.Z)", path)
	}
	return string(m[1]), nil
}
