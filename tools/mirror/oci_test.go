package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/testcert"
)

// TestOCIMirror is the route of an air-gapped team on OpenTofu: the
// provider pushed (PushOCI) to an OCI registry, here go-containerregistry's
// registry served over HTTPS on loopback, and a CLI configuration holding
// nothing but an oci_mirror block. Plain `tofu init` installs it, records
// the package's h1: hash (the network mirror's for the same zip), fetches
// only its own platform's package, and apply and plan work. Terraform has
// no OCI installation method: under it the test skips.
func TestOCIMirror(t *testing.T) {
	skipUnlessCLIRuns(t, "tofu")
	cli := terraformCLI(t)
	if !cli.openTofu {
		t.Skipf("%s installs no provider from OCI registries: the test runs under OpenTofu (TF_ACC_TERRAFORM_PATH)", cli.name)
	}
	ver, err := ChangelogVersion("../../CHANGELOG.md")
	if err != nil {
		t.Fatal(err)
	}
	host := Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}
	platforms := testPlatforms(t, host)
	tmp := t.TempDir()
	o := Options{
		Dir: filepath.Join(tmp, "mirror"), Hostname: "registry.opentofu.org", Namespace: "mobileplan", Type: "mobileplan",
		Version: ver, Platforms: platforms, Build: buildHostOnly(host, GoBuild("../..", ver)),
	}
	archives, err := Write(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}

	reg, caFile := serveRegistry(t, tmp)
	repo, err := name.NewRepository(reg.Listener.Addr().String() + "/providers/mobileplan/mobileplan")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PushOCI(context.Background(), o, archives, repo, remote.WithTransport(reg.trusting)); err != nil {
		t.Fatal(err)
	}
	reg.resetCounts()

	emu := emulatortest.Start(t, emulator.Options{})
	rc := filepath.Join(tmp, "oci.tfrc")
	writeTestFile(t, rc, fmt.Sprintf(`provider_installation {
  oci_mirror {
    repository_template = "%s/providers/${namespace}/${type}"
    include             = ["registry.opentofu.org/mobileplan/*"]
  }
}
`, reg.Listener.Addr()))
	env, trusting := sandbox(t, tmp, rc, emu, caFile)
	work := filepath.Join(tmp, "work")
	writeTestFile(t, filepath.Join(work, "main.tf"), subscriptionConfig("mobileplan/mobileplan", versionConstraint(ver)))

	// The registry's certificate is the test's own: without it, init
	// fails, so the run below really verifies the registry.
	if out, err := cli.run(work, env, "init", "-input=false", "-no-color"); err == nil || !says(out, "certificate") {
		t.Fatalf("init without SSL_CERT_FILE: err %v, want a certificate error; output:\n%s", err, out)
	}
	if err := os.RemoveAll(filepath.Join(work, ".terraform")); err != nil {
		t.Fatal(err)
	}
	reg.resetCounts()
	out, err := cli.run(work, trusting, "init", "-input=false", "-no-color")
	if err != nil {
		t.Fatalf("init from the OCI mirror: %v\n%s", err, out)
	}
	hostHash := archives[host.String()].Hashes[0]
	if got := lockHashes(t, filepath.Join(work, ".terraform.lock.hcl")); !slices.Contains(got, hostHash) {
		t.Fatalf("lock file after init has %v, want the host package's %s", got, hostHash)
	}
	blobs := reg.blobGets()
	if len(blobs) != 1 {
		t.Fatalf("init fetched %d blobs %v, want one: the host's package (the other platforms' are not its to fetch)", len(blobs), blobs)
	}
	// The guide's lock step: init from OCI records the host's hash only,
	// and says so; the mirror's directory gives every platform's.
	if !says(out, "Incomplete lock file information") {
		t.Errorf("init from OCI does not warn of the lock file's missing platforms, which the guide says it does:\n%s", out)
	}
	lock := []string{"providers", "lock", "-no-color", "-fs-mirror=" + o.Dir}
	for _, p := range platforms {
		lock = append(lock, "-platform="+p.String())
	}
	if out, err := cli.run(work, trusting, lock...); err != nil {
		t.Fatalf("the guide's lock step (%v): %v\n%s", lock, err, out)
	}
	got := lockHashes(t, filepath.Join(work, ".terraform.lock.hcl"))
	for _, p := range platforms {
		if h := archives[p.String()].Hashes[0]; !slices.Contains(got, h) {
			t.Errorf("lock file after the lock step has %v, lacks %s's %s", got, p, h)
		}
	}
	if out, err := cli.run(work, trusting, "init", "-input=false", "-no-color"); err != nil || says(out, "Incomplete lock file information") {
		t.Fatalf("init from the OCI mirror after the lock step: %v\n%s", err, out)
	}
	if out, err := cli.run(work, trusting, "apply", "-auto-approve", "-input=false", "-no-color"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if out, err := cli.run(work, trusting, "plan", "-input=false", "-detailed-exitcode", "-no-color"); err != nil {
		t.Fatalf("plan after apply is not empty (exit 2 means changes): %v\n%s", err, out)
	}
}

