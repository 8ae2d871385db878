// Package releasecheck holds only tests of the release configuration: that
// the emulator's release (.goreleaser.emulator.yml) covers every platform
// of the provider's (.goreleaser.yml), and that it leaves alone the files
// the Terraform and OpenTofu registries read from a release. `make
// ci-check` builds a snapshot of both; these tests say what it must be.
package releasecheck
