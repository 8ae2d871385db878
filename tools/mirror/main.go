// Command mirror writes a provider network mirror (Terraform's Provider
// Network Mirror Protocol) for the provider built from this repository:
//
//	DIR/registry.terraform.io/mobileplan/mobileplan/index.json
//	DIR/registry.terraform.io/mobileplan/mobileplan/<version>.json
//	DIR/registry.terraform.io/mobileplan/mobileplan/terraform-provider-mobileplan_<version>_<os>_<arch>.zip
//
// Any static HTTPS server can serve DIR; a `network_mirror` block in the
// CLI configuration points Terraform at it. `make mirror` runs it from the
// repository root.
//
// With -oci REPOSITORY it also pushes the same zips to an OCI registry, as
// the artifact OpenTofu's oci_mirror installs (oci.go). With -release DIST
// it takes the binaries from a release's zips instead of building them.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// DefaultPlatforms is what a team typically runs on: Linux CI runners and
// macOS and Windows workstations, on Intel and Arm.
const DefaultPlatforms = "linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64 windows_arm64"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mirror:", err)
		os.Exit(1)
	}
}

func run() error {
	o := Options{Hostname: "registry.terraform.io", Namespace: "mobileplan", Type: "mobileplan", Log: os.Stdout}
	var platforms string
	flag.StringVar(&o.Dir, "dir", "", "mirror root to write (required)")
	flag.StringVar(&o.Version, "version", "", "provider version (default: the top entry of CHANGELOG.md)")
	flag.StringVar(&platforms, "platforms", DefaultPlatforms, "space-separated os_arch names")
	flag.StringVar(&o.Hostname, "hostname", o.Hostname, "registry host of the provider's source address")
	release := flag.String("release", "", "take each platform's binary from the release zips in this directory (goreleaser's dist), instead of building it")
	ociRepo := flag.String("oci", "", "also push the provider to this OCI repository (host/path), as the artifact OpenTofu's oci_mirror installs; credentials as docker login left them")
	flag.Parse()
	if o.Dir == "" || flag.NArg() > 0 {
		flag.Usage()
		return fmt.Errorf("usage: mirror -dir DIR [-version V] [-platforms \"os_arch ...\"] [-release DIST] [-oci REPOSITORY]")
	}
	var err error
	if o.Platforms, err = ParsePlatforms(platforms); err != nil {
		return err
	}
	if o.Version == "" {
		if o.Version, err = ChangelogVersion("CHANGELOG.md"); err != nil {
			return err
		}
	}
	o.Build = GoBuild(".", o.Version)
	if *release != "" {
		o.Build = ReleaseBinaries(*release, o)
	}
	var repo name.Repository
	if *ociRepo != "" {
		if repo, err = name.NewRepository(*ociRepo); err != nil {
			return err
		}
		// Asked before the build, which takes minutes a platform: a
		// registry this machine cannot reach, trust or push to fails now.
		if err := remote.CheckPushPermission(repo.Tag(OCITag(o.Version)), authn.DefaultKeychain, http.DefaultTransport); err != nil {
			return fmt.Errorf("cannot push to %s (checked before building; a registry with a private certificate authority needs it in the system's store or SSL_CERT_FILE): %w", repo, err)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	archives, err := Write(ctx, o)
	if err != nil {
		return err
	}
	if *ociRepo == "" {
		fmt.Printf("Mirror of %s/%s/%s %s in %s: serve that directory over HTTPS and name its URL in a network_mirror block.\n",
			o.Hostname, o.Namespace, o.Type, o.Version, o.Dir)
		return nil
	}
	digest, err := PushOCI(ctx, o, archives, repo, remote.WithAuthFromKeychain(authn.DefaultKeychain))
	if err != nil {
		return err
	}
	fmt.Printf("Pushed %s/%s/%s %s to %s:%s (%s): name it in an oci_mirror block's repository_template.\n",
		o.Hostname, o.Namespace, o.Type, o.Version, repo, OCITag(o.Version), digest)
	fmt.Printf("Its zips are in %s: tofu providers lock -fs-mirror=%s -platform=OS_ARCH ... records every platform's hash in a lock file.\n", o.Dir, o.Dir)
	return nil
}
