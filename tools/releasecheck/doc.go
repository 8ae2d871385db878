// Package releasecheck holds only tests of the files that build and
// maintain releases: that the emulator's release (.goreleaser.emulator.yml)
// covers every platform of the provider's (.goreleaser.yml) and leaves
// alone the files the Terraform and OpenTofu registries read from a
// release, that both build as internal/releasebuild says (the tests and
// the mirror build so), and that dependabot keeps every Go module
// current. `make ci-check` builds a snapshot of both releases; these tests
// say what the configurations must be.
package releasecheck
