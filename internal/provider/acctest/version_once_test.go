package acctest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The stand-in answers `version -json` as the CLI did once, and hands
// every other command to the CLI in the same process, its arguments, output
// and exit status unchanged.
func TestVersionStandIn_answersVersionOnceAndRunsTheCLIForTheRest(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in is a shell script")
	}
	// The CLI's directory has a space and a quote in its name.
	dir := filepath.Join(t.TempDir(), "the CLI's")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(dir, "calls")
	answer := `{"terraform_version":"1.2.3","note":"it's $HOME %s \\"}` + "\n"
	fake := filepath.Join(dir, "terraform")
	// The fake logs its process and each argument in brackets.
	script := "#!/bin/sh\n{ printf '%s ' \"$$\"; printf '[%s]' \"$@\"; echo; } >> " + shellQuote(calls) + "\n" +
		"if [ \"$#\" -eq 2 ] && [ \"$1\" = version ] && [ \"$2\" = -json ]; then printf '%s' " + shellQuote(answer) + "; exit 0; fi\n" +
		"printf 'ran'; printf ' [%s]' \"$@\"; echo\nexit 3\n"
	if err := os.WriteFile(fake, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TF_ACC_TERRAFORM_PATH", fake)

	standIn := versionStandIn(t.TempDir())
	if standIn == "" || os.Getenv("TF_ACC_TERRAFORM_PATH") != standIn || filepath.Base(standIn) != "terraform" {
		t.Fatalf("stand-in %q, TF_ACC_TERRAFORM_PATH %q; want a stand-in named terraform there", standIn, os.Getenv("TF_ACC_TERRAFORM_PATH"))
	}
	for range 3 {
		out, err := exec.Command(standIn, "version", "-json").Output()
		if err != nil || string(out) != answer {
			t.Fatalf("version -json: %q, %v; want %q", out, err, answer)
		}
	}
	if got := callLines(t, calls); len(got) != 1 {
		t.Fatalf("the CLI ran %d times for five `version -json` (one to make the stand-in, one its self-check); want once: %q", len(got), got)
	}

	cmd := exec.Command(standIn, "plan", "-out", "a b", "")
	out, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 || string(out) != "ran [plan] [-out] [a b] []\n" {
		t.Fatalf("plan through the stand-in: %q, %v; want the CLI's output and its exit status 3", out, err)
	}
	got := callLines(t, calls)
	if want := strconv.Itoa(cmd.Process.Pid) + " [plan][-out][a b][]"; got[len(got)-1] != want {
		t.Errorf("the CLI ran as %q; want %q: its arguments as given, in the stand-in's own process (exec)", got[len(got)-1], want)
	}
}

func callLines(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}