// ociRegistry is go-containerregistry's registry over HTTPS, counting the
// blobs fetched.
type ociRegistry struct {
	*httptest.Server
	trusting http.RoundTripper
	mu       sync.Mutex
	blobs    map[string]int
}

func (r *ociRegistry) resetCounts() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.blobs = map[string]int{}
}

// blobGets lists the blobs fetched with GET since the last reset.
func (r *ociRegistry) blobGets() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for b := range r.blobs {
		out = append(out, b)
	}
	slices.Sort(out)
	return out
}

// serveRegistry serves an empty registry over HTTPS with a certificate for
// 127.0.0.1 from an authority made here, written to a PEM file for
// SSL_CERT_FILE; trusting is a transport that trusts it, for the push.
func serveRegistry(t *testing.T, tmp string) (*ociRegistry, string) {
	ca := testcert.New(t, "mobileplan OCI registry test CA", "127.0.0.1")
	caFile := filepath.Join(tmp, "registry-ca.pem")
	writeTestFile(t, caFile, ca.PEM)
	r := &ociRegistry{blobs: map[string]int{}}
	handler := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	r.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if _, digest, ok := strings.Cut(req.URL.Path, "/blobs/"); ok && req.Method == http.MethodGet {
			r.mu.Lock()
			r.blobs[digest]++
			r.mu.Unlock()
		}
		handler.ServeHTTP(w, req)
	}))
	r.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Server}, MinVersion: tls.VersionTLS12}
	r.Config.ErrorLog = log.New(io.Discard, "", 0)
	r.StartTLS()
	t.Cleanup(r.Close)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM([]byte(ca.PEM)) {
		t.Fatal("the test CA's PEM holds no certificate")
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	r.trusting = transport
	return r, caFile
}

