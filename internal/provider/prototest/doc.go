// Package prototest is the in-process test kit of the provider's packages:
// ProtoHarness calls a protocol server as Terraform would, without a CLI,
// against an emulator in the test process; RandomValue and Filler make the
// values such comparisons feed it; ServiceClient and CreateAt act on the
// service as an account's other users do, through its API.
//
// It starts no program. A package whose tests use it, and not acctest
// (which runs CLIs), has no input Go's test cache cannot see, so make test
// lets Go reuse its results (scripts/steps.sh packages).
package prototest
