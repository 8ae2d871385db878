package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/dirhash"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/testcert"
)

// TestNetworkMirror is the route of a team's CI runner: the provider built
// into a network mirror, that mirror served over HTTPS by a plain static
// file server, and a CLI configuration holding nothing but a network_mirror
// block. Plain `terraform init` installs from it, `terraform providers lock`
// records a hash per platform, apply and plan work, and a package changed
// on the mirror is refused because of the lock file.
//
// It builds the host platform for real and adds one other (the lock step
// needs an archive for each platform it locks, and two show that each gets
// a hash of its own). The CLI only hashes the other platform's archive, so
// by default that holds a stand-in: a cross build costs more than a
// CPU-minute on a cold cache, twice in `make test` (once per CLI), and the
// release builds every platform for real (`make ci-check` and the hosted
// CI). MIRROR_TEST_PLATFORMS replaces the other platform and builds every
// one it names.
func TestNetworkMirror(t *testing.T) {
	skipUnlessCLIRuns(t, "terraform")
	started := time.Now()
	cli := terraformCLI(t)
	ver, err := ChangelogVersion("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	host := Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}
	platforms := testPlatforms(t, host)
	tmp := t.TempDir()

	build := GoBuild("../..", ver)
	if os.Getenv("MIRROR_TEST_PLATFORMS") == "" {
		build = buildHostOnly(host, build)
	}
	o := Options{
		Dir: filepath.Join(tmp, "mirror"), Hostname: "registry.terraform.io", Namespace: "mobileplan", Type: "mobileplan",
		Version: ver, Platforms: platforms, Build: build,
	}
	archives, err := Write(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	built := time.Now()

	srv, caFile := serveTLS(t, o.Dir, tmp)
	mirrorURL := srv.URL + "/"
	emu := emulatortest.Start(t, emulator.Options{})

	rc := filepath.Join(tmp, "mirror.tfrc")
	writeTestFile(t, rc, fmt.Sprintf("provider_installation {\n  network_mirror {\n    url = %q\n  }\n}\n", mirrorURL))
	env, trusting := sandbox(t, tmp, rc, emu, caFile, "control")

	source := "mobileplan/mobileplan"
	if cli.openTofu {
		// OpenTofu reads a bare source as registry.opentofu.org/...; the
		// mirror serves the provider under registry.terraform.io.
		source = "registry.terraform.io/mobileplan/mobileplan"
	}
	work := filepath.Join(tmp, "work")
	mainTF := subscriptionConfig(source, versionConstraint(ver)) + `
output "subscription_id" {
  value = mobileplan_subscription.phone.id
}
`
	writeTestFile(t, filepath.Join(work, "main.tf"), mainTF)
	lockFile := filepath.Join(work, ".terraform.lock.hcl")

	// The certificate is the test's own: without it, the CLI refuses the
	// mirror, so the runs below really verify the server.
	if out, err := cli.run(work, env, "init", "-input=false", "-no-color"); err == nil || !says(out, "certificate") {
		t.Fatalf("init without SSL_CERT_FILE: err %v, want a certificate error; output:\n%s", err, out)
	}
	if err := os.RemoveAll(filepath.Join(work, ".terraform")); err != nil {
		t.Fatal(err)
	}

	if out, err := cli.run(work, trusting, "init", "-input=false", "-no-color"); err != nil {
		t.Fatalf("init from the mirror: %v\n%s", err, out)
	}
	// Terraform hashes the package it unpacked; it must be the hash the
	// mirror published for this platform.
	hostHash := archives[host.String()].Hashes[0]
	if got := lockHashes(t, lockFile); !slices.Equal(got, []string{hostHash}) {
		t.Fatalf("lock file after init has %v, want the host's %s from %s.json", got, hostHash, ver)
	}
	if n := srv.downloads(o.ArchiveName(host)); n != 1 {
		t.Errorf("init downloaded %s %d times, want once", o.ArchiveName(host), n)
	}

	lockArgs := []string{"providers", "lock", "-net-mirror=" + mirrorURL}
	var want []string
	for _, p := range platforms {
		lockArgs = append(lockArgs, "-platform="+p.String())
		want = append(want, archives[p.String()].Hashes[0])
	}
	slices.Sort(want)
	if out, err := cli.run(work, trusting, lockArgs...); err != nil {
		t.Fatalf("providers lock: %v\n%s", err, out)
	}
	if got := lockHashes(t, lockFile); !slices.Equal(got, want) || len(slices.Compact(slices.Clone(want))) != len(platforms) {
		t.Fatalf("lock file after providers lock has %v, want one distinct hash per platform %v: %v", got, platforms, want)
	}
	locked := time.Now()

	if out, err := cli.run(work, trusting, "apply", "-auto-approve", "-input=false", "-no-color"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if out, err := cli.run(work, trusting, "output", "-raw", "subscription_id"); err != nil || !strings.HasPrefix(out, "sub_") {
		t.Fatalf("output subscription_id = %q, %v", out, err)
	}
	if out, err := cli.run(work, trusting, "plan", "-input=false", "-detailed-exitcode", "-no-color"); err != nil {
		t.Fatalf("plan after apply is not empty (exit 2 means changes): %v\n%s", err, out)
	}
	applied := time.Now()

	// The mirror now serves a package with one byte changed, and its
	// <version>.json vouches for it, as a compromised mirror would: only the
	// hashes committed in the lock file stand in the way.
	tampered := tamper(t, o, host)
	if err := os.RemoveAll(filepath.Join(work, ".terraform")); err != nil {
		t.Fatal(err)
	}
	out, err := cli.run(work, trusting, "init", "-input=false", "-no-color")
	if err == nil || !says(out, "checksums previously recorded in the dependency lock file") {
		t.Fatalf("init of the tampered package: err %v, want a refusal citing the lock file; output:\n%s", err, out)
	}
	// The same mirror with no lock file installs it, so it was the lock file
	// that refused it and not a broken archive.
	control := filepath.Join(tmp, "control")
	writeTestFile(t, filepath.Join(control, "main.tf"), mainTF)
	if out, err := cli.run(control, trusting, "init", "-input=false", "-no-color"); err != nil {
		t.Fatalf("init of the tampered package with no lock file: %v\n%s", err, out)
	}
	if got := lockHashes(t, filepath.Join(control, ".terraform.lock.hcl")); !slices.Equal(got, []string{tampered}) {
		t.Fatalf("control lock file has %v, want the tampered package's %s", got, tampered)
	}

	t.Logf("%s, %s, platforms %v: build %s, init and lock %s, apply and plan %s, tampering %s; total %s",
		cli.name, ver, platforms, built.Sub(started).Round(time.Millisecond), locked.Sub(built).Round(time.Millisecond),
		applied.Sub(locked).Round(time.Millisecond), time.Since(applied).Round(time.Millisecond),
		time.Since(started).Round(time.Millisecond))
}

// testPlatforms is the host and one other, or the host and
// MIRROR_TEST_PLATFORMS.
// buildHostOnly builds the host's binary with build, and writes a stand-in
// for any other platform: its archive is hashed by the CLI, never run.
func buildHostOnly(host Platform, build func(context.Context, Platform, string) error) func(context.Context, Platform, string) error {
	return func(ctx context.Context, p Platform, out string) error {
		if p == host {
			return build(ctx, p, out)
		}
		return os.WriteFile(out, []byte("stand-in for the provider on "+p.String()+": hashed by the lock step, never run"), 0o755)
	}
}

func testPlatforms(t *testing.T, host Platform) []Platform {
	others := os.Getenv("MIRROR_TEST_PLATFORMS")
	if others == "" {
		others = "darwin_arm64 windows_amd64 linux_arm64"
	}
	ps, err := ParsePlatforms(host.String() + " " + others)
	if err != nil {
		t.Fatalf("MIRROR_TEST_PLATFORMS: %v", err)
	}
	if os.Getenv("MIRROR_TEST_PLATFORMS") == "" {
		ps = ps[:2]
	}
	return ps
}

// versionConstraint is what a configuration would write: a pessimistic
// constraint, or the exact version for a pre-release, which a range never
// selects.
func versionConstraint(ver string) string {
	if strings.ContainsAny(ver, "-+") {
		return "= " + ver
	}
	return "~> " + ver
}

var cliVersion = regexp.MustCompile(`(?m)^(Terraform|OpenTofu) v\S+`)

type cli struct {
	path, name string
	openTofu   bool
}

// terraformCLI is the CLI the acceptance tests use: TF_ACC_TERRAFORM_PATH,
// else terraform on PATH.
func terraformCLI(t *testing.T) cli {
	path := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if path == "" {
		var err error
		if path, err = exec.LookPath("terraform"); err != nil {
			t.Fatal("terraform is not on PATH; set TF_ACC_TERRAFORM_PATH")
		}
	}
	cmd := exec.Command(path, "version")
	cmd.Env = cleanEnviron()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s version: %v", path, err)
	}
	name := cliVersion.FindString(string(out))
	return cli{path: path, name: name, openTofu: strings.HasPrefix(name, "OpenTofu")}
}

func (c cli) run(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command(c.path, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// says reports whether the CLI's output holds the phrase, wherever the CLI
// wrapped its lines.
func says(out, phrase string) bool {
	return strings.Contains(strings.Join(strings.Fields(out), " "), phrase)
}

// skipUnlessCLIRuns skips t, which runs the CLI named (init, apply and
// plan), unless acceptance runs are asked for, and off Linux: only there
// does the CLI's Go TLS stack read SSL_CERT_FILE; macOS and Windows ask the
// system's trust store.
func skipUnlessCLIRuns(t *testing.T, name string) {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skipf("runs %s init, apply and plan; set TF_ACC=1", name)
	}
	if runtime.GOOS != "linux" {
		t.Skip("the CLI trusts the test's certificate through SSL_CERT_FILE on Linux only")
	}
}

// sandbox makes home, tmp, work and dirs under tmp, and returns the CLI's
// environment there, with the CLI configuration rc and the emulator emu:
// env without the test's certificate authority, trusting with caFile.
// Nothing of the machine's own setup: no home directory with plugins or a
// .terraformrc, no plugin cache, no credentials, and a dead proxy for
// anything that is not loopback, so a registry lookup would fail instead of
// succeeding.
func sandbox(t *testing.T, tmp, rc string, emu *emulatortest.Server, caFile string, dirs ...string) (env, trusting []string) {
	t.Helper()
	for _, d := range append([]string{"home", "tmp", "work"}, dirs...) {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env = append(cleanEnviron(),
		"HOME="+filepath.Join(tmp, "home"), "TMPDIR="+filepath.Join(tmp, "tmp"),
		"TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
		"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=127.0.0.1,localhost",
		"MOBILEPLAN_BASE_URL="+emu.URL, "MOBILEPLAN_API_TOKEN="+emu.Token)
	return env, append(slices.Clip(env), "SSL_CERT_FILE="+caFile)
}

// subscriptionConfig is the configuration the mirror tests install the
// provider for: source at version, a plan data source and a subscription.
func subscriptionConfig(source, version string) string {
	return fmt.Sprintf(`terraform {
  required_providers {
    mobileplan = {
      source  = %q
      version = %q
    }
  }
}

data "mobileplan_plans" "europe" {
  label        = "europe"
  subscribable = true
}

resource "mobileplan_subscription" "phone" {
  plan_id = data.mobileplan_plans.europe.ids[0]
}
`, source, version)
}

// cleanEnviron is the test's environment without what would let the CLI use
// anything but the test's own configuration.
func cleanEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch up := strings.ToUpper(k); {
		case strings.HasPrefix(up, "TF_"), strings.HasPrefix(up, "MOBILEPLAN_"), strings.HasPrefix(up, "SSL_CERT_"),
			strings.HasSuffix(up, "_PROXY"), up == "HOME", up == "TMPDIR", up == "TERRAFORM_CONFIG", up == "TOFU_CLI_CONFIG_FILE":
			continue
		}
		env = append(env, kv)
	}
	return env
}

type mirrorServer struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

// downloads counts the GET requests for a file of the mirror. (Terraform
// sends a HEAD before each download.)
func (s *mirrorServer) downloads(file string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[file]
}

// serveTLS serves dir as a static file server would, over HTTPS with a
// certificate for 127.0.0.1 from an authority made here, and writes that
// authority's certificate to a PEM file for SSL_CERT_FILE.
func serveTLS(t *testing.T, dir, tmp string) (*mirrorServer, string) {
	ca := testcert.New(t, "mobileplan mirror test CA", "127.0.0.1")
	caFile := filepath.Join(tmp, "mirror-ca.pem")
	writeTestFile(t, caFile, ca.PEM)

	s := &mirrorServer{hits: map[string]int{}}
	files := http.FileServer(http.Dir(dir))
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if r.Method == http.MethodGet {
			s.hits[filepath.Base(r.URL.Path)]++
		}
		s.mu.Unlock()
		files.ServeHTTP(w, r)
	}))
	s.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Server}, MinVersion: tls.VersionTLS12}
	// The CLI's refusal of an unknown certificate is expected once; the
	// server's log line about it is noise.
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	t.Cleanup(s.Close)
	return s, caFile
}

