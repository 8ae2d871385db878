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
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
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
	flag.Parse()
	if o.Dir == "" || flag.NArg() > 0 {
		flag.Usage()
		return fmt.Errorf("usage: mirror -dir DIR [-version V] [-platforms \"os_arch ...\"]")
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if _, err := Write(ctx, o); err != nil {
		return err
	}
	fmt.Printf("Mirror of %s/%s/%s %s in %s: serve that directory over HTTPS and name its URL in a network_mirror block.\n",
		o.Hostname, o.Namespace, o.Type, o.Version, o.Dir)
	return nil
}
