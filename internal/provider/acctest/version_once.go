package acctest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// The CLI's version, asked once per test binary.
//
// terraform-plugin-testing asks the CLI for `version -json` twice in each
// resource.Test (its helper, then terraform-exec for the working
// directory): a whole CLI start each, 0.13 to 0.17 CPU-s here (135 of
// the 1,027 commands of make test's Terraform pass when counted). Both
// read only the CLI's version from it, which cannot change within a run;
// the answer's provider selections, which depend on the directory it is
// asked in, both ignore. Main puts a
// stand-in in TF_ACC_TERRAFORM_PATH: a shell script that prints the
// answer the CLI gave once for `version -json`, and runs the CLI itself
// for anything else by exec, in the same process, so that signals,
// process trees and the provider's view of its parent are the CLI's own.
// The workaround ends when terraform-plugin-testing asks once per run.

// versionStandIn writes the stand-in for the CLI the tests run into a
// directory of its own under root, checks that it answers as the CLI did,
// and returns its path; or "" when there is none to make: the CLI is not
// found or gives no JSON version (its tests then report it as before),
// the run asks terraform-plugin-testing to install a CLI
// (TF_ACC_TERRAFORM_VERSION), or the script cannot run (Windows, no
// /bin/sh, a temp directory mounted noexec).
func versionStandIn(root string) string {
	if runtime.GOOS == "windows" || (os.Getenv("TF_ACC_TERRAFORM_PATH") == "" && os.Getenv("TF_ACC_TERRAFORM_VERSION") != "") {
		return ""
	}
	cli, err := exec.LookPath(TerraformBinary())
	if err != nil {
		return ""
	}
	if cli, err = filepath.Abs(cli); err != nil {
		return ""
	}
	answer, err := versionJSON(cli)
	if err != nil || !json.Valid(answer) {
		return ""
	}
	dir := filepath.Join(root, "cli")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return ""
	}
	script := "#!/bin/sh\n" +
		"# The CLI, but for `version -json`, answered as it answered once (internal/provider/acctest/version_once.go).\n" +
		"if [ \"$#\" -eq 2 ] && [ \"$1\" = version ] && [ \"$2\" = -json ]; then\n" +
		"  printf '%s' " + shellQuote(string(answer)) + "\n" +
		"  exit 0\n" +
		"fi\n" +
		"exec " + shellQuote(cli) + " \"$@\"\n"
	standIn := filepath.Join(dir, filepath.Base(cli))
	if err := os.WriteFile(standIn, []byte(script), 0o700); err != nil {
		os.RemoveAll(dir)
		return ""
	}
	if got, err := versionJSON(standIn); err != nil || !bytes.Equal(got, answer) {
		os.RemoveAll(dir)
		return ""
	}
	os.Setenv("TF_ACC_TERRAFORM_PATH", standIn)
	return standIn
}

// versionJSON is what cli prints for `version -json`, within a minute:
// Main asks before the tests' own time limit is armed.
func versionJSON(cli string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return exec.CommandContext(ctx, cli, "version", "-json").Output()
}

// shellQuote is s as one word of a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
