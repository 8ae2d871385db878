package doclinks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeGo is a go command for scripts/steps.sh that lists two packages, one
// whose tests start programs (os/exec among its test imports) and one
// whose tests do not, and counts its `go test` runs in the file COUNT,
// failing the one numbered FAIL_AT.
const fakeGo = `#!/usr/bin/env bash
case "$1" in
list)
  if [ "$2" = -f ]; then
    printf 'example.com/cached testing\nexample.com/programs os/exec testing\n'
  else
    printf 'example.com/cached\nexample.com/programs\n'
  fi ;;
test)
  n=$(( $(cat "$COUNT") + 1 ))
  echo "$n" > "$COUNT"
  [ "$n" != "$FAIL_AT" ] ;;
*) exit 2 ;;
esac
`

// make test's race stage fails when any of its go test runs fails, the
// first (the packages left to Go's test cache) included, and passes when
// none does.
func TestSteps_raceFailsWhenAnyRunFails(t *testing.T) {
	t.Chdir("../..")
	const runs = 3
	for failAt := 0; failAt <= runs; failAt++ {
		t.Run(fmt.Sprintf("run %d of %d fails", failAt, runs), func(t *testing.T) {
			dir := t.TempDir()
			goCmd, count := filepath.Join(dir, "go"), filepath.Join(dir, "count")
			if err := os.WriteFile(goCmd, []byte(fakeGo), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(count, []byte("0\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("bash", "scripts/steps.sh", "race")
			cmd.Env = append(os.Environ(), "GO="+goCmd, "COUNT="+count, fmt.Sprintf("FAIL_AT=%d", failAt))
			out, err := cmd.CombinedOutput()
			ran := strings.TrimSpace(readText(t, count))
			switch {
			case failAt == 0 && err != nil:
				t.Errorf("no run failed, but the race stage did (%v) after %s runs:\n%s", err, ran, out)
			case failAt > 0 && err == nil:
				t.Errorf("run %d failed, but the race stage passed after %s runs:\n%s", failAt, ran, out)
			case failAt == 0 && ran != fmt.Sprint(runs):
				t.Errorf("the race stage ran go test %s times, want %d (the fake's listing no longer matches steps.sh)", ran, runs)
			}
		})
	}
}