// tamper changes one byte of the platform's binary in its archive on the
// mirror and republishes <version>.json with the changed archive's hash.
// It returns that hash.
func tamper(t *testing.T, o Options, p Platform) string {
	t.Helper()
	dir := o.ProviderDir()
	path := filepath.Join(dir, o.ArchiveName(p))
	_, content := onlyEntry(t, path)
	content[len(content)/2] ^= 0xff
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeZip(f, o.BinaryName(p), strings.NewReader(string(content))); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	h1, err := dirhash.HashZip(path, dirhash.Hash1)
	if err != nil {
		t.Fatal(err)
	}
	versionPath := filepath.Join(dir, o.Version+".json")
	var vf versionFile
	if err := json.Unmarshal([]byte(readFile(t, versionPath)), &vf); err != nil {
		t.Fatal(err)
	}
	a := vf.Archives[p.String()]
	if a.Hashes[0] == h1 {
		t.Fatal("changing a byte did not change the hash")
	}
	a.Hashes = []string{h1}
	vf.Archives[p.String()] = a
	if err := writeJSON(versionPath, vf); err != nil {
		t.Fatal(err)
	}
	return h1
}

var lockHash = regexp.MustCompile(`"(h1:[^"]+|zh:[^"]+)"`)

// lockHashes lists the hashes of a lock file, sorted.
func lockHashes(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, m := range lockHash.FindAllStringSubmatch(readFile(t, path), -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return out
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
