package acctest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// The CLI's version, asked once per test binary.
//
// terraform-plugin-testing asks the CLI for `version -json` twice in each
// resource.Test (its helper, then terraform-exec for the working
// directory): a whole CLI start each, 0.13 to 0.17 CPU-s here, some 270
// times in a make test, for an answer that cannot change within a run.
// Main puts a stand-in in TF_ACC_TERRAFORM_PATH: a shell script that
// prints the answer the CLI gave once for `version -json`, and runs the
// CLI itself for anything else by exec, in the same process, so that
// signals, process trees and the provider's view of its parent are the
// CLI's own. The workaround ends when terraform-plugin-testing asks once
// per run.

// versionStandIn writes the stand-in for the CLI the tests run into a
// directory of its own under root and returns that directory, or "" when
// the CLI is not found or gives no JSON version (its tests then report it
// as before) or the platform has no /bin/sh.
func versionStandIn(root string) string {
	if runtime.GOOS == "windows" {
		return ""
	}
	cli, err := exec.LookPath(TerraformBinary())
	if err != nil {
		return ""
	}
	if cli, err = filepath.Abs(cli); err != nil {
		return ""
	}
	answer, err := exec.Command(cli, "version", "-json").Output()
	if err != nil || !json.Valid(answer) {
		return ""
	}
	dir := filepath.Join(root, "cli")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return ""
	}
	script := "#!/bin/sh\n" +
		"# " + cli + ", but for `version -json`, answered as it answered once (internal/provider/acctest/version_once.go).\n" +
		"if [ \"$#\" -eq 2 ] && [ \"$1\" = version ] && [ \"$2\" = -json ]; then\n" +
		"  printf '%s' " + shellQuote(string(answer)) + "\n" +
		"  exit 0\n" +
		"fi\n" +
		"exec " + shellQuote(cli) + " \"$@\"\n"
	standIn := filepath.Join(dir, filepath.Base(cli))
	if err := os.WriteFile(standIn, []byte(script), 0o700); err != nil {
		return ""
	}
	os.Setenv("TF_ACC_TERRAFORM_PATH", standIn)
	return dir
}

// shellQuote is s as one word of a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
