// Package acctest is the provider's test kit that runs CLIs: harnesses
// that drive the provider as Terraform does, against an in-process
// emulator. Which one to use:
//
//   - terraform-plugin-testing's resource.Test, for anything a
//     configuration can show: plans, state, import, errors. It runs the
//     real CLI against the provider served in the test process.
//   - CLI, when the test needs what only a user's command line shows:
//     warnings, `plan -generate-config-out`, TF_LOG output, the requests one
//     command sends, or a provider binary of its own (a build of main, or of
//     another composition).
//   - prototest's ProtoHarness, to call the protocol server directly,
//     without a CLI: comparing two servers call by call, and benchmarks.
//
// Main is the TestMain of every package that runs a CLI.
package acctest