// TestPushOCILayout reads back what PushOCI pushed, as OpenTofu reads it:
// the tag (+ written _) on an index of the provider's artifact type, one
// image manifest per platform of the target's artifact type with its os
// and architecture, each holding one archive/zip layer whose bytes are the
// network mirror's zip.
func TestPushOCILayout(t *testing.T) {
	o := testOptions(t.TempDir(), "1.2.3+build.4", "linux_amd64 windows_arm64")
	archives, err := Write(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	repo, err := name.NewRepository(strings.TrimPrefix(srv.URL, "http://")+"/providers/mobileplan/mobileplan", name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	pushed, err := PushOCI(context.Background(), o, archives, repo)
	if err != nil {
		t.Fatal(err)
	}
	tags, err := remote.List(repo)
	if err != nil || !slices.Equal(tags, []string{"1.2.3_build.4"}) {
		t.Fatalf("tags %v (%v), want [1.2.3_build.4]", tags, err)
	}
	desc, err := remote.Get(repo.Tag("1.2.3_build.4"))
	if err != nil {
		t.Fatal(err)
	}
	if desc.Digest != pushed || desc.MediaType != types.OCIImageIndex {
		t.Fatalf("tag names %s of %s, want the pushed index %s", desc.Digest, desc.MediaType, pushed)
	}
	var index v1.IndexManifest
	if err := json.Unmarshal(desc.Manifest, &index); err != nil {
		t.Fatal(err)
	}
	if index.ArtifactType != ociProviderArtifactType || len(index.Manifests) != 2 {
		t.Fatalf("index of artifact type %q with %d manifests, want %q with 2", index.ArtifactType, len(index.Manifests), ociProviderArtifactType)
	}
	for i, p := range o.Platforms {
		m := index.Manifests[i]
		if m.ArtifactType != ociTargetArtifactType || m.MediaType != types.OCIManifestSchema1 || m.Platform == nil ||
			m.Platform.OS != p.OS || m.Platform.Architecture != p.Arch {
			t.Fatalf("manifest %d: %+v, want an image manifest of %q for %s", i, m, ociTargetArtifactType, p)
		}
		got, err := remote.Get(repo.Digest(m.Digest.String()))
		if err != nil {
			t.Fatal(err)
		}
		var manifest v1.Manifest
		if err := json.Unmarshal(got.Manifest, &manifest); err != nil {
			t.Fatal(err)
		}
		if manifest.ArtifactType != ociTargetArtifactType || len(manifest.Layers) != 1 || manifest.Layers[0].MediaType != ociPackageMediaType {
			t.Fatalf("%s: %+v, want one %s layer", p, manifest, ociPackageMediaType)
		}
		layer, err := remote.Layer(repo.Digest(manifest.Layers[0].Digest.String()))
		if err != nil {
			t.Fatal(err)
		}
		rc, err := layer.Compressed()
		if err != nil {
			t.Fatal(err)
		}
		content, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want := readFile(t, filepath.Join(o.ProviderDir(), archives[p.String()].URL)); string(content) != want {
			t.Errorf("%s: the layer is not the mirror's zip", p)
		}
	}
}

// The command the guide gives pushes to a registry with a private
// authority once SSL_CERT_FILE names it; without it, it fails before it
// builds anything, naming the fix (a build of every platform took 36
// minutes before the push found the certificate untrusted).
func TestMirrorCommand_checksTheOCIRegistryBeforeBuilding(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the mirror command and the provider")
	}
	t.Parallel()
	tmp := t.TempDir()
	reg, caFile := serveRegistry(t, tmp)
	bin := filepath.Join(tmp, "mirror")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	repo := reg.Listener.Addr().String() + "/opentofu-providers/mobileplan/mobileplan"
	dir := filepath.Join(tmp, "bin-mirror")
	// HOME for Go's caches; no registry credentials: anonymous, as the test
	// registry takes.
	env := append(cleanEnviron(), "HOME="+os.Getenv("HOME"), "DOCKER_CONFIG="+filepath.Join(tmp, "docker"))
	push := func(env []string) (string, error) {
		cmd := exec.Command(bin, "-dir", dir, "-hostname", "registry.opentofu.org", "-platforms", runtime.GOOS+"_"+runtime.GOARCH, "-oci", repo)
		cmd.Dir, cmd.Env = "../..", env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := push(env)
	if err == nil || !strings.Contains(out, "checked before building") || !strings.Contains(out, "SSL_CERT_FILE") {
		t.Fatalf("a push to an untrusted registry: %v, want a failure naming SSL_CERT_FILE before the build:\n%s", err, out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the mirror directory was written (%v) before the registry was found untrusted", err)
	}
	out, err = push(append(env, "SSL_CERT_FILE="+caFile))
	if err != nil || !strings.Contains(out, "Pushed registry.opentofu.org/mobileplan/mobileplan") || !strings.Contains(out, "-fs-mirror="+dir) || strings.Contains(out, "network_mirror") {
		t.Fatalf("the push with SSL_CERT_FILE: %v, want it pushed and the lock step named, nothing of the network mirror:\n%s", err, out)
	}
	ref, err := name.NewRepository(repo)
	if err != nil {
		t.Fatal(err)
	}
	if tags, err := remote.List(ref, remote.WithTransport(reg.trusting)); err != nil || len(tags) != 1 {
		t.Errorf("the registry holds tags %v (%v), want the version's", tags, err)
	}
}
