package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The report lists each pass's packages and the slowest tests, slowest
// first, marking those over the bound; subtests and output are left out,
// and a package Go's test cache answered is marked cached, its tests'
// times (an earlier run's) left out.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	events := `{"Action":"run","Package":"p/a","Test":"TestSlow"}
{"Action":"output","Package":"p/a","Test":"TestSlow","Output":"ok\n"}
{"Action":"pass","Package":"p/a","Test":"TestSlow/sub","Elapsed":90}
{"Action":"pass","Package":"p/a","Test":"TestSlow","Elapsed":95.5}
{"Action":"fail","Package":"p/a","Test":"TestBroken","Elapsed":3}
{"Action":"pass","Package":"p/b","Test":"TestQuick","Elapsed":0.2}
{"Action":"pass","Package":"p/b","Elapsed":1.5}
{"Action":"fail","Package":"p/a","Elapsed":99}
{"Action":"pass","Package":"p/c","Test":"TestOnceSlow","Elapsed":300}
{"Action":"output","Package":"p/c","Output":"ok  \tp/c\t(cached)\n"}
{"Action":"pass","Package":"p/c","Elapsed":0.003}
`
	path := filepath.Join(dir, "test-go.json")
	if err := os.WriteFile(path, []byte(events), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := report(&out, []string{path}, 2, time.Minute); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"test-go   ", "1m39s  p/a", "1.5s  p/b", "test-go, in all", "1m40.5s",
		"cached  p/c", "The 2 slowest tests (marked: over 1m0s):", "!  1m35.5s  test-go            TestSlow p/a", "       3s  test-go            TestBroken p/a"} {
		if !strings.Contains(got, want) {
			t.Errorf("the report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TestQuick") || strings.Contains(got, "TestSlow/sub") || strings.Contains(got, "TestOnceSlow") {
		t.Errorf("the report lists more than the 2 slowest top-level tests:\n%s", got)
	}
}
