// Command testtimes reports where a test run's time went, from the events
// `go test -json` wrote (gotestsum's --jsonfile): each pass's packages
// with their time, then the slowest tests of every pass, marking those
// over a bound. It reports; it never fails a run, since times vary with a
// machine's load.
//
//	go run ./tools/testtimes [-slowest 20] [-over 60s] PASS.json...
//
// A pass is named by its file's name (bin/test-times/test-go.json: the
// pass test-go).
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// event is what testtimes reads of a line of `go test -json`.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64 // seconds
}

// timing is one package's or test's time in one pass; cached, a result
// Go's test cache gave (its tests' times are those of the run that made
// it, so they are left out of the slowest).
type timing struct {
	pass, pkg, test string
	elapsed         time.Duration
	cached          bool
}

func main() {
	slowest := flag.Int("slowest", 20, "how many of the slowest tests to list")
	over := flag.Duration("over", time.Minute, "mark the tests that took longer")
	flag.Parse()
	if err := report(os.Stdout, flag.Args(), *slowest, *over); err != nil {
		fmt.Fprintln(os.Stderr, "testtimes:", err)
		os.Exit(1)
	}
}

func report(w io.Writer, files []string, slowest int, over time.Duration) error {
	var packages, tests []timing
	for _, f := range files {
		pass := strings.TrimSuffix(filepath.Base(f), ".json")
		p, t, err := read(f, pass)
		if err != nil {
			return err
		}
		packages, tests = append(packages, p...), append(tests, t...)
	}
	fmt.Fprintln(w, "Test times (go test -json, per pass and package):")
	var pass string
	var total time.Duration
	flush := func() {
		if pass != "" {
			fmt.Fprintf(w, "  %-40s %8s  (the packages' times added up; they run side by side)\n", pass+", in all", round(total))
		}
	}
	for _, p := range packages {
		if p.pass != pass {
			flush()
			pass, total = p.pass, 0
		}
		total += p.elapsed
		switch {
		case p.cached:
			fmt.Fprintf(w, "  %-40s %8s  %s\n", p.pass, "cached", p.pkg)
		case p.elapsed >= time.Second:
			fmt.Fprintf(w, "  %-40s %8s  %s\n", p.pass, round(p.elapsed), p.pkg)
		}
	}
	flush()
	slices.SortStableFunc(tests, func(a, b timing) int { return cmp.Compare(b.elapsed, a.elapsed) })
	fmt.Fprintf(w, "The %d slowest tests (marked: over %s):\n", min(slowest, len(tests)), over)
	for _, t := range tests[:min(slowest, len(tests))] {
		mark := " "
		if t.elapsed > over {
			mark = "!"
		}
		fmt.Fprintf(w, "  %s %8s  %-18s %s %s\n", mark, round(t.elapsed), t.pass, t.test, strings.TrimPrefix(t.pkg, "github.com/mobileplan/terraform-provider-mobileplan/"))
	}
	return nil
}

// read is one pass's package and top-level test times, packages sorted by
// name.
func read(path, pass string) (packages, tests []timing, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	cached := map[string]bool{}
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.Action == "output" && e.Test == "" && strings.HasPrefix(e.Output, "ok  ") && strings.HasSuffix(e.Output, "\t(cached)\n") {
			cached[e.Package] = true
		}
		if e.Action != "pass" && e.Action != "fail" {
			continue
		}
		t := timing{pass: pass, pkg: e.Package, test: e.Test, elapsed: time.Duration(e.Elapsed * float64(time.Second))}
		switch {
		case e.Test == "":
			packages = append(packages, t)
		case !strings.Contains(e.Test, "/"):
			tests = append(tests, t)
		}
	}
	for i := range packages {
		packages[i].cached = cached[packages[i].pkg]
	}
	tests = slices.DeleteFunc(tests, func(t timing) bool { return cached[t.pkg] })
	slices.SortFunc(packages, func(a, b timing) int { return strings.Compare(a.pkg, b.pkg) })
	return packages, tests, sc.Err()
}

func round(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }
