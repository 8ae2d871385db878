package main

import "testing"

func TestRun_helpExitsCleanly(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		if err := run([]string{arg}); err != nil {
			t.Errorf("run(%s) = %v, want nil so that the command exits 0", arg, err)
		}
	}
	if err := run([]string{"-no-such-flag"}); err == nil {
		t.Error("an unknown flag is not an error")
	}
}
